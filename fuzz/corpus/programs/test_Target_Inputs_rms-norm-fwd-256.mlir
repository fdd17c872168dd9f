func.func @rms_fwd(%x: tensor<?x256xbf16>, %w: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<256xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x256xbf16> -> tensor<?x256xbf16>, tensor<?xf32>
  return %y : tensor<?x256xbf16>
}
