func.func @fused_floor_without_fill(%x: tensor<10x64xbf16>, %p: tensor<2x64xf32>) {
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<2x64xf32>) -> tensor<2x64xf32> attributes {rows_per_partial = 8 : i64, min_rows_per_partial = 4 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}
