func.func @floor_three_blocks_wave(%dy: tensor<?x16384xbf16>, %x: tensor<?x16384xbf16>, %mean: tensor<?xf32>, %rstd: tensor<?xf32>, %w: tensor<16384xbf16>) -> (tensor<?x16384xbf16>, tensor<16384xbf16>, tensor<16384xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<16384xbf16>) {has_bias} : tensor<?x16384xbf16>, tensor<?x16384xbf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x16384xbf16> dw tensor<16384xbf16> db tensor<16384xbf16>
  return %dx, %dw, %db : tensor<?x16384xbf16>, tensor<16384xbf16>, tensor<16384xbf16>
}

func.func @floor_static_rows(%dy: tensor<192x16384xbf16>, %x: tensor<192x16384xbf16>, %mean: tensor<192xf32>, %rstd: tensor<192xf32>, %w: tensor<16384xbf16>) -> (tensor<192x16384xbf16>, tensor<16384xbf16>, tensor<16384xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<16384xbf16>) {has_bias} : tensor<192x16384xbf16>, tensor<192x16384xbf16>, tensor<192xf32>, tensor<192xf32> -> tensor<192x16384xbf16> dw tensor<16384xbf16> db tensor<16384xbf16>
  return %dx, %dw, %db : tensor<192x16384xbf16>, tensor<16384xbf16>, tensor<16384xbf16>
}
