func.func @layer_norm_moments(%x: memref<?x32768xbf16>, %y: memref<?x32768xbf16>) {
  norm.fused ins(%x : full memref<?x32768xbf16>) outs(%y : full memref<?x32768xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %inv = arith.constant 3.05175781E-5 : f32
    %mean = arith.mulf %s, %inv : f32
    %af2 = arith.extf %a : bf16 to f32
    %dev = arith.subf %af2, %mean : f32
    %sq = arith.mulf %dev, %dev : f32
    %v = norm.row_reduce <add> %sq : f32
    %var = arith.mulf %v, %inv : f32
    %eps = arith.constant 1.0e-06 : f32
    %e = arith.addf %var, %eps : f32
    %rs = math.rsqrt %e : f32
    %n = arith.mulf %dev, %rs : f32
    %t = arith.truncf %n : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
