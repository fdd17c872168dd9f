module attributes {gpu.container_module} {
  gpu.module @unknown_ptx [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx89">] {
    llvm.func @unknown_ptx() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
