module attributes {gpu.container_module} {
  gpu.module @pairs [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @pairs(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %p1 = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f16
      %q1 = llvm.getelementptr %q[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f16
      %a0 = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<1> -> f16
      %a1 = llvm.load %p1 : !llvm.ptr<1> -> f16
      %b0 = llvm.load %q {alignment = 4 : i64} : !llvm.ptr<1> -> f16
      %b1 = llvm.load %q1 : !llvm.ptr<1> -> f16
      %c0 = llvm.fmul %a0, %b0 : f16
      %c1 = llvm.fmul %a1, %b1 : f16
      llvm.store %c0, %p {alignment = 4 : i64} : f16, !llvm.ptr<1>
      llvm.store %c1, %p1 : f16, !llvm.ptr<1>
      llvm.return
    }
  }
}
