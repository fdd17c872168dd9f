func.func @kernel_partials_past_2_40_bytes(%x: memref<?x549755813888xbf16>, %p: memref<?x549755813888xf32>) {
  norm.fused ins(%x : full memref<?x549755813888xbf16>) outs(%p : col memref<?x549755813888xf32>) attributes {rows_per_partial = 64 : i64} {
  ^bb0(%a: bf16):
    %f = arith.extf %a : bf16 to f32
    norm.yield %f : f32
  }
  return
}
