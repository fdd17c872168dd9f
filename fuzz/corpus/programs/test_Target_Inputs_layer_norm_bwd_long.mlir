func.func @ln_bwd(%dy: tensor<?x65536xbf16>, %x: tensor<?x65536xbf16>, %mean: tensor<?xf32>, %rstd: tensor<?xf32>, %w: tensor<65536xbf16>) -> (tensor<?x65536xbf16>, tensor<65536xbf16>, tensor<65536xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<65536xbf16>) {has_bias} : tensor<?x65536xbf16>, tensor<?x65536xbf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x65536xbf16> dw tensor<65536xbf16> db tensor<65536xbf16>
  return %dx, %dw, %db : tensor<?x65536xbf16>, tensor<65536xbf16>, tensor<65536xbf16>
}
