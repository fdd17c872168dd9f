func.func @rms_bwd(%dy: tensor<?x256xf32>, %x: tensor<?x256xf32>, %rstd: tensor<?xf32>, %w: tensor<256xf32>) -> (tensor<?x256xf32>, tensor<256xf32>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<256xf32>) {norm.split_size = 16 : i64}
      : tensor<?x256xf32>, tensor<?x256xf32>, tensor<?xf32> -> tensor<?x256xf32>, tensor<256xf32>
  return %dx, %dw : tensor<?x256xf32>, tensor<256xf32>
}
