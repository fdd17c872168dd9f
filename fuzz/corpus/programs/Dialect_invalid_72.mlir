func.func @kernel_complex_output(%x: memref<?x64xf32>, %y: memref<?x64xcomplex<f32>>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xcomplex<f32>>) attributes {norm.vector_width = 4 : i64} {
  ^bb0(%a: f32):
    %c = complex.create %a, %a : complex<f32>
    norm.yield %c : complex<f32>
  }
  return
}
