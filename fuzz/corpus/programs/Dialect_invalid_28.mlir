func.func @map_result_shape(%x: tensor<4x64xbf16>) {
  %s = norm.map <full> ins(%x : full tensor<4x64xbf16>) -> tensor<4x32xbf16> {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  return
}
