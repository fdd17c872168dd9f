func.func @combine_columns(%p: tensor<4x64xf32>, %o: tensor<32xbf16>) {
  %r = norm.combine ins(%p : tensor<4x64xf32>) outs(%o : tensor<32xbf16>) -> tensor<32xbf16>
  return
}
