func.func @y_type(%x: tensor<4x64xbf16>) {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4x64xbf16> -> tensor<4x64xf32>, tensor<4xf32>
  return
}
