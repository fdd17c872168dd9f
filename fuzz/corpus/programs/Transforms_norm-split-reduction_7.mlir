func.func @held_rows_cluster_wave(%dy: tensor<?x12288xbf16>, %x: tensor<?x12288xbf16>, %r: tensor<?xf32>, %w: tensor<12288xbf16>) -> (tensor<?x12288xbf16>, tensor<12288xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<12288xbf16>)
      : tensor<?x12288xbf16>, tensor<?x12288xbf16>, tensor<?xf32> -> tensor<?x12288xbf16>, tensor<12288xbf16>
  return %dx, %dw : tensor<?x12288xbf16>, tensor<12288xbf16>
}
