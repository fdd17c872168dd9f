// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --split-input-file | FileCheck %s
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order="report=true" --split-input-file --verify-diagnostics -o /dev/null

// The RMSNorm backward becomes one kernel: the row reduction feeding dx and
// the dw column reduction read dy and x once.
// CHECK-LABEL: func @rms_bwd
// CHECK-SAME: (%[[DY:.+]]: tensor<?x64xbf16>, %[[X:.+]]: tensor<?x64xbf16>, %[[R:.+]]: tensor<?xf32>, %[[W:.+]]: tensor<64xf32>)
// CHECK: %[[F:.+]]:2 = norm.fused ins (%[[DY]] : full tensor<?x64xbf16>, %[[X]] : full tensor<?x64xbf16>, %[[R]] : row tensor<?xf32>, %[[W]] : col tensor<64xf32>) outs (%{{.+}} : full tensor<?x64xbf16>, %{{.+}} : col tensor<64xf32>)
// CHECK: %[[S:.+]] = norm.row_reduce <add>
// CHECK: arith.mulf %[[S]]
// CHECK: norm.yield
// CHECK-NOT: norm.fused
// CHECK: return %[[F]]#0, %[[F]]#1
func.func @rms_bwd(%dy: tensor<?x64xbf16>, %x: tensor<?x64xbf16>, %r: tensor<?xf32>, %w: tensor<64xf32>) -> (tensor<?x64xbf16>, tensor<64xf32>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<64xf32>)
      : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?xf32> -> tensor<?x64xbf16>, tensor<64xf32>
  return %dx, %dw : tensor<?x64xbf16>, tensor<64xf32>
}

// -----

// LayerNorm backward: two row and two column reductions in one kernel.
// CHECK-LABEL: func @ln_bwd
// CHECK: %[[F:.+]]:3 = norm.fused
// CHECK-SAME: outs (%{{.+}} : full tensor<128x256xbf16>, %{{.+}} : col tensor<256xbf16>, %{{.+}} : col tensor<256xbf16>)
// CHECK-COUNT-2: norm.row_reduce <add>
// CHECK-NOT: norm.fused
// CHECK: return %[[F]]#0, %[[F]]#1, %[[F]]#2
func.func @ln_bwd(%dy: tensor<128x256xbf16>, %x: tensor<128x256xbf16>, %m: tensor<128xf32>, %r: tensor<128xf32>, %w: tensor<256xbf16>) -> (tensor<128x256xbf16>, tensor<256xbf16>, tensor<256xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %m, %r weight(%w : tensor<256xbf16>) {has_bias}
      : tensor<128x256xbf16>, tensor<128x256xbf16>, tensor<128xf32>, tensor<128xf32> -> tensor<128x256xbf16> dw tensor<256xbf16> db tensor<256xbf16>
  return %dx, %dw, %db : tensor<128x256xbf16>, tensor<256xbf16>, tensor<256xbf16>
}

// -----

// The forward: statistics and y in one kernel; rstd is a row output.
// CHECK-LABEL: func @rms_fwd
// CHECK: %[[F:.+]]:2 = norm.fused ins (%{{.+}} : full tensor<16x64xf32>) outs (%{{.+}} : row tensor<16xf32>, %{{.+}} : full tensor<16x64xf32>)
// CHECK: %[[SS:.+]] = norm.row_reduce <add>
// CHECK: math.rsqrt
// CHECK: return %[[F]]#1, %[[F]]#0
func.func @rms_fwd(%x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16xf32>) {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<16x64xf32> -> tensor<16x64xf32>, tensor<16xf32>
  return %y, %r : tensor<16x64xf32>, tensor<16xf32>
}

// -----

// An op that needs a finished column result cannot share its kernel: it gets
// a kernel of its own after it, and the report says why.
// CHECK-LABEL: func @reads_column_result
// CHECK: %[[K1:.+]] = norm.fused ins (%[[X:.+]] : full tensor<8x32xf32>) outs (%{{.+}} : col tensor<32xf32>)
// CHECK: %[[K2:.+]] = norm.fused ins (%[[X]] : full tensor<8x32xf32>, %[[K1]] : col tensor<32xf32>) outs (%{{.+}} : full tensor<8x32xf32>)
// CHECK: return %[[K2]]
func.func @reads_column_result(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %c = norm.reduce <col> <add> ins(%x : full tensor<8x32xf32>) -> tensor<32xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  // expected-remark @+1 {{not fused into an earlier kernel: it reads the column reduction #0, which is complete only after every row has been seen}}
  %y = norm.map <full> ins(%x : full tensor<8x32xf32>, %c : col tensor<32xf32>) -> tensor<8x32xf32> {
  ^bb0(%e: f32, %s: f32):
    %d = arith.divf %e, %s : f32
    norm.yield %d : f32
  }
  return %y : tensor<8x32xf32>
}

