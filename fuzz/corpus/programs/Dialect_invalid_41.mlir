func.func @fused_cap_shape(%x: tensor<100x64xbf16>, %p: tensor<50x64xf32>) {
  %r = norm.fused ins(%x : full tensor<100x64xbf16>) outs(%p : col tensor<50x64xf32>) -> tensor<50x64xf32> attributes {rows_per_partial = 2 : i64, min_partials = 4 : i64, max_partials = 8 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}
