// RUN: norm-opt %s --norm-decompose --split-input-file | FileCheck %s

// CHECK-LABEL: func @rms_fwd
// CHECK-SAME: (%[[X:.+]]: tensor<2x?x64xbf16>, %[[W:.+]]: tensor<64xbf16>)
// CHECK: %[[X2:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]]
// CHECK: %[[SS:.+]] = norm.reduce <row> <add> ins (%[[X2]] : full tensor<?x64xbf16>) -> tensor<?xf32>
// CHECK: arith.mulf
// CHECK: %[[RSTD:.+]] = norm.map <row> ins (%[[SS]] : row tensor<?xf32>) -> tensor<?xf32>
// CHECK: math.rsqrt
// CHECK: %[[Y:.+]] = norm.map <full> ins (%[[X2]] : full tensor<?x64xbf16>, %[[RSTD]] : row tensor<?xf32>, %[[W]] : col tensor<64xbf16>) -> tensor<?x64xbf16>
// CHECK: ^bb0(%{{.+}}: bf16, %{{.+}}: f32, %[[WE:.+]]: bf16):
// CHECK: %[[WF:.+]] = arith.extf %[[WE]] : bf16 to f32
// CHECK-NEXT: arith.addf %[[WF]], %{{.+}} : f32
// CHECK: %[[YE:.+]] = tensor.expand_shape %[[Y]]
// CHECK: %[[RE:.+]] = tensor.expand_shape %[[RSTD]]
// CHECK: return %[[YE]], %[[RE]]
func.func @rms_fwd(%x: tensor<2x?x64xbf16>, %w: tensor<64xbf16>) -> (tensor<2x?x64xbf16>, tensor<2x?xf32>) {
  %y, %r = norm.rms_norm %x weight(%w : tensor<64xbf16>) {epsilon = 1.0e-6 : f64, weight_offset = 1.0 : f64}
      : tensor<2x?x64xbf16> -> tensor<2x?x64xbf16>, tensor<2x?xf32>
  return %y, %r : tensor<2x?x64xbf16>, tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func @ln_fwd
// CHECK: %[[SUM:.+]] = norm.reduce <row> <add> ins (%[[X:.+]] : full
// CHECK: %[[MEAN:.+]] = norm.map <row> ins (%[[SUM]] : row
// Two-pass variance: the second row reduction reads the mean.
// CHECK: %[[VAR:.+]] = norm.reduce <row> <add> ins (%[[X]] : full tensor<8x32xf32>, %[[MEAN]] : row tensor<8xf32>)
// CHECK: arith.subf
// CHECK: %[[RSTD:.+]] = norm.map <row> ins (%[[VAR]] : row
// CHECK: norm.map <full> ins (%[[X]] : full tensor<8x32xf32>, %[[MEAN]] : row tensor<8xf32>, %[[RSTD]] : row tensor<8xf32>, %{{.+}} : col tensor<32xf32>, %{{.+}} : col tensor<32xf32>)
func.func @ln_fwd(%x: tensor<8x32xf32>, %w: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %y, %m, %r = norm.layer_norm %x weight(%w : tensor<32xf32>) bias(%b : tensor<32xf32>) {epsilon = 1.0e-5 : f64}
      : tensor<8x32xf32> -> tensor<8x32xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8x32xf32>
}

// -----

// A zero-centered LayerNorm weight (weight_offset = 1: Megatron's
// LayerNorm1P): the weight enters as w + 1 in f32, forward and backward.
// CHECK-LABEL: func @ln_weight_offset
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: norm.map <full> ins ({{.*}}, %{{.+}} : col tensor<32xbf16>) -> tensor<8x32xbf16>
// CHECK: ^bb0({{.*}}, %[[W:.+]]: bf16):
// CHECK: %[[WF:.+]] = arith.extf %[[W]] : bf16 to f32
// CHECK-NEXT: arith.addf %[[WF]], %[[ONE]] : f32
// CHECK: norm.reduce <row> <add> ins (%{{.+}} : full tensor<8x32xbf16>, %{{.+}} : full tensor<8x32xbf16>, %{{.+}} : row tensor<8xf32>, %{{.+}} : row tensor<8xf32>, %{{.+}} : col tensor<32xbf16>)
// CHECK: ^bb0({{.*}}, %[[GW:.+]]: bf16):
// CHECK: %[[GWF:.+]] = arith.extf %[[GW]] : bf16 to f32
// CHECK-NEXT: arith.addf %[[GWF]], %[[ONE]] : f32
func.func @ln_weight_offset(%x: tensor<8x32xbf16>, %w: tensor<32xbf16>, %dy: tensor<8x32xbf16>) -> (tensor<8x32xbf16>, tensor<8x32xbf16>, tensor<32xbf16>) {
  %y, %m, %r = norm.layer_norm %x weight(%w : tensor<32xbf16>) {epsilon = 1.0e-5 : f64, weight_offset = 1.0 : f64}
      : tensor<8x32xbf16> -> tensor<8x32xbf16>, tensor<8xf32>, tensor<8xf32>
  %dx, %dw = norm.layer_norm_grad %dy, %x, %m, %r weight(%w : tensor<32xbf16>) {weight_offset = 1.0 : f64}
      : tensor<8x32xbf16>, tensor<8x32xbf16>, tensor<8xf32>, tensor<8xf32> -> tensor<8x32xbf16> dw tensor<32xbf16>
  return %y, %dx, %dw : tensor<8x32xbf16>, tensor<8x32xbf16>, tensor<32xbf16>
}

// -----

// The RMSNorm backward: one row reduction, dx, one column reduction.
// CHECK-LABEL: func @rms_bwd
// CHECK-SAME: (%[[DY:.+]]: tensor<?x64xbf16>, %[[X:.+]]: tensor<?x64xbf16>, %[[R:.+]]: tensor<?xf32>, %[[W:.+]]: tensor<64xf32>)
// CHECK: %[[C:.+]] = norm.reduce <row> <add> ins (%[[DY]] : full tensor<?x64xbf16>, %[[X]] : full tensor<?x64xbf16>, %[[R]] : row tensor<?xf32>, %[[W]] : col tensor<64xf32>) -> tensor<?xf32>
// CHECK: %[[DX:.+]] = norm.map <full> ins ({{.*}}%[[C]] : row tensor<?xf32>) -> tensor<?x64xbf16>
// CHECK: %[[DW:.+]] = norm.reduce <col> <add> ins (%[[DY]] : full tensor<?x64xbf16>, %[[X]] : full tensor<?x64xbf16>, %[[R]] : row tensor<?xf32>) -> tensor<64xf32>
// CHECK: return %[[DX]], %[[DW]]
func.func @rms_bwd(%dy: tensor<?x64xbf16>, %x: tensor<?x64xbf16>, %r: tensor<?xf32>, %w: tensor<64xf32>) -> (tensor<?x64xbf16>, tensor<64xf32>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<64xf32>)
      : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?xf32> -> tensor<?x64xbf16>, tensor<64xf32>
  return %dx, %dw : tensor<?x64xbf16>, tensor<64xf32>
}

