func.func @vector_width_not_streamed(%x: memref<?x384xbf16>, %y: memref<?x384xbf16>) {
  norm.fused ins(%x : full memref<?x384xbf16>) outs(%y : full memref<?x384xbf16>) attributes {norm.stream_rows, norm.vector_width = 4 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %m = arith.mulf %af, %af : f32
    %t = arith.truncf %m : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
