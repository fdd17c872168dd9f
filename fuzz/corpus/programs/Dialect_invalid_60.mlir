func.func @vector_width_too_wide(%x: tensor<?x384xbf16>, %y: tensor<?x384xbf16>) {
  %r = norm.fused ins(%x : full tensor<?x384xbf16>) outs(%y : full tensor<?x384xbf16>) -> tensor<?x384xbf16> attributes {norm.vector_width = 16 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}
