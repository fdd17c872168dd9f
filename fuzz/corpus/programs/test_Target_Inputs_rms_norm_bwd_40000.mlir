func.func @rms_norm_bwd(%dy: tensor<?x40000xbf16>, %x: tensor<?x40000xbf16>,
                        %rstd: tensor<?xf32>, %w: tensor<40000xbf16>)
    -> (tensor<?x40000xbf16>, tensor<40000xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<40000xbf16>)
      : tensor<?x40000xbf16>, tensor<?x40000xbf16>, tensor<?xf32>
      -> tensor<?x40000xbf16>, tensor<40000xbf16>
  return %dx, %dw : tensor<?x40000xbf16>, tensor<40000xbf16>
}
