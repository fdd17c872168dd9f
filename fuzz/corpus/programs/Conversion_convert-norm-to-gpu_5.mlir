func.func @long_forward_rows(%x: memref<?x32768xbf16>, %y: memref<?x32768xbf16>, %r: memref<?xf32>) {
  norm.fused ins(%x : full memref<?x32768xbf16>) outs(%y : full memref<?x32768xbf16>, %r : row memref<?xf32>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %eps = arith.constant 1.0e-06 : f32
    %e = arith.addf %s, %eps : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %af, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %rs : bf16, f32
  }
  return
}
