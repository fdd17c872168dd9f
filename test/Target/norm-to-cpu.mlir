// The registered CPU pipeline: user-level IR to the LLVM dialect through
// loops, nothing of norm left.
// RUN: norm-opt %s --norm-to-cpu | FileCheck %s
// Two dynamic row dimensions lower too (upstream expand-strided-metadata
// crashed on what the decomposition produced for them before).
// RUN: norm-opt %S/Inputs/two-dynamic-row-dims.mlir --norm-to-cpu | FileCheck %s --check-prefix=TWOROWDIMS
// TWOROWDIMS: llvm.func @rms_3d

// CHECK-NOT: norm.
// CHECK: llvm.func @rms_fwd
// CHECK-NOT: norm.
func.func @rms_fwd(%x: tensor<?x64xf32>, %w: tensor<64xf32>) -> (tensor<?x64xf32>, tensor<?xf32>) {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<64xf32>) {epsilon = 1.0e-6 : f64}
      : tensor<?x64xf32> -> tensor<?x64xf32>, tensor<?xf32>
  return %y, %rstd : tensor<?x64xf32>, tensor<?xf32>
}
