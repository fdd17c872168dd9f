func.func @predicated_loads(%a: i64, %inside: i1, %o: memref<?xi32>, %lb: index, %ub: index) {
  %c1 = arith.constant 1 : index
  scf.for %i = %lb to %ub step %c1 {
    %off = arith.index_castui %i : index to i64
    %addr = arith.addi %a, %off : i64
    %v = nvvm.inline_ptx "{ mov.b32 $0, 0; @$2 ld.global.b32 $0, [$1]; }" ro(%addr, %inside : i64, i1) {norm.predicate_operand = 1 : i64, norm.prefetch} -> i32
    memref.store %v, %o[%i] : memref<?xi32>
  } {norm.row_loop}
  return
}
