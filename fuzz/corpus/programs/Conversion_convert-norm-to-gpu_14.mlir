func.func @strided(%x: memref<?x64xf32, strided<[?, 1], offset: ?>>, %y: memref<?x64xf32>) {
  norm.fused ins(%x : full memref<?x64xf32, strided<[?, 1], offset: ?>>) outs(%y : full memref<?x64xf32>) {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return
}
