// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction="split-size=16" --split-input-file --verify-diagnostics | FileCheck %s
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=HEUR
// RUN: norm-opt %s --norm-set-target="max-cluster-size=1" --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=NOCLUSTER
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction="split-size=16 min-partials=0" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=NOFILL
// RUN: not norm-opt %s --norm-plan-kernels --norm-split-reduction="min-partials=-2" 2>&1 | FileCheck %s --check-prefix=BADFILL
// RUN: not norm-opt %s --norm-plan-kernels --norm-split-reduction="min-partials=9223372036854775807" 2>&1 | FileCheck %s --check-prefix=HUGEFILL
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction="min-rows-per-partial=0" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=FLOOROFF
// RUN: not norm-opt %s --norm-plan-kernels --norm-split-reduction="min-rows-per-partial=-2" 2>&1 | FileCheck %s --check-prefix=BADFLOOR
// RUN: not norm-opt %s --norm-plan-kernels --norm-split-reduction="max-partials=-2" 2>&1 | FileCheck %s --check-prefix=BADCAP
// RUN: not norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction="max-partials=100" --split-input-file 2>&1 | FileCheck %s --check-prefix=SMALLCAP
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction="max-partials=0" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=CAPOFF
// RUN: not norm-opt %s --norm-plan-kernels --norm-split-reduction="split-size=-4" 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not norm-opt %s --norm-plan-kernels --norm-split-reduction="split-size=abc" 2>&1 | FileCheck %s --check-prefix=BADOPT


// NEG: error: norm-split-reduction: split size must be a positive number of rows, got -4
// BADOPT: for the --split-size option: 'abc' value invalid for long argument
// BADFILL: error: norm-split-reduction: min-partials must be -1 (the tuning rule), 0 (off) or positive up to 2147483647, got -2
// HUGEFILL: error: norm-split-reduction: min-partials must be -1 (the tuning rule), 0 (off) or positive up to 2147483647, got 9223372036854775807
// BADFLOOR: error: norm-split-reduction: min-rows-per-partial must be -1 (the tuning rule), 0 (off) or positive up to 2147483647, got -2
// BADCAP: error: norm-split-reduction: max-partials must be -1 (the tuning rule), 0 (off) or positive up to 2147483647, got -2

// Dynamic M: ceil(M / R) partial rows with R = max(K, ceil(M / 4224),
// ceil(ceil(M / 2112) / W)), W = max(1, ceil(M / (2112 * 16))) and K =
// max(1, min(4, ceil(M / 528))) (at least 2112 partial rows, 16 one-warp
// blocks per SM of 132, when M allows, of at least four rows while that
// leaves 528, and at most 4224, the 32 one-warp blocks an SM holds, which
// past 2112 x 16 rows take over from the waves of 2112; none for M = 0),
// then a combine into dw.
// CHECK-LABEL: func @rms_bwd
// CHECK: %[[QUARTER:.+]] = arith.ceildivui %[[M:.+]], %c528
// CHECK: %[[CAPPED:.+]] = arith.minui %c4{{.*}}, %[[QUARTER]]
// CHECK: %[[YIELDING:.+]] = arith.maxui %c1{{.*}}, %[[CAPPED]]
// CHECK: %[[ONEWAVE:.+]] = arith.ceildivui %[[M]], %c4224
// CHECK: %[[FLOOR:.+]] = arith.maxui %[[YIELDING]], %[[ONEWAVE]]
// CHECK: %[[FILL:.+]] = arith.ceildivui %[[M]], %c2112
// CHECK: %[[W:.+]] = arith.ceildivui %[[M]], %c33792
// CHECK: %[[WAVES:.+]] = arith.maxui %c1{{.*}}, %[[W]]
// CHECK: %[[SPREAD:.+]] = arith.ceildivui %[[FILL]], %[[WAVES]]
// CHECK: %[[R:.+]] = arith.maxui %[[FLOOR]], %[[SPREAD]]
// CHECK: %[[P:.+]] = arith.ceildivui %[[M]], %[[R]]
// CHECK: %[[WS:.+]] = tensor.empty(%[[P]]) : tensor<?x256xf32>
// CHECK: %[[F:.+]]:2 = norm.fused {{.+}} outs (%{{.+}} : full tensor<?x256xbf16>, %[[WS]] : col tensor<?x256xf32>) -> tensor<?x256xbf16>, tensor<?x256xf32> attributes {max_partials = 4224 : i64, min_partials = 2112 : i64, min_rows_per_partial = 4 : i64, norm.plan = #norm.plan<{{.+}}>, rows_per_partial = 16 : i64}
// CHECK: %[[DW:.+]] = norm.combine ins(%[[F]]#1 : tensor<?x256xf32>) outs(%{{.+}} : tensor<256xbf16>) -> tensor<256xbf16>
// CHECK: return %[[F]]#0, %[[DW]]
// With the rule's split too (16 with max_partials), waves of 2112 partial
// rows up to 33792 rows. Without max_partials, whole waves of 2112 partial
// rows of up to 256 rows; a cap under min_partials is an error.
// HEUR-LABEL: func @rms_bwd
// HEUR: arith.ceildivui %{{.+}}, %c33792
// CAPOFF-LABEL: func @rms_bwd
// CAPOFF: arith.ceildivui %{{.+}}, %c540672
// CAPOFF-NOT: max_partials
// SMALLCAP: error: 'norm.fused' op max-partials (100) must be at least min_partials (2112)
// NOFILL-LABEL: func @rms_bwd
// NOFILL: %[[P:.+]] = arith.ceildivui %{{.+}}, %c16
// NOFILL: tensor.empty(%[[P]]) : tensor<?x256xf32>
// NOFILL-NOT: min_partials
func.func @rms_bwd(%dy: tensor<?x256xbf16>, %x: tensor<?x256xbf16>, %r: tensor<?xf32>, %w: tensor<256xbf16>) -> (tensor<?x256xbf16>, tensor<256xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<256xbf16>)
      : tensor<?x256xbf16>, tensor<?x256xbf16>, tensor<?xf32> -> tensor<?x256xbf16>, tensor<256xbf16>
  return %dx, %dw : tensor<?x256xbf16>, tensor<256xbf16>
}

