func.func @combine_partials(%p: tensor<4x64xbf16>, %o: tensor<64xbf16>) {
  %r = norm.combine ins(%p : tensor<4x64xbf16>) outs(%o : tensor<64xbf16>) -> tensor<64xbf16>
  return
}
