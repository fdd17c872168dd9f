func.func @fused_col_yield(%x: tensor<4x64xbf16>, %o: tensor<64xbf16>) {
  %s = norm.fused ins(%x : full tensor<4x64xbf16>) outs(%o : col tensor<64xbf16>) -> tensor<64xbf16> {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  return
}
