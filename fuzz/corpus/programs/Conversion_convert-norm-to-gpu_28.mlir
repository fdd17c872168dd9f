func.func @row_a_block_columns_late(%x: memref<?x1000xbf16>, %w: memref<1000xbf16>, %bias: memref<1000xbf16>, %y: memref<?x1000xbf16>) {
  norm.fused ins(%x : full memref<?x1000xbf16>, %w : col memref<1000xbf16>, %bias : col memref<1000xbf16>) outs(%y : full memref<?x1000xbf16>) attributes {norm.stream_rows} {
  ^bb0(%a: bf16, %wv: bf16, %bv: bf16):
    %af = arith.extf %a : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %bf = arith.extf %bv : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %wf : f32
    %f = arith.addf %e, %bf : f32
    %t = arith.truncf %f : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
