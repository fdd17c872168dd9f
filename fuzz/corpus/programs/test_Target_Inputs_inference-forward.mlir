func.func @ln_infer(%x: tensor<?x1024xbf16>, %w: tensor<1024xbf16>, %b: tensor<1024xbf16>) -> tensor<?x1024xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1024xbf16>) bias(%b : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64} : tensor<?x1024xbf16> -> tensor<?x1024xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x1024xbf16>
}
