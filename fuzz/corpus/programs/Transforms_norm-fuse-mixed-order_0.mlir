func.func @rms_bwd(%dy: tensor<?x64xbf16>, %x: tensor<?x64xbf16>, %r: tensor<?xf32>, %w: tensor<64xf32>) -> (tensor<?x64xbf16>, tensor<64xf32>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<64xf32>)
      : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?xf32> -> tensor<?x64xbf16>, tensor<64xf32>
  return %dx, %dw : tensor<?x64xbf16>, tensor<64xf32>
}
