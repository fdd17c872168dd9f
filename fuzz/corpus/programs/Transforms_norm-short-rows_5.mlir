func.func @columns_need_rows(%x: tensor<?x1024xbf16>, %y: tensor<?x1024xbf16>, %dw: tensor<1024xbf16>)
    -> (tensor<?x1024xbf16>, tensor<1024xbf16>) {
  %r:2 = norm.fused ins(%x : full tensor<?x1024xbf16>) outs(%y : full tensor<?x1024xbf16>, %dw : col tensor<1024xbf16>)
      -> tensor<?x1024xbf16>, tensor<1024xbf16> {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %v = arith.mulf %af, %s : f32
    %t = arith.truncf %v : f32 to bf16
    norm.yield %t, %v : bf16, f32
  }
  return %r#0, %r#1 : tensor<?x1024xbf16>, tensor<1024xbf16>
}
