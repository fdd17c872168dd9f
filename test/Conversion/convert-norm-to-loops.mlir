// RUN: norm-opt %s --convert-norm-to-loops --split-input-file --verify-diagnostics | FileCheck %s

// A fused kernel with a row reduction, a full output and split column
// partials: one loop per row reduction, then a loop storing dx and
// accumulating the partial row i / 4. Sums accumulate in f64 and are
// rounded to f32 once (the row total when the loop ends, the partials when
// every row is in).
// CHECK-LABEL: func @fused
// CHECK-SAME: (%[[X:.+]]: memref<?x8xf32>, %[[Y:.+]]: memref<?x8xf32>, %[[P:.+]]: memref<?x8xf32>)
// CHECK: %[[ACCS:.+]] = memref.alloc(%{{.+}}) : memref<?x8xf64>
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} {
// CHECK:   %[[SUM:.+]] = scf.for %[[J:.+]] = %{{.+}} to %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (f64) {
// CHECK:     %[[E:.+]] = memref.load %[[X]][%[[I]], %[[J]]]
// CHECK:     %[[WIDE:.+]] = arith.extf %[[E]] : f32 to f64
// CHECK:     arith.addf %[[ACC]], %[[WIDE]] : f64
// CHECK:   %[[TOTAL:.+]] = arith.truncf %[[SUM]] : f64 to f32
// CHECK:   %[[PART:.+]] = arith.divui %[[I]], %c4
// CHECK:   scf.for %[[J2:.+]] =
// CHECK:     arith.mulf %{{.+}}, %[[TOTAL]]
// CHECK:     memref.store %{{.+}}, %[[Y]][%[[I]], %[[J2]]]
// CHECK:     %[[OLD:.+]] = memref.load %[[ACCS]][%[[PART]], %[[J2]]]
// CHECK:     arith.addf %[[OLD]]
// CHECK:     memref.store %{{.+}}, %[[ACCS]][%[[PART]], %[[J2]]]
// CHECK: memref.load %[[ACCS]]
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: memref.store %{{.+}}, %[[P]]
// CHECK: memref.dealloc %[[ACCS]]
// CHECK-NOT: norm.
func.func @fused(%x: memref<?x8xf32>, %y: memref<?x8xf32>, %p: memref<?x8xf32>) {
  norm.fused ins(%x : full memref<?x8xf32>) outs(%y : full memref<?x8xf32>, %p : col memref<?x8xf32>) attributes {rows_per_partial = 4 : i64} {
  ^bb0(%e: f32):
    %s = norm.row_reduce <add> %e : f32
    %m = arith.mulf %e, %s : f32
    norm.yield %m, %e : f32, f32
  }
  return
}

// -----

// The finishing reduction sums the partial rows in order and rounds once.
// CHECK-LABEL: func @combine
// CHECK: scf.for %[[J:.+]] =
// CHECK:   %[[SUM:.+]] = scf.for %[[P:.+]] = {{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (f64)
// CHECK:     memref.load %{{.+}}[%[[P]], %[[J]]]
// CHECK:   %[[S:.+]] = arith.truncf %[[SUM]] : f64 to f32
// CHECK:   %[[R:.+]] = arith.truncf %[[S]] : f32 to bf16
// CHECK:   memref.store %[[R]], %{{.+}}[%[[J]]]
func.func @combine(%p: memref<?x8xf32>, %o: memref<8xbf16>) {
  norm.combine ins(%p : memref<?x8xf32>) outs(%o : memref<8xbf16>)
  return
}

// -----

func.func @not_bufferized(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{must be bufferized before convert-norm-to-loops}}
  %r = norm.fused ins(%x : full tensor<4x8xf32>) outs(%o : full tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return %r : tensor<4x8xf32>
}

// -----

func.func @not_decomposed(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{must be decomposed and fused into norm.fused before convert-norm-to-loops}}
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>
  return %y : tensor<4x8xf32>
}

// -----

// FP8 outputs: only f32 -> f8E4M3FN rounds (norm-expand-float8 lowers it).
func.func @fp8_from_f16(%x: memref<?x64xf32>, %y: memref<?x64xf8E4M3FN>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xf8E4M3FN>) {
  ^bb0(%a: f32):
    %h = arith.truncf %a : f32 to f16
    // expected-error @+1 {{rounds to f8E4M3FN from a type other than f32}}
    %t = arith.truncf %h : f16 to f8E4M3FN
    norm.yield %t : f8E4M3FN
  }
  return
}

