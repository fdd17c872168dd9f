func.func @rms_bwd_one_row(%dy: tensor<1x4096xbf16>, %x: tensor<1x4096xbf16>, %rstd: tensor<1xf32>,
                           %w: tensor<4096xbf16>) -> (tensor<1x4096xbf16>, tensor<4096xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<4096xbf16>)
      : tensor<1x4096xbf16>, tensor<1x4096xbf16>, tensor<1xf32> -> tensor<1x4096xbf16>, tensor<4096xbf16>
  return %dx, %dw : tensor<1x4096xbf16>, tensor<4096xbf16>
}
