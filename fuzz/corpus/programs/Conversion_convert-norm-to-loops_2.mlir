func.func @not_bufferized(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = norm.fused ins(%x : full tensor<4x8xf32>) outs(%o : full tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return %r : tensor<4x8xf32>
}
