// RUN: norm-opt %s --norm-set-target="max-cluster-size=4" --norm-decompose --norm-fuse-mixed-order --norm-split-rows --split-input-file | FileCheck %s
// RUN: norm-opt %s --norm-set-target="max-cluster-size=8" --norm-decompose --norm-fuse-mixed-order --norm-split-rows="shared-stages=0" --split-input-file | FileCheck %s
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-split-rows --split-input-file | FileCheck %s --check-prefix=CLUSTER
// RUN: norm-opt %s --norm-set-target="max-cluster-size=8" --norm-decompose --norm-fuse-mixed-order --norm-split-rows --split-input-file | FileCheck %s --check-prefix=CLUSTER
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-split-rows="always=true" --split-input-file | FileCheck %s --check-prefix=ALWAYS

// RUN: not norm-opt %s --norm-split-rows="shared-stages=9" 2>&1 | FileCheck %s --check-prefix=BADSTAGES

// BADSTAGES: error: norm-split-rows: shared-stages must be -1 (the tuning table, else the rule), 0 (off) or 1 to 4, got 9
// An option error is checked before the pass sees the IR: no dump of the module.
// BADSTAGES-NOT: see current operation

// Rows of 131072 bf16 do not fit in registers, nor (x and dy) over a
// cluster of 4 blocks, nor over 8 without staging: the row reduction moves
// to a statistics kernel whose result the backward kernel reads as a row
// input. A cluster of 16 blocks holds them in registers, and 8 blocks of
// 512 threads that stage their slices and re-read them (what the GPU
// lowering picks either way): one kernel.
// CLUSTER-LABEL: func @long_rows
// CLUSTER-COUNT-1: norm.fused
// CLUSTER: norm.row_reduce
// CLUSTER-NOT: norm.fused
// CLUSTER: return
// CHECK-LABEL: func @long_rows
// CHECK-SAME: (%[[DY:.+]]: tensor<?x131072xbf16>, %[[X:.+]]: tensor<?x131072xbf16>, %[[R:.+]]: tensor<?xf32>, %[[W:.+]]: tensor<131072xbf16>)
// CHECK: %[[STATS:.+]] = norm.fused ins (%[[DY]] : full tensor<?x131072xbf16>, %[[X]] : full tensor<?x131072xbf16>, %[[R]] : row tensor<?xf32>, %[[W]] : col tensor<131072xbf16>) outs (%{{.+}} : row tensor<?xf32>)
// CHECK: %[[S:.+]] = norm.row_reduce <add>
// CHECK: norm.yield %[[S]] : f32
// CHECK: %[[MAIN:.+]]:2 = norm.fused ins ({{.*}}%[[STATS]] : row tensor<?xf32>) outs (%{{.+}} : full tensor<?x131072xbf16>, %{{.+}} : col tensor<131072xbf16>)
// CHECK-NOT: norm.row_reduce
// CHECK: return %[[MAIN]]#0, %[[MAIN]]#1
func.func @long_rows(%dy: tensor<?x131072xbf16>, %x: tensor<?x131072xbf16>, %r: tensor<?xf32>, %w: tensor<131072xbf16>) -> (tensor<?x131072xbf16>, tensor<131072xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<131072xbf16>)
      : tensor<?x131072xbf16>, tensor<?x131072xbf16>, tensor<?xf32> -> tensor<?x131072xbf16>, tensor<131072xbf16>
  return %dx, %dw : tensor<?x131072xbf16>, tensor<131072xbf16>
}

// -----

// Short rows stay one kernel unless asked; LayerNorm's two dependent row
// reductions both go to the statistics kernel.
// CHECK-LABEL: func @short_rows
// CHECK-COUNT-1: norm.fused
// CHECK-NOT: norm.fused
// ALWAYS-LABEL: func @short_rows
// ALWAYS: norm.fused ins (%{{.+}} : full tensor<8x64xf32>) outs (%{{.+}} : row tensor<8xf32>, %{{.+}} : row tensor<8xf32>)
// ALWAYS-COUNT-2: norm.row_reduce
// ALWAYS: norm.fused
// ALWAYS-NOT: norm.row_reduce
func.func @short_rows(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %y, %m, %r = norm.layer_norm %x {epsilon = 1.0e-5 : f64} : tensor<8x64xf32> -> tensor<8x64xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8x64xf32>
}