// -----

// Rows of 64 bf16 (8 vectors) share warps in the backward too (row_groups
// = 16, 128 threads): a partial row is a block's, and the rule fills every
// block the registers allow (7 an SM: 924 partial rows, waves of up to 256
// rows a partial), without the small blocks' cap, and with a floor of 8
// rows a partial row (ceil(M / 8) partial rows below 7392 rows).
// HEUR-LABEL: func @rms_bwd_heads
// HEUR: arith.ceildivui %[[M:.+]], %c924
// HEUR: arith.ceildivui %[[M]], %c236544
// HEUR: norm.fused {{.+}} attributes {min_partials = 924 : i64, min_rows_per_partial = 8 : i64, norm.plan = #norm.plan<kind = row_resident, threads = 128, vector_width = 8, row_groups = 16, rows_per_block = 8>, rows_per_partial = 256 : i64}
func.func @rms_bwd_heads(%dy: tensor<?x64xbf16>, %x: tensor<?x64xbf16>, %r: tensor<?xf32>, %w: tensor<64xbf16>) -> (tensor<?x64xbf16>, tensor<64xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<64xbf16>)
      : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?xf32> -> tensor<?x64xbf16>, tensor<64xbf16>
  return %dx, %dw : tensor<?x64xbf16>, tensor<64xbf16>
}

// -----

// A static M gets the partial rows a dynamic one would: at M = 5 with
// min_partials 2112, one row each (the floor of four rows yields where it
// would leave fewer than 528 partial rows); without min_partials, one
// partial row of the split's 16.
// CHECK-LABEL: func @small_m
// CHECK: tensor.empty() : tensor<5x64xf32>
// CHECK: max_partials = 4224 : i64, min_partials = 2112 : i64, min_rows_per_partial = 4 : i64, norm.plan = #norm.plan<{{.+}}>, rows_per_partial = 16
// HEUR-LABEL: func @small_m
// HEUR: tensor.empty() : tensor<5x64xf32>
// HEUR: max_partials = 4224 : i64, min_partials = 2112 : i64, min_rows_per_partial = 4 : i64, norm.plan = #norm.plan<{{.+}}>, rows_per_partial = 5
// NOFILL-LABEL: func @small_m
// NOFILL: tensor.empty() : tensor<1x64xf32>
// NOFILL-NOT: min_partials
// NOFILL: rows_per_partial = 16
func.func @small_m(%dy: tensor<5x64xf32>, %x: tensor<5x64xf32>, %r: tensor<5xf32>, %w: tensor<64xf32>) -> tensor<64xf32> {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<64xf32>)
      : tensor<5x64xf32>, tensor<5x64xf32>, tensor<5xf32> -> tensor<5x64xf32>, tensor<64xf32>
  return %dw : tensor<64xf32>
}

