func.func @ln_bwd(%dy: tensor<?x?xf16>, %x: tensor<?x?xf16>, %m: tensor<?xf32>, %r: tensor<?xf32>, %w: tensor<?xf16>) -> (tensor<?x?xf16>, tensor<?xf16>, tensor<?xf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %m, %r weight(%w : tensor<?xf16>) {has_bias}
      : tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x?xf16> dw tensor<?xf16> db tensor<?xf16>
  return %dx, %dw, %db : tensor<?x?xf16>, tensor<?xf16>, tensor<?xf16>
}
