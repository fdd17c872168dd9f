func.func @held_whole_blocks_branch(%x: memref<?x256xbf16>, %w: memref<256xbf16>, %b: memref<256xbf16>, %y: memref<?x256xbf16>) {
  norm.fused ins(%x : full memref<?x256xbf16>, %w : col memref<256xbf16>, %b : col memref<256xbf16>) outs(%y : full memref<?x256xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64, norm.whole_blocks_branch} {
  ^bb0(%a: bf16, %c: bf16, %d: bf16):
    %af = arith.extf %a : bf16 to f32
    %cf = arith.extf %c : bf16 to f32
    %df = arith.extf %d : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %e = arith.mulf %af, %s : f32
    %f = arith.mulf %e, %cf : f32
    %g = arith.addf %f, %df : f32
    %t = arith.truncf %g : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