// -----

// Reductions over unrelated inputs stay in separate kernels.
// CHECK-LABEL: func @unrelated
// CHECK-COUNT-2: norm.fused
func.func @unrelated(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = norm.reduce <row> <add> ins(%a : full tensor<8x32xf32>) -> tensor<8xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  %t = norm.reduce <row> <max> ins(%b : full tensor<8x32xf32>) -> tensor<8xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return %s, %t : tensor<8xf32>, tensor<8xf32>
}

// -----

// A region that yields a value captured from above (what canonicalization
// leaves of a body computing only from a constant): the fused body yields
// that value as it is.
// CHECK-LABEL: func @yields_captured_constant
// CHECK: %[[C:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: norm.fused
// CHECK: norm.row_reduce <add> %[[C]] : f32
func.func @yields_captured_constant(%x: tensor<?x64xbf16>) -> tensor<?x64xbf16> {
  %c = arith.constant 2.0 : f32
  %s = norm.reduce <row> <add> ins(%x : full tensor<?x64xbf16>) -> tensor<?xf32> {
  ^bb0(%e: bf16):
    norm.yield %c : f32
  }
  %y = norm.map <full> ins(%x : full tensor<?x64xbf16>, %s : row tensor<?xf32>) -> tensor<?x64xbf16> {
  ^bb0(%e: bf16, %r: f32):
    %t = arith.truncf %r : f32 to bf16
    norm.yield %t : bf16
  }
  return %y : tensor<?x64xbf16>
}

// -----

// The pre-norm residual add (h = x + r, returned for the next block) is a
// producer map of the RMSNorm: one kernel reads x, r and w once and writes
// h, rstd and y.
// CHECK-LABEL: func @residual_add_rms_forward
// CHECK: %[[K:.+]]:3 = norm.fused ins (%arg0 : full tensor<?x256xbf16>, %arg1 : full tensor<?x256xbf16>, %arg2 : col tensor<256xbf16>) outs ({{.+}} : full tensor<?x256xbf16>, {{.+}} : row tensor<?xf32>, {{.+}} : full tensor<?x256xbf16>)
// CHECK-NOT: norm.fused
// CHECK: return %[[K]]#2, %[[K]]#0, %[[K]]#1
func.func @residual_add_rms_forward(%x: tensor<?x256xbf16>, %r: tensor<?x256xbf16>, %w: tensor<256xbf16>) -> (tensor<?x256xbf16>, tensor<?x256xbf16>, tensor<?xf32>) {
  %h = norm.map <full> ins(%x : full tensor<?x256xbf16>, %r : full tensor<?x256xbf16>) -> tensor<?x256xbf16> {
  ^bb0(%xe: bf16, %re: bf16):
    %xf = arith.extf %xe : bf16 to f32
    %rf = arith.extf %re : bf16 to f32
    %hs = arith.addf %xf, %rf : f32
    %ht = arith.truncf %hs : f32 to bf16
    norm.yield %ht : bf16
  }
  %y, %rstd = norm.rms_norm %h weight(%w : tensor<256xbf16>) {epsilon = 9.99999999999999955e-07 : f64} : tensor<?x256xbf16> -> tensor<?x256xbf16>, tensor<?xf32>
  return %y, %h, %rstd : tensor<?x256xbf16>, tensor<?x256xbf16>, tensor<?xf32>
}

// -----

// Its backward: the residual's gradient dh is a consumer map of the RMSNorm
// gradient, added to the f32 dx inside the kernel and rounded once; the f32
// dx is never stored.
// CHECK-LABEL: func @residual_add_rms_backward
// CHECK: norm.fused ins (%arg0 : full tensor<?x256xbf16>, %arg2 : full tensor<?x256xbf16>, %arg3 : row tensor<?xf32>, %arg4 : col tensor<256xbf16>, %arg1 : full tensor<?x256xbf16>) outs ({{.+}} : col tensor<256xbf16>, {{.+}} : full tensor<?x256xbf16>)
// CHECK-NOT: tensor<?x256xf32>
// CHECK-NOT: norm.fused
func.func @residual_add_rms_backward(%dy: tensor<?x256xbf16>, %dh: tensor<?x256xbf16>, %h: tensor<?x256xbf16>, %rstd: tensor<?xf32>, %w: tensor<256xbf16>) -> (tensor<?x256xbf16>, tensor<256xbf16>) {
  %dn, %dw = norm.rms_norm_grad %dy, %h, %rstd weight(%w : tensor<256xbf16>) : tensor<?x256xbf16>, tensor<?x256xbf16>, tensor<?xf32> -> tensor<?x256xf32>, tensor<256xbf16>
  %dx = norm.map <full> ins(%dn : full tensor<?x256xf32>, %dh : full tensor<?x256xbf16>) -> tensor<?x256xbf16> {
  ^bb0(%dne: f32, %dhe: bf16):
    %dhf = arith.extf %dhe : bf16 to f32
    %dxs = arith.addf %dne, %dhf : f32
    %dxt = arith.truncf %dxs : f32 to bf16
    norm.yield %dxt : bf16
  }
  return %dx, %dw : tensor<?x256xbf16>, tensor<256xbf16>
}

