func.func @fused_floor_past_split(%x: tensor<10x64xbf16>, %p: tensor<1x64xf32>) {
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<1x64xf32>) -> tensor<1x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 4 : i64, min_rows_per_partial = 9 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}
