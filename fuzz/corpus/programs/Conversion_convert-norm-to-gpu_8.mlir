func.func @not_the_mean(%x: memref<?x32768xbf16>, %y: memref<?x32768xbf16>) {
  norm.fused ins(%x : full memref<?x32768xbf16>) outs(%y : full memref<?x32768xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %half = arith.constant 0.5 : f32
    %c = arith.mulf %s, %half : f32
    %dev = arith.subf %af, %c : f32
    %sq = arith.mulf %dev, %dev : f32
    %v = norm.row_reduce <add> %sq : f32
    %e = arith.addf %v, %half : f32
    %rs = math.rsqrt %e : f32
    %n = arith.mulf %dev, %rs : f32
    %t = arith.truncf %n : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