// -----

// The LayerNorm backward: two row and two column reductions. Dynamic N: 1/N
// is computed from the shape.
// CHECK-LABEL: func @ln_bwd
// CHECK: %[[N:.+]] = tensor.dim %{{.+}}, %c1
// CHECK: %[[INVN:.+]] = arith.divf
// CHECK: %[[A:.+]] = norm.reduce <row> <add>
// CHECK: %[[C:.+]] = norm.reduce <row> <add>
// CHECK: norm.map <full> ins ({{.*}}%[[A]] : row tensor<?xf32>, %[[C]] : row tensor<?xf32>)
// CHECK: arith.mulf %{{.+}}, %[[INVN]]
// CHECK: norm.reduce <col> <add>
// CHECK: norm.reduce <col> <add> ins (%{{.+}} : full tensor<?x?xf16>) -> tensor<?xf16>
func.func @ln_bwd(%dy: tensor<?x?xf16>, %x: tensor<?x?xf16>, %m: tensor<?xf32>, %r: tensor<?xf32>, %w: tensor<?xf16>) -> (tensor<?x?xf16>, tensor<?xf16>, tensor<?xf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %m, %r weight(%w : tensor<?xf16>) {has_bias}
      : tensor<?x?xf16>, tensor<?x?xf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x?xf16> dw tensor<?xf16> db tensor<?xf16>
  return %dx, %dw, %db : tensor<?x?xf16>, tensor<?xf16>, tensor<?xf16>
}

// -----

// Two dynamic leading dimensions: the results are reshaped back with
// tensor.reshape, since upstream expand-strided-metadata crashes on the
// memref.expand_shape of two dynamic sizes in one group; one dynamic
// dimension keeps tensor.expand_shape.
// CHECK-LABEL: func @rms_two_dynamic_row_dims
// CHECK-SAME: (%[[X:.+]]: tensor<?x?x64xf16>)
// CHECK: %[[X2:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]]
// CHECK-DAG: %[[D0:.+]] = tensor.dim %[[X]], %c0
// CHECK-DAG: %[[D1:.+]] = tensor.dim %[[X]], %c1
// CHECK: %[[SHAPE:.+]] = tensor.from_elements %[[D0]], %[[D1]], %c64 : tensor<3xindex>
// CHECK: tensor.reshape %{{.+}}(%[[SHAPE]]) : (tensor<?x64xf16>, tensor<3xindex>) -> tensor<?x?x64xf16>
// CHECK: %[[SSHAPE:.+]] = tensor.from_elements %{{.+}}, %{{.+}} : tensor<2xindex>
// CHECK: tensor.reshape %{{.+}}(%[[SSHAPE]]) : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// CHECK-NOT: tensor.expand_shape
func.func @rms_two_dynamic_row_dims(%x: tensor<?x?x64xf16>) -> (tensor<?x?x64xf16>, tensor<?x?xf32>) {
  %y, %rstd = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<?x?x64xf16> -> tensor<?x?x64xf16>, tensor<?x?xf32>
  return %y, %rstd : tensor<?x?x64xf16>, tensor<?x?xf32>
}
