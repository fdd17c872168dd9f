func.func @rms_norm_bwd(%dy: tensor<?x4096xbf16>, %x: tensor<?x4096xbf16>,
                        %rstd: tensor<?xf32>, %w: tensor<4096xbf16>)
    -> (tensor<?x4096xbf16>, tensor<4096xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<4096xbf16>)
      : tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?xf32>
      -> tensor<?x4096xbf16>, tensor<4096xbf16>
  return %dx, %dw : tensor<?x4096xbf16>, tensor<4096xbf16>
}
