func.func @dynamic_n(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  norm.fused ins(%x : full memref<?x?xf32>) outs(%y : full memref<?x?xf32>) {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return
}
