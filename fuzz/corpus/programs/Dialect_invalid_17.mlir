func.func @extra_db(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  %dx, %db = norm.layer_norm_grad %dy, %x, %m, %r : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32>, tensor<4xf32> -> tensor<4x64xbf16> db tensor<64xbf16>
  return
}
