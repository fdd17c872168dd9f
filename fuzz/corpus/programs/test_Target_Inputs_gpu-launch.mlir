func.func @f(%m: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %m[%tx] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %m[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}
