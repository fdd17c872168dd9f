func.func @stats_shape(%x: tensor<4x64xbf16>) {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<5xf32>
  return
}
