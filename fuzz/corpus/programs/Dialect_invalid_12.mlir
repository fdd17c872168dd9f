func.func @dx_mismatch(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %r: tensor<4xf32>) {
  %dx = norm.rms_norm_grad %dy, %x, %r : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32> -> tensor<4x64xf32>
  return
}
