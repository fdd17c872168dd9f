func.func @combines_apart(%pw: memref<?x1024xf32>, %dw: memref<1024xf32>, %pb: memref<?x1024xf32>, %db: memref<1024xf32>) {
  norm.combine ins(%pw : memref<?x1024xf32>) outs(%dw : memref<1024xf32>)
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %dw[%c0] : memref<1024xf32>
  norm.combine ins(%pb : memref<?x1024xf32>) outs(%db : memref<1024xf32>)
  return
}
