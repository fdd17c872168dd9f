func.func @rms_bwd_short(%dy: tensor<64x1024xbf16>, %x: tensor<64x1024xbf16>, %rstd: tensor<64xf32>,
                         %w: tensor<1024xbf16>) -> (tensor<64x1024xbf16>, tensor<1024xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<1024xbf16>)
      : tensor<64x1024xbf16>, tensor<64x1024xbf16>, tensor<64xf32> -> tensor<64x1024xbf16>, tensor<1024xbf16>
  return %dx, %dw : tensor<64x1024xbf16>, tensor<1024xbf16>
}
