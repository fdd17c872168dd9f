func.func @kernel_rows_past_2_40_bytes(%x: memref<?x9223372036854775807xbf16>, %y: memref<?x9223372036854775807xbf16>) {
  norm.fused ins(%x : full memref<?x9223372036854775807xbf16>) outs(%y : full memref<?x9223372036854775807xbf16>) {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}
