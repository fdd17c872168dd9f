func.func @preload_columns_not_streamed(%x: tensor<10x64xbf16>, %w: tensor<64xbf16>, %y: tensor<10x64xbf16>) {
  %r = norm.fused ins(%x : full tensor<10x64xbf16>, %w : col tensor<64xbf16>) outs(%y : full tensor<10x64xbf16>) -> tensor<10x64xbf16> attributes {norm.preload_columns} {
  ^bb0(%a: bf16, %b: bf16):
    %m = arith.mulf %a, %b : bf16
    norm.yield %m : bf16
  }
  return
}
