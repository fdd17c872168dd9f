module attributes {gpu.container_module} {
  gpu.module @ampere [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx81">] {
    llvm.func @ampere() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
