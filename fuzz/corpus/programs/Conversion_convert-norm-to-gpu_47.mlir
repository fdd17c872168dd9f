func.func @rows_below_prefetch(%x: memref<?x65536xbf16>, %y: memref<?x65536xbf16>) {
  norm.fused ins(%x : full memref<?x65536xbf16>) outs(%y : full memref<?x65536xbf16>) attributes {norm.stream_rows, norm.rows_below = 96 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%x : full memref<?x65536xbf16>) outs(%y : full memref<?x65536xbf16>) attributes {norm.stream_rows, norm.rows_below = 97 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
