func.func @rows_per_block_with_split(%x: tensor<16x64xbf16>, %p: tensor<2x64xf32>) {
  %r = norm.fused ins(%x : full tensor<16x64xbf16>) outs(%p : col tensor<2x64xf32>) -> tensor<2x64xf32> attributes {rows_per_partial = 8 : i64, norm.rows_per_block = 4 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    norm.yield %af : f32
  }
  return
}
