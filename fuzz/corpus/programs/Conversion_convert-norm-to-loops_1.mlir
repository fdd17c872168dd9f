func.func @combine(%p: memref<?x8xf32>, %o: memref<8xbf16>) {
  norm.combine ins(%p : memref<?x8xf32>) outs(%o : memref<8xbf16>)
  return
}
