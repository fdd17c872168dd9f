// RMSNorm backward at N = 131072: 8 blocks of 512 threads re-reading staged slices, or 16 keeping the row in registers.
func.func @rms_bwd(%dy: tensor<?x131072xbf16>, %x: tensor<?x131072xbf16>, %rstd: tensor<?xf32>, %w: tensor<131072xbf16>) -> (tensor<?x131072xbf16>, tensor<131072xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<131072xbf16>) : tensor<?x131072xbf16>, tensor<?x131072xbf16>, tensor<?xf32> -> tensor<?x131072xbf16>, tensor<131072xbf16>
  return %dx, %dw : tensor<?x131072xbf16>, tensor<131072xbf16>
}
