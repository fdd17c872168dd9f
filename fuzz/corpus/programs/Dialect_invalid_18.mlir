func.func @ln_grad_missing_dw(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %m: tensor<4xf32>, %r: tensor<4xf32>, %w: tensor<64xbf16>) {
  %dx = norm.layer_norm_grad %dy, %x, %m, %r weight(%w : tensor<64xbf16>) : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32>, tensor<4xf32> -> tensor<4x64xbf16>
  return
}