// -----

// The kernel's own norm.split_size wins over the option (min_partials
// still spreads M = 10 over a row each; the split caps the floor at 3); the
// forward has no column output and is left alone.
// CHECK-LABEL: func @attribute_wins
// CHECK: tensor.empty() : tensor<10x32xf32>
// CHECK: max_partials = 4224 : i64, min_partials = 2112 : i64, min_rows_per_partial = 3 : i64, norm.plan = #norm.plan<{{.+}}>, rows_per_partial = 3
// NOFILL-LABEL: func @attribute_wins
// NOFILL: tensor.empty() : tensor<4x32xf32>
// NOFILL: rows_per_partial = 3
// CHECK-LABEL: func @forward_untouched
// CHECK-NOT: rows_per_partial
// CHECK-NOT: norm.combine
func.func @attribute_wins(%x: tensor<10x32xf32>) -> tensor<32xf32> {
  %c = norm.reduce <col> <add> ins(%x : full tensor<10x32xf32>) {norm.split_size = 3 : i64} -> tensor<32xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return %c : tensor<32xf32>
}
func.func @forward_untouched(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<16x64xf32> -> tensor<16x64xf32>, tensor<16xf32>
  return %y : tensor<16x64xf32>
}

// -----

// A zero split size is an error at the reduction it was written on.
func.func @zero_split(%x: tensor<10x32xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{'norm.split_size': split size must be a positive number of rows, got 0}}
  %c = norm.reduce <col> <add> ins(%x : full tensor<10x32xf32>) {norm.split_size = 0 : i64} -> tensor<32xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return %c : tensor<32xf32>
}

// -----

// Rows of 65536 bf16 (x and dy) are spread over clusters of 8 blocks, one
// block per SM: one wave of the 15 clusters an H200 holds, each walking
// ceil(M / 15) rows (min_partials = 15, the split uncapped); without
// clusters the same layout as a block group of 8, whose 16 groups (every
// SM counts) are one wave; an explicit split size wins either way.
// CHECK-LABEL: func @cluster_rows
// CHECK: rows_per_partial = 16
// HEUR-LABEL: func @cluster_rows
// HEUR: %[[M:.+]] = tensor.dim
// HEUR: %[[M2:.+]] = tensor.dim
// HEUR: %[[PER:.+]] = arith.ceildivui %[[M2]], %c15
// HEUR: %[[W:.+]] = arith.ceildivui %[[M2]], %c15728640
// HEUR: %[[WAVES:.+]] = arith.maxui %c1{{.*}}, %[[W]]
// HEUR: arith.ceildivui %[[PER]], %[[WAVES]]
// HEUR: min_partials = 15 : i64, norm.plan = #norm.plan<{{.+}}>, rows_per_partial = 1048576 : i64
// NOCLUSTER-LABEL: func @cluster_rows
// NOCLUSTER: arith.ceildivui %{{.+}}, %c16
// NOCLUSTER: min_partials = 16 : i64, norm.plan = #norm.plan<kind = cluster, {{.+}}, cluster_size = 8, global_exchange = true, rows_per_block = 8>, rows_per_partial = 1048576 : i64
func.func @cluster_rows(%dy: tensor<?x65536xbf16>, %x: tensor<?x65536xbf16>, %r: tensor<?xf32>, %w: tensor<65536xbf16>) -> (tensor<?x65536xbf16>, tensor<65536xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<65536xbf16>)
      : tensor<?x65536xbf16>, tensor<?x65536xbf16>, tensor<?xf32> -> tensor<?x65536xbf16>, tensor<65536xbf16>
  return %dx, %dw : tensor<?x65536xbf16>, tensor<65536xbf16>
}

// -----

