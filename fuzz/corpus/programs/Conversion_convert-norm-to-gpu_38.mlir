func.func @warp_rows_uneven(%x: memref<?x1024xbf16>, %y: memref<?x1024xbf16>) {
  norm.fused ins(%x : full memref<?x1024xbf16>) outs(%y : full memref<?x1024xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 6 : i64, norm.warp_rows} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