// -----

// A row reduction of values that read a group reduction walks the row a
// group at a time: the group's sum, then the group's part of the row's
// maximum, combined across the groups.
// CHECK-LABEL: func @row_of_groups
// CHECK-SAME: (%[[X:.*]]: memref<?x256xf32>, %[[V:.*]]: memref<?xf32>)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}}
// CHECK: %[[NG:.*]] = arith.divui %{{.*}}, %c128
// CHECK: %[[R:.*]] = scf.for %[[GI:.*]] = %{{.*}} to %[[NG]] {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[B:.*]] = arith.muli %[[GI]], %c128
// CHECK: %[[E:.*]] = arith.addi %[[B]], %c128
// CHECK: %[[S64:.*]] = scf.for %{{.*}} = %[[B]] to %[[E]] {{.*}} -> (f64)
// CHECK: %[[S:.*]] = arith.truncf %[[S64]] : f64 to f32
// CHECK: %[[P:.*]] = scf.for %{{.*}} = %[[B]] to %[[E]] {{.*}} -> (f32)
// CHECK: arith.subf %{{.*}}, %[[S]] : f32
// CHECK: arith.maximumf
// CHECK: %[[M:.*]] = arith.maximumf %[[ACC]], %[[P]] : f32
// CHECK: scf.yield %[[M]] : f32
// CHECK: memref.store %[[R]], %[[V]][%[[I]]]
func.func @row_of_groups(%x: memref<?x256xf32>, %v: memref<?xf32>) {
  norm.fused ins(%x : full memref<?x256xf32>) outs(%v : row memref<?xf32>) attributes {group_size = 128 : i64} {
  ^bb0(%a: f32):
    %s = norm.group_reduce <add> %a : f32
    %d = arith.subf %a, %s : f32
    %r = norm.row_reduce <max> %d : f32
    norm.yield %r : f32
  }
  return
}

// -----

// Groups of 128: per row, a loop over the N / 128 groups; in each, one loop
// over the group's columns per norm.group_reduce, the group output stored
// at (i, g), then the group's elements (a group input read at (i, j / 128)).
// CHECK-LABEL: func @groups
// CHECK-SAME: (%[[X:.*]]: memref<?x256xf32>, %[[G:.*]]: memref<?x2xf32>, %[[S:.*]]: memref<?x2xf32>, %[[Y:.*]]: memref<?x256xf32>)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}}
// CHECK: %[[NG:.*]] = arith.divui %{{.*}}, %c128
// CHECK: scf.for %[[GI:.*]] = %{{.*}} to %[[NG]]
// CHECK: %[[B:.*]] = arith.muli %[[GI]], %c128
// CHECK: %[[E:.*]] = arith.addi %[[B]], %c128
// CHECK: %[[M:.*]] = scf.for %{{.*}} = %[[B]] to %[[E]] {{.*}} iter_args
// CHECK: arith.maximumf
// CHECK: memref.store %[[M]], %[[S]][%[[I]], %[[GI]]]
// CHECK: scf.for %[[J:.*]] = %[[B]] to %[[E]]
// CHECK: %[[GJ:.*]] = arith.divui %[[J]], %c128
// CHECK: memref.load %[[G]][%[[I]], %[[GJ]]]
// CHECK: memref.store %{{.*}}, %[[Y]][%[[I]], %[[J]]]
func.func @groups(%x: memref<?x256xf32>, %g: memref<?x2xf32>, %s: memref<?x2xf32>, %y: memref<?x256xf32>) {
  norm.fused ins(%x : full memref<?x256xf32>, %g : group memref<?x2xf32>) outs(%s : group memref<?x2xf32>, %y : full memref<?x256xf32>) attributes {group_size = 128 : i64} {
  ^bb0(%a: f32, %b: f32):
    %m = norm.group_reduce <max> %a : f32
    %d = arith.mulf %a, %b : f32
    %q = arith.divf %d, %m : f32
    norm.yield %m, %q : f32, f32
  }
  return
}