// -----

// The L2 norm written as order-typed IR (a row reduction, a row map and a
// full map): one kernel reads x once and writes y and the row's rstd.
// CHECK-LABEL: func @l2_forward
// CHECK: %[[K:.+]]:2 = norm.fused ins (%arg0 : full tensor<?x128xbf16>) outs ({{.+}} : row tensor<?xf32>, {{.+}} : full tensor<?x128xbf16>)
// CHECK: norm.row_reduce <add>
// CHECK: math.rsqrt
// CHECK-NOT: norm.fused
// CHECK: return %[[K]]#1, %[[K]]#0
func.func @l2_forward(%x: tensor<?x128xbf16>) -> (tensor<?x128xbf16>, tensor<?xf32>) {
  %ss = norm.reduce <row> <add> ins(%x : full tensor<?x128xbf16>) -> tensor<?xf32> {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    %sq = arith.mulf %f, %f : f32
    norm.yield %sq : f32
  }
  %r = norm.map <row> ins(%ss : row tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%s: f32):
    %eps = arith.constant 1.0e-6 : f32
    %a = arith.addf %s, %eps : f32
    %q = math.rsqrt %a : f32
    norm.yield %q : f32
  }
  %y = norm.map <full> ins(%x : full tensor<?x128xbf16>, %r : row tensor<?xf32>) -> tensor<?x128xbf16> {
  ^bb0(%e: bf16, %q: f32):
    %f = arith.extf %e : bf16 to f32
    %p = arith.mulf %f, %q : f32
    %t = arith.truncf %p : f32 to bf16
    norm.yield %t : bf16
  }
  return %y, %r : tensor<?x128xbf16>, tensor<?xf32>
}

// -----

// Its backward, dx = rstd (dy - x rstd^2 sum_j dy x): the row reduction, the
// row map of its result and the full map of dx are one kernel over dy and x.
// CHECK-LABEL: func @l2_backward
// CHECK: norm.fused ins (%arg0 : full tensor<?x128xbf16>, %arg1 : full tensor<?x128xbf16>, %arg2 : row tensor<?xf32>) outs ({{.+}} : full tensor<?x128xbf16>)
// CHECK: norm.row_reduce <add>
// CHECK-NOT: norm.fused
func.func @l2_backward(%dy: tensor<?x128xbf16>, %x: tensor<?x128xbf16>, %rstd: tensor<?xf32>) -> tensor<?x128xbf16> {
  %dot = norm.reduce <row> <add> ins(%dy : full tensor<?x128xbf16>, %x : full tensor<?x128xbf16>) -> tensor<?xf32> {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %p = arith.mulf %af, %bf : f32
    norm.yield %p : f32
  }
  %c = norm.map <row> ins(%dot : row tensor<?xf32>, %rstd : row tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%d: f32, %r: f32):
    %r2 = arith.mulf %r, %r : f32
    %v = arith.mulf %d, %r2 : f32
    norm.yield %v : f32
  }
  %dx = norm.map <full> ins(%dy : full tensor<?x128xbf16>, %x : full tensor<?x128xbf16>, %rstd : row tensor<?xf32>, %c : row tensor<?xf32>) -> tensor<?x128xbf16> {
  ^bb0(%a: bf16, %b: bf16, %r: f32, %cc: f32):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %xc = arith.mulf %bf, %cc : f32
    %d = arith.subf %af, %xc : f32
    %v = arith.mulf %r, %d : f32
    %t = arith.truncf %v : f32 to bf16
    norm.yield %t : bf16
  }
  return %dx : tensor<?x128xbf16>
}

// -----

