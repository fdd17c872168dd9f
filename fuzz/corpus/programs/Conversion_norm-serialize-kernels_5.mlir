module attributes {gpu.container_module} {
  gpu.module @old_ptx [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx78">] {
    llvm.func @old_ptx() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
