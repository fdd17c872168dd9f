func.func @rows(%m: memref<?x8xf32>, %o: memref<?x8xf32>, %lb: index, %ub: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  scf.for %i = %lb to %ub step %c1 {
    %v = memref.load %m[%i, %c0] {norm.prefetch} : memref<?x8xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %o[%i, %c0] : memref<?x8xf32>
  } {norm.row_loop}
  return
}
