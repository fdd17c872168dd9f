func.func @rms_fwd(%x: tensor<2x?x64xbf16>, %w: tensor<64xbf16>) -> (tensor<2x?x64xbf16>, tensor<2x?xf32>) {
  %y, %r = norm.rms_norm %x weight(%w : tensor<64xbf16>) {epsilon = 1.0e-6 : f64, weight_offset = 1.0 : f64}
      : tensor<2x?x64xbf16> -> tensor<2x?x64xbf16>, tensor<2x?xf32>
  return %y, %r : tensor<2x?x64xbf16>, tensor<2x?xf32>
}
