func.func @rms_fwd(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16xf32>) {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<16x64xf32> -> tensor<16x64xf32>, tensor<16xf32>
  return %y, %r : tensor<16x64xf32>, tensor<16xf32>
}
