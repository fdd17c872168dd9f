module attributes {gpu.container_module} {
  gpu.module @first [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @first() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @second [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @second() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
