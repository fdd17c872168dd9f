func.func @bad_attribute(%m: memref<?x8xf32>, %lb: index, %ub: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  scf.for %i = %lb to %ub step %c1 {
    %v = memref.load %m[%i, %c0] {norm.prefetch} : memref<?x8xf32>
    memref.store %v, %m[%i, %c0] : memref<?x8xf32>
  } {norm.row_loop, norm.num_stages = 0 : i64}
  return
}
