// RUN: norm-opt %s --norm-pipeline --split-input-file --verify-diagnostics | FileCheck %s
// RUN: norm-opt %s --norm-pipeline="num-stages=1" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=OFF
// RUN: not norm-opt %s --norm-pipeline="num-stages=9" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: norm-pipeline: num-stages must be 1 to 4, got 9

// Two stages: the prologue loads the first row (predicated: the trip count
// is dynamic), the steady state loads row i+1 while computing row i, the
// epilogue computes the last row; only ops that touch memory are predicated
// there, the arithmetic runs unguarded.
// CHECK-LABEL: func @rows
// CHECK-SAME: (%[[IN:.+]]: memref<?x8xf32>, %[[OUT:.+]]: memref<?x8xf32>, %[[LB:.+]]: index, %[[UB:.+]]: index)
// CHECK: %[[FIRST:.+]] = scf.if %{{.+}} -> (f32) {
// CHECK:   memref.load %[[IN]]
// CHECK: } else {
// CHECK:   ub.poison
// CHECK: %[[STEADY:.+]] = scf.for %[[I:.+]] = %[[LB]] to %{{.+}} step %{{.+}} iter_args(%[[CUR:.+]] = %[[FIRST]]) -> (f32) {
// CHECK:   %[[NEXTI:.+]] = arith.addi %[[I]], %{{.+}}
// CHECK:   %[[NEXT:.+]] = memref.load %[[IN]][%[[NEXTI]], %{{.+}}] {norm.prefetch}
// CHECK:   arith.addf %[[CUR]], %[[CUR]]
// CHECK:   memref.store
// CHECK:   scf.yield %[[NEXT]]
// CHECK: }
// CHECK-NOT: scf.if
// CHECK: %[[LAST:.+]] = arith.addf %[[STEADY]], %[[STEADY]]
// CHECK: scf.if
// CHECK-NEXT:   memref.store %[[LAST]], %[[OUT]]
// OFF-LABEL: func @rows
// OFF: scf.for
// OFF-NOT: scf.if
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

// -----

// A persistent kernel's row (b + k * G) is computed in the loop, and a
// guarded load (a ragged last column slice) uses it inside its scf.if: the
// row's computation goes to stage 0 with the load, so the next row's load
// is in flight while this row is computed.
// CHECK-LABEL: func @strided_guarded_rows
// OFF-LABEL: func @strided_guarded_rows
// CHECK: scf.for %[[K:[^ ]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[CUR:[^ ]+]] = %{{[^,]+}}, %[[CURROW:[^ ]+]] = %{{.+}}) -> (f32, index) {
// CHECK:   %[[NEXTK:.+]] = arith.addi %[[K]], %{{.+}}
// CHECK:   %[[STRIDE:.+]] = arith.muli %[[NEXTK]], %{{.+}}
// CHECK:   %[[ROW:.+]] = arith.addi %{{.+}}, %[[STRIDE]]
// CHECK:   %[[NEXT:.+]] = scf.if %{{.+}} -> (f32) {
// CHECK:     memref.load %{{.+}}[%[[ROW]], %{{.+}}]
// CHECK:   arith.addf %[[CUR]], %[[CUR]]
// CHECK:   memref.store %{{.+}}[%[[CURROW]],
// CHECK:   scf.yield %[[NEXT]], %[[ROW]]
func.func @strided_guarded_rows(%m: memref<?x8xf32>, %o: memref<?x8xf32>, %b: index, %g: index, %count: index, %inside: i1) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  scf.for %k = %c0 to %count step %c1 {
    %stride = arith.muli %k, %g : index
    %row = arith.addi %b, %stride : index
    %v = scf.if %inside -> (f32) {
      %l = memref.load %m[%row, %c0] : memref<?x8xf32>
      scf.yield %l : f32
    } else {
      scf.yield %zero : f32
    } {norm.prefetch}
    %w = arith.addf %v, %v : f32
    memref.store %w, %o[%row, %c0] : memref<?x8xf32>
  } {norm.row_loop}
  return
}

// -----

