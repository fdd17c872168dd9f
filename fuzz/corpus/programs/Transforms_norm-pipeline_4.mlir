func.func @bad_predicate_operand(%a: i64, %o: memref<?xi32>, %lb: index, %ub: index) {
  %c1 = arith.constant 1 : index
  scf.for %i = %lb to %ub step %c1 {
    %v = nvvm.inline_ptx "ld.global.b32 $0, [$1];" ro(%a : i64) {norm.predicate_operand = 0 : i64, norm.prefetch} -> i32
    memref.store %v, %o[%i] : memref<?xi32>
  } {norm.row_loop}
  return
}
