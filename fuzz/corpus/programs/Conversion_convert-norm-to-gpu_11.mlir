func.func @guarded(%x: memref<?x1000xbf16>, %y: memref<?x1000xbf16>) {
  norm.fused ins(%x : full memref<?x1000xbf16>) outs(%y : full memref<?x1000xbf16>) {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}
