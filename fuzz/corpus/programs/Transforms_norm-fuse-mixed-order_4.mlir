func.func @unrelated(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = norm.reduce <row> <add> ins(%a : full tensor<8x32xf32>) -> tensor<8xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  %t = norm.reduce <row> <max> ins(%b : full tensor<8x32xf32>) -> tensor<8xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return %s, %t : tensor<8xf32>, tensor<8xf32>
}
