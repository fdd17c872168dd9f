func.func @held_whole_blocks(%x: memref<?x256xbf16>, %w: memref<256xbf16>, %y: memref<?x256xbf16>) {
  norm.fused ins(%x : full memref<?x256xbf16>, %w : col memref<256xbf16>) outs(%y : full memref<?x256xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64, norm.rows_multiple = 4 : i64} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %bf : f32
    %t = arith.truncf %e : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
