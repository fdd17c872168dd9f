func.func @needs_split(%x: memref<?x64xf32>, %dw: memref<64xf32>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%dw : col memref<64xf32>) {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return
}
