func.func @rows_multiple_static_rows(%x: tensor<18x64xbf16>, %y: tensor<18x64xbf16>) {
  %r = norm.fused ins(%x : full tensor<18x64xbf16>) outs(%y : full tensor<18x64xbf16>) -> tensor<18x64xbf16> attributes {norm.rows_multiple = 4 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}
