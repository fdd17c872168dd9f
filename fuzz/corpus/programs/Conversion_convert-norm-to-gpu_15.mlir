func.func @unsupported_body(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xf32>) {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    norm.yield %e : f32
  }
  return
}
