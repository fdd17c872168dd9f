func.func @reduce_no_full(%r: tensor<4xf32>) {
  %s = norm.reduce <row> <add> ins(%r : row tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return
}
