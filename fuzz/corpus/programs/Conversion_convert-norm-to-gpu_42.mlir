func.func @warp_rows_not_held(%x: memref<?x4096xf32>, %y: memref<?x4096xf32>) {
  norm.fused ins(%x : full memref<?x4096xf32>) outs(%y : full memref<?x4096xf32>) attributes {norm.stream_rows, norm.warp_rows} {
  ^bb0(%a: f32):
    %s = norm.row_reduce <add> %a : f32
    %d = arith.mulf %a, %s : f32
    norm.yield %d : f32
  }
  return
}
