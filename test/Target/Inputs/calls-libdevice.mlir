// A kernel calling libdevice's expf (norm-serialize-kernels.mlir).
module attributes {gpu.container_module} {
  gpu.module @exp [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @exp(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %x = llvm.load %p : !llvm.ptr<1> -> f32
      %y = llvm.call @__nv_expf(%x) : (f32) -> f32
      llvm.store %y, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
