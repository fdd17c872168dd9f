func.func @fused(%x: memref<?x8xf32>, %y: memref<?x8xf32>, %p: memref<?x8xf32>) {
  norm.fused ins(%x : full memref<?x8xf32>) outs(%y : full memref<?x8xf32>, %p : col memref<?x8xf32>) attributes {rows_per_partial = 4 : i64} {
  ^bb0(%e: f32):
    %s = norm.row_reduce <add> %e : f32
    %m = arith.mulf %e, %s : f32
    norm.yield %m, %e : f32, f32
  }
  return
}
