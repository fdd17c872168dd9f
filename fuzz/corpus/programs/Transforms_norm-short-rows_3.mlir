func.func @rms_bwd_long(%dy: tensor<512x1024xbf16>, %x: tensor<512x1024xbf16>, %rstd: tensor<512xf32>,
                        %w: tensor<1024xbf16>) -> (tensor<512x1024xbf16>, tensor<1024xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<1024xbf16>)
      : tensor<512x1024xbf16>, tensor<512x1024xbf16>, tensor<512xf32> -> tensor<512x1024xbf16>, tensor<1024xbf16>
  return %dx, %dw : tensor<512x1024xbf16>, tensor<1024xbf16>
}
