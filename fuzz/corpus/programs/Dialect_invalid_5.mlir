func.func @weight_length(%x: tensor<4x64xbf16>, %w: tensor<32xbf16>) {
  %y, %r = norm.rms_norm %x weight(%w : tensor<32xbf16>) {epsilon = 1.0e-6 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<4xf32>
  return
}
