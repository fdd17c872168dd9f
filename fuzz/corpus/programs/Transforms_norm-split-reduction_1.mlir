func.func @small_m(%dy: tensor<5x64xf32>, %x: tensor<5x64xf32>, %r: tensor<5xf32>, %w: tensor<64xf32>) -> tensor<64xf32> {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<64xf32>)
      : tensor<5x64xf32>, tensor<5x64xf32>, tensor<5xf32> -> tensor<5x64xf32>, tensor<64xf32>
  return %dw : tensor<64xf32>
}
