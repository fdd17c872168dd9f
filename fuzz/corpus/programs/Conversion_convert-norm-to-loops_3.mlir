func.func @not_decomposed(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>
  return %y : tensor<4x8xf32>
}
