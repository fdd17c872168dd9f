func.func @ln_bias_length(%x: tensor<4x64xf32>, %b: tensor<65xf32>) {
  %y, %m, %r = norm.layer_norm %x bias(%b : tensor<65xf32>) {epsilon = 1.0e-5 : f64} : tensor<4x64xf32> -> tensor<4x64xf32>, tensor<4xf32>, tensor<4xf32>
  return
}
