func.func @rms_fwd(%x: tensor<?x2048xbf16>, %w: tensor<2048xbf16>) -> (tensor<?x2048xbf16>, tensor<?xf32>) {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<2048xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x2048xbf16> -> tensor<?x2048xbf16>, tensor<?xf32>
  return %y, %rstd : tensor<?x2048xbf16>, tensor<?xf32>
}
func.func @rms_fwd_5120(%x: tensor<?x5120xbf16>, %w: tensor<5120xbf16>) -> (tensor<?x5120xbf16>, tensor<?xf32>) {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<5120xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x5120xbf16> -> tensor<?x5120xbf16>, tensor<?xf32>
  return %y, %rstd : tensor<?x5120xbf16>, tensor<?xf32>
}
