func.func @ln_mean(%x: tensor<4x64xf32>) {
  %y, %m, %r = norm.layer_norm %x {epsilon = 1.0e-5 : f64} : tensor<4x64xf32> -> tensor<4x64xf32>, tensor<4x1xf32>, tensor<4xf32>
  return
}
