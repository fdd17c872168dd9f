func.func @captured_constant_only(%x: memref<?x64xbf16>, %y: memref<?x64xbf16>) {
  %c = arith.constant 2.0 : f32
  norm.fused ins(%x : full memref<?x64xbf16>) outs(%y : full memref<?x64xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %r = math.rsqrt %c : f32
    %s = norm.row_reduce <add> %r : f32
    %m = arith.mulf %af, %s : f32
    %t = arith.truncf %m : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
