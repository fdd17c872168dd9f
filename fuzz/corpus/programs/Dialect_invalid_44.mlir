func.func @fused_no_space(%r: tensor<4xf32>, %o: tensor<4xf32>) {
  %s = norm.fused ins(%r : row tensor<4xf32>) outs(%o : row tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return
}
