func.func @epsilon_zero(%x: tensor<4x64xbf16>) {
  %y, %r = norm.rms_norm %x {epsilon = 0.0 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<4xf32>
  return
}
