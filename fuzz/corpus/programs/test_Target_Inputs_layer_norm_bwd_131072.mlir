func.func @ln_bwd(%dy: tensor<?x131072xbf16>, %x: tensor<?x131072xbf16>, %mean: tensor<?xf32>, %rstd: tensor<?xf32>, %w: tensor<131072xbf16>) -> (tensor<?x131072xbf16>, tensor<131072xbf16>, tensor<131072xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<131072xbf16>) {has_bias} : tensor<?x131072xbf16>, tensor<?x131072xbf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x131072xbf16> dw tensor<131072xbf16> db tensor<131072xbf16>
  return %dx, %dw, %db : tensor<?x131072xbf16>, tensor<131072xbf16>, tensor<131072xbf16>
}
