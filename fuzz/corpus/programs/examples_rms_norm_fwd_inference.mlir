func.func @rms_fwd_inference(%x: tensor<?x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 9.99999999999999955e-07 : f64} : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>
  return %y : tensor<?x4096xbf16>
}
