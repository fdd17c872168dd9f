func.func @missing_db(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  %dx = norm.layer_norm_grad %dy, %x, %m, %r {has_bias} : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32>, tensor<4xf32> -> tensor<4x64xbf16>
  return
}
