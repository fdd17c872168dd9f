func.func @independent_sums(%x: memref<?x4096xf32>, %y: memref<?x4096xf32>, %z: memref<?x4096xf32>) {
  norm.fused ins(%x : full memref<?x4096xf32>) outs(%y : full memref<?x4096xf32>) {
  ^bb0(%a: f32):
    %sq = arith.mulf %a, %a : f32
    %s1 = norm.row_reduce <add> %a : f32
    %s2 = norm.row_reduce <add> %sq : f32
    %t = arith.mulf %s1, %s2 : f32
    %d = arith.mulf %a, %t : f32
    norm.yield %d : f32
  }
  norm.fused ins(%x : full memref<?x4096xf32>) outs(%z : full memref<?x4096xf32>) {
  ^bb0(%a: f32):
    %s1 = norm.row_reduce <add> %a : f32
    %c = arith.subf %a, %s1 : f32
    %sq = arith.mulf %c, %c : f32
    %s2 = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %c, %s2 : f32
    norm.yield %d : f32
  }
  return
}
