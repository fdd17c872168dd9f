func.func @ln_bwd(%dy: tensor<128x256xbf16>, %x: tensor<128x256xbf16>, %m: tensor<128xf32>, %r: tensor<128xf32>, %w: tensor<256xbf16>) -> (tensor<128x256xbf16>, tensor<256xbf16>, tensor<256xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %m, %r weight(%w : tensor<256xbf16>) {has_bias}
      : tensor<128x256xbf16>, tensor<128x256xbf16>, tensor<128xf32>, tensor<128xf32> -> tensor<128x256xbf16> dw tensor<256xbf16> db tensor<256xbf16>
  return %dx, %dw, %db : tensor<128x256xbf16>, tensor<256xbf16>, tensor<256xbf16>
}
