func.func @warp_rows_one_warp(%x: memref<?x768xbf16>, %w: memref<768xbf16>, %b: memref<768xbf16>, %y: memref<?x768xbf16>) {
  norm.fused ins(%x : full memref<?x768xbf16>, %w : col memref<768xbf16>, %b : col memref<768xbf16>) outs(%y : full memref<?x768xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 1 : i64, norm.warp_rows} {
  ^bb0(%a: bf16, %c: bf16, %d: bf16):
    %af = arith.extf %a : bf16 to f32
    %cf = arith.extf %c : bf16 to f32
    %df = arith.extf %d : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %m = arith.mulf %af, %s : f32
    %e = arith.mulf %m, %cf : f32
    %f = arith.addf %e, %df : f32
    %t = arith.truncf %f : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
