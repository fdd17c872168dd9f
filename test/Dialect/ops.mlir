// RUN: norm-opt %s | norm-opt | FileCheck %s
// RUN: norm-opt %s --mlir-print-op-generic | norm-opt | FileCheck %s
// RUN: norm-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS

// DIALECTS: Available Dialects:
// DIALECTS-SAME: ,norm,

// CHECK-LABEL: func @rms_norm
func.func @rms_norm(%x: tensor<?x4096xbf16>, %w: tensor<4096xf32>) -> (tensor<?x4096xbf16>, tensor<?xf32>) {
  // CHECK: %[[Y:.+]], %[[R:.+]] = norm.rms_norm %{{.+}} weight(%{{.+}} : tensor<4096xf32>) {epsilon = 9.9999999999999995E-7 : f64, weight_offset = 1.000000e+00 : f64} : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<4096xf32>) {epsilon = 1.0e-6 : f64, weight_offset = 1.0 : f64}
      : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>
  return %y, %rstd : tensor<?x4096xbf16>, tensor<?xf32>
}

// CHECK-LABEL: func @rms_norm_no_weight_3d
func.func @rms_norm_no_weight_3d(%x: tensor<2x3x64xf16>) -> (tensor<2x3x64xf16>, tensor<2x3xf32>) {
  // CHECK: norm.rms_norm %{{.+}} {epsilon
  %y, %rstd = norm.rms_norm %x {epsilon = 1.0e-5 : f64} : tensor<2x3x64xf16> -> tensor<2x3x64xf16>, tensor<2x3xf32>
  return %y, %rstd : tensor<2x3x64xf16>, tensor<2x3xf32>
}

// CHECK-LABEL: func @layer_norm
func.func @layer_norm(%x: tensor<8x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<8x1024xf32> {
  // CHECK: norm.layer_norm %{{.+}} weight(%{{.+}} : tensor<1024xf32>) bias(%{{.+}} : tensor<1024xf32>)
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1024xf32>) bias(%b : tensor<1024xf32>) {epsilon = 1.0e-5 : f64}
      : tensor<8x1024xf32> -> tensor<8x1024xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8x1024xf32>
}

// CHECK-LABEL: func @grads
func.func @grads(%dy: tensor<?x512xbf16>, %x: tensor<?x512xbf16>, %mean: tensor<?xf32>, %rstd: tensor<?xf32>, %w: tensor<512xbf16>) {
  // CHECK: norm.rms_norm_grad %{{.+}}, %{{.+}}, %{{.+}} weight(%{{.+}} : tensor<512xbf16>) : {{.+}} -> tensor<?x512xbf16>, tensor<512xbf16>
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<512xbf16>)
      : tensor<?x512xbf16>, tensor<?x512xbf16>, tensor<?xf32> -> tensor<?x512xbf16>, tensor<512xbf16>
  // CHECK: norm.rms_norm_grad %{{.+}}, %{{.+}}, %{{.+}} : {{.+}} -> tensor<?x512xbf16>
  %dx2 = norm.rms_norm_grad %dy, %x, %rstd : tensor<?x512xbf16>, tensor<?x512xbf16>, tensor<?xf32> -> tensor<?x512xbf16>
  // CHECK: norm.layer_norm_grad {{.+}} weight(%{{.+}} : tensor<512xbf16>) {has_bias} : {{.+}} -> tensor<?x512xbf16> dw tensor<512xbf16> db tensor<512xbf16>
  %dx3, %dw3, %db3 = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<512xbf16>) {has_bias}
      : tensor<?x512xbf16>, tensor<?x512xbf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x512xbf16> dw tensor<512xbf16> db tensor<512xbf16>
  return
}

