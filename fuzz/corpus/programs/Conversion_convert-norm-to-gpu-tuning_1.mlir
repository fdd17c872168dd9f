func.func @streamed_by_table(%x: memref<?x12288xbf16>, %y: memref<?x12288xbf16>) {
  norm.fused ins(%x : full memref<?x12288xbf16>) outs(%y : full memref<?x12288xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