// Rows staged in shared memory (norm.predicate_epilogue): the early loads are
// the row's statistics, and the loop runs every iteration with the next
// row's load guarded instead of peeling the body into an epilogue.
// CHECK-LABEL: func @staged_rows
// CHECK-SAME: (%[[STATS:.+]]: memref<?xf32>, %[[STAGED:.+]]: memref<8xf32>, %[[OUT:.+]]: memref<?x8xf32>, %[[LB:.+]]: index, %[[UB:.+]]: index)
// CHECK: %[[FIRST:.+]] = scf.if %{{.+}} -> (f32) {
// CHECK:   memref.load %[[STATS]]
// CHECK: %[[LOOP:.+]] = scf.for %[[I:.+]] = %[[LB]] to %[[UB]] step %{{.+}} iter_args(%[[CUR:.+]] = %[[FIRST]]) -> (f32) {
// CHECK:   %[[HASNEXT:.+]] = arith.cmpi slt, %[[I]], %{{.+}}
// CHECK:   %[[NEXTI:.+]] = arith.addi %[[I]], %{{.+}}
// CHECK:   %[[NEXT:.+]] = scf.if %[[HASNEXT]] -> (f32) {
// CHECK:     memref.load %[[STATS]][%[[NEXTI]]] {norm.prefetch}
// CHECK:   %[[V:.+]] = memref.load %[[STAGED]]
// CHECK:   %[[W:.+]] = arith.mulf %[[V]], %[[CUR]]
// CHECK:   memref.store %[[W]], %[[OUT]]
// CHECK:   scf.yield %[[NEXT]]
// CHECK: }
// CHECK-NEXT: return
// OFF-LABEL: func @staged_rows
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

// -----

// A load with a predicate operand of its own (norm.predicate_operand, the
// row kernels' predicated ld.global) takes the prologue's predicate ANDed
// into it instead of an scf.if: it stays in one basic block with the loads
// before the loop.
// CHECK-LABEL: func @predicated_loads
// CHECK-SAME: (%[[A:.+]]: i64, %[[INSIDE:.+]]: i1, %[[OUT:.+]]: memref<?xi32>, %[[LB:.+]]: index, %[[UB:.+]]: index)
// CHECK: %[[EXISTS:.+]] = arith.cmpi slt, %{{.+}}, %[[UB]]
// CHECK-NOT: scf.if
// CHECK: %[[BOTH:.+]] = arith.andi %[[EXISTS]], %[[INSIDE]] : i1
// CHECK: %[[FIRST:.+]] = nvvm.inline_ptx "{{.+}}" ro(%{{.+}}, %[[BOTH]] : i64, i1) {norm.predicate_operand = 1 : i64, norm.prefetch} -> i32
// CHECK: scf.for %{{.+}} = %[[LB]] to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[FIRST]]) -> (i32) {
// CHECK:   nvvm.inline_ptx "{{.+}}" ro(%{{.+}}, %[[INSIDE]] : i64, i1) {norm.predicate_operand = 1 : i64, norm.prefetch} -> i32
// OFF-LABEL: func @predicated_loads
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

// -----

func.func @bad_predicate_operand(%a: i64, %o: memref<?xi32>, %lb: index, %ub: index) {
  %c1 = arith.constant 1 : index
  scf.for %i = %lb to %ub step %c1 {
    // expected-error @+1 {{norm.predicate_operand must be the number of an i1 operand, got 0 : i64}}
    %v = nvvm.inline_ptx "ld.global.b32 $0, [$1];" ro(%a : i64) {norm.predicate_operand = 0 : i64, norm.prefetch} -> i32
    memref.store %v, %o[%i] : memref<?xi32>
  } {norm.row_loop}
  return
}

// -----

// A loop's norm.num_stages wins over the option; 1 leaves it alone.
// CHECK-LABEL: func @attribute
// CHECK: scf.for
// CHECK-NOT: ub.poison
func.func @attribute(%m: memref<?x8xf32>, %o: memref<?x8xf32>, %lb: index, %ub: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  scf.for %i = %lb to %ub step %c1 {
    %v = memref.load %m[%i, %c0] {norm.prefetch} : memref<?x8xf32>
    memref.store %v, %o[%i, %c0] : memref<?x8xf32>
  } {norm.row_loop, norm.num_stages = 1 : i64}
  return
}

// -----

func.func @bad_attribute(%m: memref<?x8xf32>, %lb: index, %ub: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{norm.num_stages must be 1 to 4, got 0}}
  scf.for %i = %lb to %ub step %c1 {
    %v = memref.load %m[%i, %c0] {norm.prefetch} : memref<?x8xf32>
    memref.store %v, %m[%i, %c0] : memref<?x8xf32>
  } {norm.row_loop, norm.num_stages = 0 : i64}
  return
}
