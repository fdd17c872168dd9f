func.func @min_blocks_per_sm_too_many(%x: tensor<?x64xbf16>, %y: tensor<?x64xbf16>) {
  %r = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%y : full tensor<?x64xbf16>) -> tensor<?x64xbf16> attributes {norm.min_blocks_per_sm = 33 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}
