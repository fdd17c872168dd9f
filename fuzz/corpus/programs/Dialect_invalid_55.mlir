func.func @rows_below_static_rows(%x: tensor<16x64xbf16>, %y: tensor<16x64xbf16>) {
  %r = norm.fused ins(%x : full tensor<16x64xbf16>) outs(%y : full tensor<16x64xbf16>) -> tensor<16x64xbf16> attributes {norm.rows_below = 16 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}
