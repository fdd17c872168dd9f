func.func @rsqrt_forms(%x: memref<?x5120xbf16>, %y: memref<?x5120xbf16>) {
  %inv = arith.constant 1.95312500e-04 : f32
  norm.fused ins(%x : full memref<?x5120xbf16>) outs(%y : full memref<?x5120xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %mean = arith.mulf %s, %inv : f32
    %dev = arith.subf %af, %mean : f32
    %sq = arith.mulf %dev, %dev : f32
    %v = norm.row_reduce <add> %sq : f32
    %var = arith.mulf %v, %inv : f32
    %eps = arith.constant 1.0e-05 : f32
    %e = arith.addf %var, %eps : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %dev, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%x : full memref<?x5120xbf16>) outs(%y : full memref<?x5120xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %eps = arith.constant 0.0 : f32
    %e = arith.addf %s, %eps : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %af, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%x : full memref<?x5120xbf16>) outs(%y : full memref<?x5120xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %eps = arith.constant 1.0e-40 : f32
    %e = arith.addf %eps, %s : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %af, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%x : full memref<?x5120xbf16>) outs(%y : full memref<?x5120xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %eps = arith.constant 1.0e-05 : f32
    %e = arith.addf %s, %eps : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %af, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
