func.func @weight_rank(%x: tensor<4x64xbf16>, %w: tensor<1x64xbf16>) {
  %y, %r = norm.rms_norm %x weight(%w : tensor<1x64xbf16>) {epsilon = 1.0e-6 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<4xf32>
  return
}