// A gate after the norm (y = rms_norm(x) * sigmoid(z)) is a consumer map of
// the RMSNorm: one kernel reads x, z and w once.
// CHECK-LABEL: func @gated_rms_forward
// CHECK: norm.fused ins (%arg0 : full tensor<?x128xbf16>, %arg1 : col tensor<128xf32>, %arg2 : full tensor<?x128xbf16>)
// CHECK: math.exp
// CHECK-NOT: norm.fused
func.func @gated_rms_forward(%x: tensor<?x128xbf16>, %w: tensor<128xf32>, %z: tensor<?x128xbf16>) -> (tensor<?x128xbf16>, tensor<?xf32>) {
  %n, %rstd = norm.rms_norm %x weight(%w : tensor<128xf32>) {epsilon = 9.99999999999999955e-07 : f64} : tensor<?x128xbf16> -> tensor<?x128xf32>, tensor<?xf32>
  %y = norm.map <full> ins(%n : full tensor<?x128xf32>, %z : full tensor<?x128xbf16>) -> tensor<?x128xbf16> {
  ^bb0(%ne: f32, %ze: bf16):
    %zf = arith.extf %ze : bf16 to f32
    %nz = arith.negf %zf : f32
    %ez = math.exp %nz : f32
    %one = arith.constant 1.0 : f32
    %den = arith.addf %one, %ez : f32
    %s = arith.divf %one, %den : f32
    %g = arith.mulf %ne, %s : f32
    %t = arith.truncf %g : f32 to bf16
    norm.yield %t : bf16
  }
  return %y, %rstd : tensor<?x128xbf16>, tensor<?xf32>
}

// -----

// FP8 with 1 x 128 group scales after an RMSNorm: the row reduction, the
// group reduction (amax of |y| over each group of 128) and the maps around
// them are one kernel with group_size 128: norm.group_reduce inside, the
// scales a group output.
// CHECK-LABEL: func @fp8_group_scales
// CHECK: %[[S:.*]] = tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK: norm.fused ins (%arg0 : full tensor<?x512xbf16>) outs (%[[S]] : group tensor<?x4xf32>, %{{.*}} : full tensor<?x512xf8E4M3FN>) -> tensor<?x4xf32>, tensor<?x512xf8E4M3FN> attributes {group_size = 128 : i64}
// CHECK: norm.row_reduce <add>
// CHECK: math.rsqrt
// CHECK: norm.group_reduce <max>
// CHECK: arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK-NOT: norm.fused
func.func @fp8_group_scales(%x: tensor<?x512xbf16>) -> (tensor<?x512xf8E4M3FN>, tensor<?x4xf32>) {
  %y, %rstd = norm.rms_norm %x {epsilon = 9.99999999999999955e-07 : f64} : tensor<?x512xbf16> -> tensor<?x512xf32>, tensor<?xf32>
  %amax = norm.reduce <group> <max> ins(%y : full tensor<?x512xf32>) {group_size = 128 : i64} -> tensor<?x4xf32> {
  ^bb0(%v: f32):
    %n = arith.negf %v : f32
    %a = arith.maximumf %v, %n : f32
    norm.yield %a : f32
  }
  %scale = norm.map <group> ins(%amax : group tensor<?x4xf32>) {group_size = 128 : i64} -> tensor<?x4xf32> {
  ^bb0(%a: f32):
    %c = arith.constant 448.0 : f32
    %v = arith.divf %a, %c : f32
    norm.yield %v : f32
  }
  %q = norm.map <full> ins(%y : full tensor<?x512xf32>, %scale : group tensor<?x4xf32>) {group_size = 128 : i64} -> tensor<?x512xf8E4M3FN> {
  ^bb0(%v: f32, %s: f32):
    %d = arith.divf %v, %s : f32
    %t = arith.truncf %d : f32 to f8E4M3FN
    norm.yield %t : f8E4M3FN
  }
  return %q, %scale : tensor<?x512xf8E4M3FN>, tensor<?x4xf32>
}

// -----

// A kernel has one group size: a group reduction over groups of another
// size starts a kernel of its own.
// CHECK-LABEL: func @two_group_sizes
// CHECK: norm.fused {{.*}} attributes {group_size = 128 : i64}
// CHECK: norm.fused {{.*}} attributes {group_size = 64 : i64}
func.func @two_group_sizes(%y: tensor<?x512xf32>) -> (tensor<?x4xf32>, tensor<?x8xf32>) {
  %a = norm.reduce <group> <max> ins(%y : full tensor<?x512xf32>) {group_size = 128 : i64} -> tensor<?x4xf32> {
  ^bb0(%v: f32):
    norm.yield %v : f32
  }
  // expected-remark @+1 {{not fused into an earlier kernel: its groups of 64 columns are not the kernel's groups of 128}}
  %b = norm.reduce <group> <add> ins(%y : full tensor<?x512xf32>) {group_size = 64 : i64} -> tensor<?x8xf32> {
  ^bb0(%v: f32):
    norm.yield %v : f32
  }
  return %a, %b : tensor<?x4xf32>, tensor<?x8xf32>
}
