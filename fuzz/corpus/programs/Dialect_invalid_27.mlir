func.func @map_row_reads_full(%x: tensor<4x64xbf16>) {
  %s = norm.map <row> ins(%x : full tensor<4x64xbf16>) -> tensor<4xbf16> {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  return
}
