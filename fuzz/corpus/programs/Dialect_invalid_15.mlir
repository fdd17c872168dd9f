func.func @dw_type(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %r: tensor<4xf32>, %w: tensor<64xf32>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<64xf32>) : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32> -> tensor<4x64xbf16>, tensor<64xbf16>
  return
}
