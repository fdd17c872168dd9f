func.func @ln_fwd_bias_1000(%x: tensor<?x1000xbf16>, %w: tensor<1000xbf16>, %b: tensor<1000xbf16>) -> tensor<?x1000xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1000xbf16>) bias(%b : tensor<1000xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x1000xbf16> -> tensor<?x1000xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x1000xbf16>
}
func.func @ln_fwd_bias_64_rows(%x: tensor<64x1000xbf16>, %w: tensor<1000xbf16>, %b: tensor<1000xbf16>) -> tensor<64x1000xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1000xbf16>) bias(%b : tensor<1000xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<64x1000xbf16> -> tensor<64x1000xbf16>, tensor<64xf32>, tensor<64xf32>
  return %y : tensor<64x1000xbf16>
}
func.func @ln_fwd_bias_133_rows(%x: tensor<133x1000xbf16>, %w: tensor<1000xbf16>, %b: tensor<1000xbf16>) -> tensor<133x1000xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1000xbf16>) bias(%b : tensor<1000xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<133x1000xbf16> -> tensor<133x1000xbf16>, tensor<133xf32>, tensor<133xf32>
  return %y : tensor<133x1000xbf16>
}
