func.func @staged_forward(%x: memref<?x4096xbf16>, %y: memref<?x4096xbf16>, %r: memref<?xf32>) {
  norm.fused ins(%x : full memref<?x4096xbf16>) outs(%y : full memref<?x4096xbf16>, %r : row memref<?xf32>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %s : bf16, f32
  }
  return
}
