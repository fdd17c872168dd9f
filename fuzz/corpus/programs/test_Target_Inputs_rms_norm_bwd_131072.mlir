func.func @rms_bwd(%dy: tensor<?x131072xbf16>, %x: tensor<?x131072xbf16>, %rstd: tensor<?xf32>, %w: tensor<131072xbf16>) -> (tensor<?x131072xbf16>, tensor<131072xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<131072xbf16>) : tensor<?x131072xbf16>, tensor<?x131072xbf16>, tensor<?xf32> -> tensor<?x131072xbf16>, tensor<131072xbf16>
  return %dx, %dw : tensor<?x131072xbf16>, tensor<131072xbf16>
}
