func.func @vector_width_not_dividing(%x: tensor<?x100xbf16>, %y: tensor<?x100xbf16>) {
  %r = norm.fused ins(%x : full tensor<?x100xbf16>) outs(%y : full tensor<?x100xbf16>) -> tensor<?x100xbf16> attributes {norm.vector_width = 8 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}