// The LayerNorm backward at N = 32768 spreads rows over clusters of 8 that
// re-read their staged slices: they keep only the column accumulators in
// registers, so three blocks fit an SM, and one wave is 3 x 15 = 45
// clusters (15 clusters of 8 fit an H200 at one block per SM).
// HEUR-LABEL: func @reread_cluster_wave
// HEUR: arith.ceildivui %{{.+}}, %c45
// HEUR: min_partials = 45 : i64, norm.plan = #norm.plan<{{.+}}>, rows_per_partial = 1048576 : i64
func.func @reread_cluster_wave(%dy: tensor<?x32768xbf16>, %x: tensor<?x32768xbf16>, %mean: tensor<?xf32>, %rstd: tensor<?xf32>, %w: tensor<32768xbf16>) -> (tensor<?x32768xbf16>, tensor<32768xbf16>, tensor<32768xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<32768xbf16>) {has_bias} : tensor<?x32768xbf16>, tensor<?x32768xbf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x32768xbf16> dw tensor<32768xbf16> db tensor<32768xbf16>
  return %dx, %dw, %db : tensor<?x32768xbf16>, tensor<32768xbf16>, tensor<32768xbf16>
}

// -----

// The LayerNorm backward at N = 16384: clusters of 4 at three blocks per
// SM, one wave of 90 partial rows, each summing at least 7 rows (the
// short-rows limit, 192, over the 30 cluster slots): at 192 rows 28 partial
// rows of 7 instead of 64 of 3 (chooseMinRowsPerPartial); below 23 x 7
// rows the floor yields to ceil(90 / 4) = 23 partial rows. Off, the floor
// is 1.
// HEUR-LABEL: func @floor_three_blocks_wave
// HEUR: %[[QUARTER:.+]] = arith.ceildivui %[[M:.+]], %c23
// HEUR: %[[CAPPED:.+]] = arith.minui %c7{{.*}}, %[[QUARTER]]
// HEUR: %[[FLOOR:.+]] = arith.maxui %c1{{.*}}, %[[CAPPED]]
// HEUR: %[[PER:.+]] = arith.ceildivui %[[M]], %c90
// HEUR: %[[WAVES:.+]] = arith.maxui %c1{{.*}}, %{{.+}}
// HEUR: %[[R:.+]] = arith.ceildivui %[[PER]], %[[WAVES]]
// HEUR: %[[ROWS:.+]] = arith.maxui %[[FLOOR]], %[[R]]
// HEUR: %[[P:.+]] = arith.ceildivui %[[M]], %[[ROWS]]
// HEUR: tensor.empty(%[[P]]) : tensor<?x16384xf32>
// HEUR: min_partials = 90 : i64, min_rows_per_partial = 7 : i64, norm.plan = #norm.plan<{{.+}}>, rows_per_partial = 1048576 : i64
// HEUR-LABEL: func @floor_static_rows
// HEUR: col tensor<28x16384xf32>, {{.+}} : col tensor<28x16384xf32>)
// FLOOROFF-LABEL: func @floor_three_blocks_wave
// FLOOROFF: min_partials = 90 : i64, norm.plan = #norm.plan<{{.+}}>, rows_per_partial = 1048576 : i64
// FLOOROFF-LABEL: func @floor_static_rows
// FLOOROFF: col tensor<64x16384xf32>, {{.+}} : col tensor<64x16384xf32>)
func.func @floor_three_blocks_wave(%dy: tensor<?x16384xbf16>, %x: tensor<?x16384xbf16>, %mean: tensor<?xf32>, %rstd: tensor<?xf32>, %w: tensor<16384xbf16>) -> (tensor<?x16384xbf16>, tensor<16384xbf16>, tensor<16384xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<16384xbf16>) {has_bias} : tensor<?x16384xbf16>, tensor<?x16384xbf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x16384xbf16> dw tensor<16384xbf16> db tensor<16384xbf16>
  return %dx, %dw, %db : tensor<?x16384xbf16>, tensor<16384xbf16>, tensor<16384xbf16>
}

func.func @floor_static_rows(%dy: tensor<192x16384xbf16>, %x: tensor<192x16384xbf16>, %mean: tensor<192xf32>, %rstd: tensor<192xf32>, %w: tensor<16384xbf16>) -> (tensor<192x16384xbf16>, tensor<16384xbf16>, tensor<16384xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<16384xbf16>) {has_bias} : tensor<192x16384xbf16>, tensor<192x16384xbf16>, tensor<192xf32>, tensor<192xf32> -> tensor<192x16384xbf16> dw tensor<16384xbf16> db tensor<16384xbf16>
  return %dx, %dw, %db : tensor<192x16384xbf16>, tensor<16384xbf16>, tensor<16384xbf16>
}

// -----

