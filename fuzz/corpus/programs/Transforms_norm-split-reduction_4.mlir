func.func @cluster_rows(%dy: tensor<?x65536xbf16>, %x: tensor<?x65536xbf16>, %r: tensor<?xf32>, %w: tensor<65536xbf16>) -> (tensor<?x65536xbf16>, tensor<65536xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<65536xbf16>)
      : tensor<?x65536xbf16>, tensor<?x65536xbf16>, tensor<?xf32> -> tensor<?x65536xbf16>, tensor<65536xbf16>
  return %dx, %dw : tensor<?x65536xbf16>, tensor<65536xbf16>
}
