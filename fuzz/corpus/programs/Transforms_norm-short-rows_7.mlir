func.func @ln_fwd_stats(%x: tensor<?x4096xbf16>, %w: tensor<4096xbf16>) -> (tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>) {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y, %mean, %rstd : tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>
}
func.func @rms_fwd_1536(%x: tensor<?x1536xbf16>, %w: tensor<1536xbf16>) -> tensor<?x1536xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1536xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x1536xbf16> -> tensor<?x1536xbf16>, tensor<?xf32>
  return %y : tensor<?x1536xbf16>
}
