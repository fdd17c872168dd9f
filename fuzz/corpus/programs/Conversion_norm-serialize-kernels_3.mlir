module attributes {gpu.container_module} {
  gpu.module @small [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @small() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @large [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @large(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %x = llvm.load %p : !llvm.ptr<1> -> f32
      %y = llvm.fmul %x, %x : f32
      %z = llvm.fadd %y, %x : f32
      llvm.store %z, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
