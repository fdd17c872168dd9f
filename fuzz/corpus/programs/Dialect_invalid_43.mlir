func.func @fused_mixed_kinds(%x: tensor<4x64xbf16>, %o: memref<4x64xbf16>) {
  norm.fused ins(%x : full tensor<4x64xbf16>) outs(%o : full memref<4x64xbf16>) {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  return
}
