func.func @fused_fill_without_split(%x: tensor<10x64xbf16>, %p: tensor<64xf32>) {
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<64xf32>) -> tensor<64xf32> attributes {min_partials = 8 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}