// The RMSNorm backward at N = 12288: clusters of 2 blocks that hold their
// slices in registers, and the next row's while they exchange sums, so one
// block an SM: one wave is the 66 cluster slots (132 counted one row).
// HEUR-LABEL: func @held_rows_cluster_wave
// HEUR: arith.ceildivui %{{.+}}, %c66
// HEUR: min_partials = 66 : i64, norm.plan = #norm.plan<{{.+}}>, rows_per_partial = 1048576 : i64
func.func @held_rows_cluster_wave(%dy: tensor<?x12288xbf16>, %x: tensor<?x12288xbf16>, %r: tensor<?xf32>, %w: tensor<12288xbf16>) -> (tensor<?x12288xbf16>, tensor<12288xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<12288xbf16>)
      : tensor<?x12288xbf16>, tensor<?x12288xbf16>, tensor<?xf32> -> tensor<?x12288xbf16>, tensor<12288xbf16>
  return %dx, %dw : tensor<?x12288xbf16>, tensor<12288xbf16>
}

// -----

// The gated RMSNorm's backward written as order-typed IR (norm_mlir's
// order_programs: a row reduction, the dx and dz maps with the gate's
// sigmoid, the dw column reduction) splits like the norms' backwards: one
// kernel writes dx, dz and f32 column partials, a combine sums them into dw.
// CHECK-LABEL: func @gated_rms_backward
// CHECK: %[[K:.+]]:3 = norm.fused ins ({{.+}}) outs ({{.+}} : full tensor<?x256xbf16>, {{.+}} : full tensor<?x256xbf16>, {{.+}} : col tensor<?x256xf32>)
// CHECK: math.exp
// CHECK: %[[DW:.+]] = norm.combine ins(%[[K]]#2 : tensor<?x256xf32>) outs({{.+}} : tensor<256xbf16>)
// CHECK: return %[[K]]#0, %[[K]]#1, %[[DW]]
func.func @gated_rms_backward(%dy: tensor<?x256xbf16>, %x: tensor<?x256xbf16>, %z: tensor<?x256xbf16>, %rstd: tensor<?xf32>, %w: tensor<256xbf16>) -> (tensor<?x256xbf16>, tensor<?x256xbf16>, tensor<256xbf16>) {
  %c = norm.reduce <row> <add> ins(%dy : full tensor<?x256xbf16>, %x : full tensor<?x256xbf16>, %z : full tensor<?x256xbf16>, %rstd : row tensor<?xf32>, %w : col tensor<256xbf16>) -> tensor<?xf32> {
  ^bb0(%c_dy_e: bf16, %c_x_e: bf16, %c_z_e: bf16, %c_rstd: f32, %c_w_e: bf16):
    %c_dy = arith.extf %c_dy_e : bf16 to f32
    %c_x = arith.extf %c_x_e : bf16 to f32
    %c_z = arith.extf %c_z_e : bf16 to f32
    %c_w = arith.extf %c_w_e : bf16 to f32
    %c_xn = arith.mulf %c_x, %c_rstd : f32
    %c_g = arith.mulf %c_dy, %c_w : f32
    %c_nz = arith.negf %c_z : f32
    %c_ez = math.exp %c_nz : f32
    %c_one = arith.constant 1.00000000000000000e+00 : f32
    %c_den = arith.addf %c_one, %c_ez : f32
    %c_sig = arith.divf %c_one, %c_den : f32
    %c_act = arith.mulf %c_z, %c_sig : f32
    %c_gg = arith.mulf %c_g, %c_act : f32
    %c_p = arith.mulf %c_gg, %c_xn : f32
    norm.yield %c_p : f32
  }
  %dx = norm.map <full> ins(%dy : full tensor<?x256xbf16>, %x : full tensor<?x256xbf16>, %z : full tensor<?x256xbf16>, %rstd : row tensor<?xf32>, %c : row tensor<?xf32>, %w : col tensor<256xbf16>) -> tensor<?x256xbf16> {
  ^bb0(%dx_dy_e: bf16, %dx_x_e: bf16, %dx_z_e: bf16, %dx_rstd: f32, %dx_c: f32, %dx_w_e: bf16):
    %dx_dy = arith.extf %dx_dy_e : bf16 to f32
    %dx_x = arith.extf %dx_x_e : bf16 to f32
    %dx_z = arith.extf %dx_z_e : bf16 to f32
    %dx_w = arith.extf %dx_w_e : bf16 to f32
    %dx_xn = arith.mulf %dx_x, %dx_rstd : f32
    %dx_g = arith.mulf %dx_dy, %dx_w : f32
    %dx_nz = arith.negf %dx_z : f32
    %dx_ez = math.exp %dx_nz : f32
    %dx_one = arith.constant 1.00000000000000000e+00 : f32
    %dx_den = arith.addf %dx_one, %dx_ez : f32
    %dx_sig = arith.divf %dx_one, %dx_den : f32
    %dx_act = arith.mulf %dx_z, %dx_sig : f32
    %dx_gg = arith.mulf %dx_g, %dx_act : f32
    %dx_invn = arith.constant 3.90625000000000000e-03 : f32
    %dx_cn = arith.mulf %dx_c, %dx_invn : f32
    %dx_xc = arith.mulf %dx_xn, %dx_cn : f32
    %dx_gd = arith.subf %dx_gg, %dx_xc : f32
    %dx_dn = arith.mulf %dx_rstd, %dx_gd : f32
    %dx_t = arith.truncf %dx_dn : f32 to bf16
    norm.yield %dx_t : bf16
  }
  %dz = norm.map <full> ins(%dy : full tensor<?x256xbf16>, %x : full tensor<?x256xbf16>, %z : full tensor<?x256xbf16>, %rstd : row tensor<?xf32>, %w : col tensor<256xbf16>) -> tensor<?x256xbf16> {
  ^bb0(%dz_dy_e: bf16, %dz_x_e: bf16, %dz_z_e: bf16, %dz_rstd: f32, %dz_w_e: bf16):
    %dz_dy = arith.extf %dz_dy_e : bf16 to f32
    %dz_x = arith.extf %dz_x_e : bf16 to f32
    %dz_z = arith.extf %dz_z_e : bf16 to f32
    %dz_w = arith.extf %dz_w_e : bf16 to f32
    %dz_xn = arith.mulf %dz_x, %dz_rstd : f32
    %dz_nz = arith.negf %dz_z : f32
    %dz_ez = math.exp %dz_nz : f32
    %dz_one = arith.constant 1.00000000000000000e+00 : f32
    %dz_den = arith.addf %dz_one, %dz_ez : f32
    %dz_sig = arith.divf %dz_one, %dz_den : f32
    %dz_act = arith.mulf %dz_z, %dz_sig : f32
    %dz_xw = arith.mulf %dz_xn, %dz_w : f32
    %dz_q = arith.mulf %dz_dy, %dz_xw : f32
    %dz_oms = arith.subf %dz_one, %dz_sig : f32
    %dz_zo = arith.mulf %dz_z, %dz_oms : f32
    %dz_t1 = arith.addf %dz_one, %dz_zo : f32
    %dz_dact = arith.mulf %dz_sig, %dz_t1 : f32
    %dz_v = arith.mulf %dz_q, %dz_dact : f32
    %dz_t = arith.truncf %dz_v : f32 to bf16
    norm.yield %dz_t : bf16
  }
  %dw = norm.reduce <col> <add> ins(%dy : full tensor<?x256xbf16>, %x : full tensor<?x256xbf16>, %z : full tensor<?x256xbf16>, %rstd : row tensor<?xf32>) -> tensor<256xbf16> {
  ^bb0(%dw_dy_e: bf16, %dw_x_e: bf16, %dw_z_e: bf16, %dw_rstd: f32):
    %dw_dy = arith.extf %dw_dy_e : bf16 to f32
    %dw_x = arith.extf %dw_x_e : bf16 to f32
    %dw_z = arith.extf %dw_z_e : bf16 to f32
    %dw_xn = arith.mulf %dw_x, %dw_rstd : f32
    %dw_p = arith.mulf %dw_dy, %dw_xn : f32
    %dw_nz = arith.negf %dw_z : f32
    %dw_ez = math.exp %dw_nz : f32
    %dw_one = arith.constant 1.00000000000000000e+00 : f32
    %dw_den = arith.addf %dw_one, %dw_ez : f32
    %dw_sig = arith.divf %dw_one, %dw_den : f32
    %dw_act = arith.mulf %dw_z, %dw_sig : f32
    %dw_pg = arith.mulf %dw_p, %dw_act : f32
    norm.yield %dw_pg : f32
  }
  return %dx, %dz, %dw : tensor<?x256xbf16>, tensor<?x256xbf16>, tensor<256xbf16>
}

