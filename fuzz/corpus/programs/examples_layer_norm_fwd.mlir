func.func @ln_fwd(%x: tensor<?x4096xbf16>, %w: tensor<4096xbf16>, %b: tensor<4096xbf16>) -> (tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>) {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<4096xbf16>) bias(%b : tensor<4096xbf16>) {epsilon = 9.99999999999999955e-07 : f64} : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y, %mean, %rstd : tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>
}
