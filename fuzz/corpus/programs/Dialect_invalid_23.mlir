func.func @reduce_yield_type(%x: tensor<4x64xbf16>) {
  %s = norm.reduce <row> <add> ins(%x : full tensor<4x64xbf16>) -> tensor<4xf32> {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  return
}