// CHECK-LABEL: func @order_typed
func.func @order_typed(%x: tensor<?x64xbf16>, %w: tensor<64xbf16>) -> (tensor<?xf32>, tensor<64xf32>, tensor<?x64xbf16>) {
  // CHECK: norm.reduce <row> <add> ins (%{{.+}} : full tensor<?x64xbf16>) -> tensor<?xf32>
  %s = norm.reduce <row> <add> ins(%x : full tensor<?x64xbf16>) -> tensor<?xf32> {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  // CHECK: norm.reduce <col> <max> ins (%{{.+}} : full tensor<?x64xbf16>, %{{.+}} : col tensor<64xbf16>) -> tensor<64xf32>
  %c = norm.reduce <col> <max> ins(%x : full tensor<?x64xbf16>, %w : col tensor<64xbf16>) -> tensor<64xf32> {
  ^bb0(%e: bf16, %v: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  // CHECK: norm.map <full> ins (%{{.+}} : full tensor<?x64xbf16>, %{{.+}} : row tensor<?xf32>) -> tensor<?x64xbf16>
  %y = norm.map <full> ins(%x : full tensor<?x64xbf16>, %s : row tensor<?xf32>) -> tensor<?x64xbf16> {
  ^bb0(%e: bf16, %r: f32):
    %f = arith.extf %e : bf16 to f32
    %m = arith.mulf %f, %r : f32
    %t = arith.truncf %m : f32 to bf16
    norm.yield %t : bf16
  }
  return %s, %c, %y : tensor<?xf32>, tensor<64xf32>, tensor<?x64xbf16>
}

// Ten rows, at most 8 per partial, about 4 partial rows but at least 5 rows
// each: 2 partial rows.
// CHECK-LABEL: func @min_rows_per_partial
// CHECK: attributes {min_partials = 4 : i64, min_rows_per_partial = 5 : i64, rows_per_partial = 8 : i64}
func.func @min_rows_per_partial(%x: tensor<10x64xbf16>, %p: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<2x64xf32>) -> tensor<2x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 4 : i64, min_rows_per_partial = 5 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return %r : tensor<2x64xf32>
}

// The floor yields where it would leave fewer than ceil(F / 4) partial
// rows: ten rows with min_partials = 40 keep ten partial rows of one row
// (min(5, ceil(10 / 10)) = 1), not two of five.
// CHECK-LABEL: func @min_rows_per_partial_yields
// CHECK: attributes {min_partials = 40 : i64, min_rows_per_partial = 5 : i64, rows_per_partial = 8 : i64}
func.func @min_rows_per_partial_yields(%x: tensor<10x64xbf16>, %p: tensor<10x64xf32>) -> tensor<10x64xf32> {
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<10x64xf32>) -> tensor<10x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 40 : i64, min_rows_per_partial = 5 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return %r : tensor<10x64xf32>
}

// At most max_partials partial rows: 100 rows with min_partials = 4 and
// rows_per_partial = 2 would run 13 waves of 4 partial rows of 2 rows (50
// partial rows); max_partials = 8 makes them 8 partial rows of
// ceil(100 / 8) = 13 rows.
// CHECK-LABEL: func @max_partials
// CHECK: attributes {max_partials = 8 : i64, min_partials = 4 : i64, rows_per_partial = 2 : i64}
func.func @max_partials(%x: tensor<100x64xbf16>, %p: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %r = norm.fused ins(%x : full tensor<100x64xbf16>) outs(%p : col tensor<8x64xf32>) -> tensor<8x64xf32> attributes {rows_per_partial = 2 : i64, min_partials = 4 : i64, max_partials = 8 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return %r : tensor<8x64xf32>
}

// Ten rows, at most 8 per partial but at least 4 partial rows: 3 rows each.
// CHECK-LABEL: func @min_partials
// CHECK: attributes {min_partials = 4 : i64, rows_per_partial = 8 : i64}
func.func @min_partials(%x: tensor<10x64xbf16>, %p: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<4x64xf32>) -> tensor<4x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 4 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return %r : tensor<4x64xf32>
}

// CHECK-LABEL: func @kernels
func.func @kernels(%x: tensor<?x64xbf16>, %o: tensor<?x64xbf16>, %p: tensor<?x64xf32>, %d: tensor<64xbf16>) -> (tensor<?x64xbf16>, tensor<64xbf16>) {
  // CHECK: %[[F:.+]]:2 = norm.fused ins (%{{.+}} : full tensor<?x64xbf16>) outs (%{{.+}} : full tensor<?x64xbf16>, %{{.+}} : col tensor<?x64xf32>) -> tensor<?x64xbf16>, tensor<?x64xf32> attributes {rows_per_partial = 16 : i64}
  // CHECK: norm.row_reduce <add>
  %r:2 = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%o : full tensor<?x64xbf16>, %p : col tensor<?x64xf32>)
      -> tensor<?x64xbf16>, tensor<?x64xf32> attributes {rows_per_partial = 16 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    %s = norm.row_reduce <add> %f : f32
    %m = arith.mulf %f, %s : f32
    %t = arith.truncf %m : f32 to bf16
    norm.yield %t, %f : bf16, f32
  }
  // CHECK: norm.combine ins(%[[F]]#1 : tensor<?x64xf32>) outs(%{{.+}} : tensor<64xbf16>) -> tensor<64xbf16>
  %dw = norm.combine ins(%r#1 : tensor<?x64xf32>) outs(%d : tensor<64xbf16>) -> tensor<64xbf16>
  return %r#0, %dw : tensor<?x64xbf16>, tensor<64xbf16>
}

// CHECK-LABEL: func @kernels_on_memrefs
func.func @kernels_on_memrefs(%x: memref<?x64xbf16>, %y: memref<?x64xbf16>, %p: memref<?x64xf32>, %d: memref<64xf32>) {
  // CHECK: norm.fused ins (%{{.+}} : full memref<?x64xbf16>) outs (%{{.+}} : full memref<?x64xbf16>) {
  norm.fused ins(%x : full memref<?x64xbf16>) outs(%y : full memref<?x64xbf16>) {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  // CHECK: norm.combine ins(%{{.+}} : memref<?x64xf32>) outs(%{{.+}} : memref<64xf32>)
  norm.combine ins(%p : memref<?x64xf32>) outs(%d : memref<64xf32>)
  return
}

// CHECK-LABEL: func @attributes
// CHECK-SAME: order = #norm.order<col>
// CHECK-SAME: role = #norm.role<row>
func.func @attributes() attributes {order = #norm.order<col>, role = #norm.role<row>, combiner = #norm.combiner<max>} {
  return
}

// A plan round-trips with every parameter; defaults are not printed.
// CHECK-LABEL: func @plan_round_trip
// CHECK: norm.plan = #norm.plan<kind = streaming, threads = 256, vector_width = 8, chunks_per_thread = 2, column_slices = 3, row_groups = 4, warp_rows = true, shared_stages = 2, reread_staged = true, l2_prefetch_rows = 7, l2_prefetch_min_rows = 9, bulk_stores = true, holds_row = true, sweeps_per_step = 2, latency_bound_reductions = true, rows_per_block = 8, num_stages = 3, min_blocks_per_sm = 2, min_blocks = 100, persistent = true>
// CHECK: norm.plan = #norm.plan<kind = cluster, threads = 512, cluster_size = 8>
func.func @plan_round_trip(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %y = norm.fused ins(%x : full tensor<?x64xf32>) outs(%x : full tensor<?x64xf32>) -> tensor<?x64xf32> attributes {norm.plan = #norm.plan<kind = streaming, threads = 256, vector_width = 8, chunks_per_thread = 2, column_slices = 3, row_groups = 4, warp_rows = true, cluster_size = 1, shared_stages = 2, reread_staged = true, l2_prefetch_rows = 7, l2_prefetch_min_rows = 9, bulk_stores = true, holds_row = true, sweeps_per_step = 2, latency_bound_reductions = true, rows_per_block = 8, num_stages = 3, min_blocks_per_sm = 2, min_blocks = 100, persistent = true>} {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  %z = norm.fused ins(%x : full tensor<?x64xf32>) outs(%x : full tensor<?x64xf32>) -> tensor<?x64xf32> attributes {norm.plan = #norm.plan<kind = cluster, threads = 512, cluster_size = 8>} {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return %y, %z : tensor<?x64xf32>, tensor<?x64xf32>
}

// Groups of columns: a group reduction, a group map reading it and a row
// value, a full map reading the group value, and a kernel with a group
// output and norm.group_reduce.
// CHECK-LABEL: func @groups
// CHECK: norm.reduce <group> <max> ins (%{{.*}} : full tensor<?x256xf32>) {group_size = 128 : i64} -> tensor<?x2xf32>
// CHECK: norm.map <group> ins (%{{.*}} : group tensor<?x2xf32>, %{{.*}} : row tensor<?xf32>) {group_size = 128 : i64} -> tensor<?x2xf32>
// CHECK: norm.map <full> ins (%{{.*}} : full tensor<?x256xf32>, %{{.*}} : group tensor<?x2xf32>) {group_size = 128 : i64}
// CHECK: norm.fused ins (%{{.*}} : full tensor<?x256xf32>) outs (%{{.*}} : group tensor<?x2xf32>) -> tensor<?x2xf32> attributes {group_size = 128 : i64}
// CHECK: norm.group_reduce <add> %{{.*}} : f32
func.func @groups(%y: tensor<?x256xf32>, %r: tensor<?xf32>) -> (tensor<?x256xf32>, tensor<?x2xf32>) {
  %amax = norm.reduce <group> <max> ins(%y : full tensor<?x256xf32>) {group_size = 128 : i64} -> tensor<?x2xf32> {
  ^bb0(%v: f32):
    norm.yield %v : f32
  }
  %s = norm.map <group> ins(%amax : group tensor<?x2xf32>, %r : row tensor<?xf32>) {group_size = 128 : i64} -> tensor<?x2xf32> {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    norm.yield %p : f32
  }
  %q = norm.map <full> ins(%y : full tensor<?x256xf32>, %s : group tensor<?x2xf32>) {group_size = 128 : i64} -> tensor<?x256xf32> {
  ^bb0(%v: f32, %g: f32):
    %p = arith.mulf %v, %g : f32
    norm.yield %p : f32
  }
  %sums = norm.fused ins(%y : full tensor<?x256xf32>) outs(%s : group tensor<?x2xf32>) -> tensor<?x2xf32> attributes {group_size = 128 : i64} {
  ^bb0(%v: f32):
    %t = norm.group_reduce <add> %v : f32
    norm.yield %t : f32
  }
  return %q, %sums : tensor<?x256xf32>, tensor<?x2xf32>
}
