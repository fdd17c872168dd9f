func.func @staged_rows(%stats: memref<?xf32>, %staged: memref<8xf32>, %o: memref<?x8xf32>, %lb: index, %ub: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  scf.for %i = %lb to %ub step %c1 {
    %s = memref.load %stats[%i] {norm.prefetch} : memref<?xf32>
    %v = memref.load %staged[%c0] : memref<8xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %o[%i, %c0] : memref<?x8xf32>
  } {norm.row_loop, norm.predicate_epilogue}
  return
}
