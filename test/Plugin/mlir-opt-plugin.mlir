// Debian's own mlir-opt loads norm as a plugin and runs its passes through
// --pass-pipeline.
// RUN: mlir-opt %s --load-dialect-plugin=%norm_libs/libNormPlugin.so --load-pass-plugin=%norm_libs/libNormPlugin.so --pass-pipeline='builtin.module(norm-decompose,norm-fuse-mixed-order,norm-split-reduction{split-size=8})' | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%norm_libs/libNormPlugin.so | FileCheck %s --check-prefix=ROUNDTRIP

// CHECK-LABEL: func @rms_bwd
// CHECK: norm.fused
// CHECK-SAME: rows_per_partial = 8
// CHECK: norm.row_reduce <add>
// CHECK: norm.combine
// ROUNDTRIP: norm.rms_norm_grad
func.func @rms_bwd(%dy: tensor<?x64xbf16>, %x: tensor<?x64xbf16>, %r: tensor<?xf32>, %w: tensor<64xbf16>) -> (tensor<?x64xbf16>, tensor<64xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<64xbf16>)
      : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?xf32> -> tensor<?x64xbf16>, tensor<64xbf16>
  return %dx, %dw : tensor<?x64xbf16>, tensor<64xbf16>
}
