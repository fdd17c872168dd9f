// RUN: norm-opt %s --split-input-file --verify-diagnostics

func.func @rank1(%x: tensor<64xbf16>) {
  // expected-error @+1 {{x: activations must have rank >= 2}}
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<64xbf16> -> tensor<64xbf16>, tensor<f32>
  return
}

// -----

func.func @bad_dtype(%x: tensor<4x64xf64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values}}
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4x64xf64> -> tensor<4x64xf64>, tensor<4xf32>
  return
}

// -----

func.func @y_type(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{result y must have the type of x or be its f32 counterpart}}
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4x64xbf16> -> tensor<4x64xf16>, tensor<4xf32>
  return
}

// -----

func.func @stats_shape(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{rstd: statistics must have the leading dimensions of the activation [4], got [5]}}
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<5xf32>
  return
}

// -----

func.func @stats_type(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{rstd: statistics must be f32}}
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<4xbf16>
  return
}

// -----

func.func @weight_length(%x: tensor<4x64xbf16>, %w: tensor<32xbf16>) {
  // expected-error @+1 {{weight: weight/bias length 32 does not match the normalized dimension 64}}
  %y, %r = norm.rms_norm %x weight(%w : tensor<32xbf16>) {epsilon = 1.0e-6 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<4xf32>
  return
}

// -----

func.func @weight_rank(%x: tensor<4x64xbf16>, %w: tensor<1x64xbf16>) {
  // expected-error @+1 {{weight: weight and bias must have rank 1}}
  %y, %r = norm.rms_norm %x weight(%w : tensor<1x64xbf16>) {epsilon = 1.0e-6 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<4xf32>
  return
}

// -----

func.func @epsilon_zero(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{epsilon must be a positive number, got 0}}
  %y, %r = norm.rms_norm %x {epsilon = 0.0 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<4xf32>
  return
}

// -----

func.func @epsilon_nan(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{epsilon must be a positive number, got nan}}
  %y, %r = norm.rms_norm %x {epsilon = 0x7FF8000000000000 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<4xf32>
  return
}

// -----

func.func @ln_bias_length(%x: tensor<4x64xf32>, %b: tensor<65xf32>) {
  // expected-error @+1 {{bias: weight/bias length 65 does not match the normalized dimension 64}}
  %y, %m, %r = norm.layer_norm %x bias(%b : tensor<65xf32>) {epsilon = 1.0e-5 : f64} : tensor<4x64xf32> -> tensor<4x64xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @ln_mean(%x: tensor<4x64xf32>) {
  // expected-error @+1 {{mean: statistics must have the leading dimensions}}
  %y, %m, %r = norm.layer_norm %x {epsilon = 1.0e-5 : f64} : tensor<4x64xf32> -> tensor<4x64xf32>, tensor<4x1xf32>, tensor<4xf32>
  return
}

// -----

func.func @dy_mismatch(%dy: tensor<4x32xbf16>, %x: tensor<4x64xbf16>, %r: tensor<4xf32>) {
  // expected-error @+1 {{dy must have the type of x}}
  %dx = norm.rms_norm_grad %dy, %x, %r : tensor<4x32xbf16>, tensor<4x64xbf16>, tensor<4xf32> -> tensor<4x64xbf16>
  return
}

// -----

func.func @dx_mismatch(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %r: tensor<4xf32>) {
  // expected-error @+1 {{result dx must have the type of x or be its f32 counterpart}}
  %dx = norm.rms_norm_grad %dy, %x, %r : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32> -> tensor<4x64xf16>
  return
}

// -----

func.func @missing_dw(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %r: tensor<4xf32>, %w: tensor<64xbf16>) {
  // expected-error @+1 {{must return dw when a weight is given}}
  %dx = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<64xbf16>) : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32> -> tensor<4x64xbf16>
  return
}

// -----

func.func @extra_dw(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %r: tensor<4xf32>) {
  // expected-error @+1 {{returns dw but has no weight}}
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32> -> tensor<4x64xbf16>, tensor<64xbf16>
  return
}

// -----

func.func @dw_type(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %r: tensor<4xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{dw must have the type of the weight}}
  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : tensor<64xf32>) : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32> -> tensor<4x64xbf16>, tensor<64xbf16>
  return
}

// -----

func.func @missing_db(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{must return db when has_bias is set}}
  %dx = norm.layer_norm_grad %dy, %x, %m, %r {has_bias} : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32>, tensor<4xf32> -> tensor<4x64xbf16>
  return
}

// -----

func.func @extra_db(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{returns db but has_bias is not set}}
  %dx, %db = norm.layer_norm_grad %dy, %x, %m, %r : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32>, tensor<4xf32> -> tensor<4x64xbf16> db tensor<64xbf16>
  return
}

// -----

func.func @ln_grad_missing_dw(%dy: tensor<4x64xbf16>, %x: tensor<4x64xbf16>, %m: tensor<4xf32>, %r: tensor<4xf32>, %w: tensor<64xbf16>) {
  // expected-error @+1 {{must return dw when a weight is given}}
  %dx = norm.layer_norm_grad %dy, %x, %m, %r weight(%w : tensor<64xbf16>) : tensor<4x64xbf16>, tensor<4x64xbf16>, tensor<4xf32>, tensor<4xf32> -> tensor<4x64xbf16>
  return
}

// -----

func.func @reduce_order_mismatch(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{result contradicts order 'col': a 'col' value must have shape [64], got [4]}}
  %s = norm.reduce <col> <add> ins(%x : full tensor<4x64xbf16>) -> tensor<4xf32> {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @reduce_square_roles(%x: tensor<64x64xbf16>, %r: tensor<64xf32>) {
  // M == N: the role decides, and a rank-2 value cannot be a row value.
  // expected-error @+1 {{input #1 does not fit the 64x64 iteration space: a 'row' value must have rank 1}}
  %s = norm.reduce <row> <add> ins(%x : full tensor<64x64xbf16>, %x : row tensor<64x64xbf16>) -> tensor<64xf32> {
  ^bb0(%e: bf16, %g: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @reduce_input_shape(%x: tensor<4x64xbf16>, %w: tensor<32xbf16>) {
  // expected-error @+1 {{input #1 does not fit the 4x64 iteration space: a 'col' value must have shape [64], got [32]}}
  %s = norm.reduce <row> <add> ins(%x : full tensor<4x64xbf16>, %w : col tensor<32xbf16>) -> tensor<4xf32> {
  ^bb0(%e: bf16, %v: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @reduce_no_full(%r: tensor<4xf32>) {
  // expected-error @+1 {{needs at least one 'full' input}}
  %s = norm.reduce <row> <add> ins(%r : row tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return
}

// -----

func.func @reduce_yield_type(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{region yields 'bf16' for result #0, expected 'f32'}}
  %s = norm.reduce <row> <add> ins(%x : full tensor<4x64xbf16>) -> tensor<4xf32> {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  return
}

// -----

func.func @reduce_arg_type(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{region argument #0 must have the input's element type 'bf16', got 'f32'}}
  %s = norm.reduce <row> <add> ins(%x : full tensor<4x64xbf16>) -> tensor<4xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return
}

// -----

func.func @unknown_role(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{unknown role 'diag': expected 'full', 'row' or 'col'}}
  %s = norm.reduce <row> <add> ins(%x : diag tensor<4x64xbf16>) -> tensor<4xf32> {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @unknown_order(%x: tensor<4x64xbf16>) {
  // expected-error @+2 {{expected ::mlir::norm::Order to be one of: row, col}}
  // expected-error @+1 {{failed to parse Norm_OrderAttr parameter 'value'}}
  %s = norm.reduce <diagonal> <add> ins(%x : full tensor<4x64xbf16>) -> tensor<4xf32> {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @map_row_reads_full(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{a 'row' result may only read 'row' inputs, but input #0 is 'full'}}
  %s = norm.map <row> ins(%x : full tensor<4x64xbf16>) -> tensor<4xbf16> {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  return
}

// -----

func.func @map_result_shape(%x: tensor<4x64xbf16>) {
  // expected-error @+1 {{result: a 'full' value must have shape [4x64], got [4x32]}}
  %s = norm.map <full> ins(%x : full tensor<4x64xbf16>) -> tensor<4x32xbf16> {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  return
}

// -----

func.func @fused_row_output_varies(%x: tensor<4x64xbf16>, %o: tensor<4xf32>) {
  // expected-error @+1 {{output #0 is a 'row' output but its value varies along the row}}
  %r = norm.fused ins(%x : full tensor<4x64xbf16>) outs(%o : row tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @fused_partials_shape(%x: tensor<10x64xbf16>, %p: tensor<2x64xf32>) {
  // expected-error @+1 {{output #0 holds column partials of ceil(M/4) rows: a 'full' value must have shape [3x64], got [2x64]}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<2x64xf32>) -> tensor<2x64xf32> attributes {rows_per_partial = 4 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @fused_fill_without_split(%x: tensor<10x64xbf16>, %p: tensor<64xf32>) {
  // expected-error @+1 {{min_partials needs rows_per_partial}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<64xf32>) -> tensor<64xf32> attributes {min_partials = 8 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @fused_fill_zero(%x: tensor<10x64xbf16>, %p: tensor<4x64xf32>) {
  // expected-error @+1 {{min_partials must be positive, got 0}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<4x64xf32>) -> tensor<4x64xf32> attributes {rows_per_partial = 3 : i64, min_partials = 0 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

// With min_partials = 4 and 10 rows, a partial row holds min(8, ceil(10/4))
// = 3 rows: 4 partial rows, not ceil(10/8) = 2.
func.func @fused_fill_shape(%x: tensor<10x64xbf16>, %p: tensor<2x64xf32>) {
  // expected-error @+1 {{output #0 holds column partials of ceil(M/8) rows (or more, min_partials)}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<2x64xf32>) -> tensor<2x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 4 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @fused_floor_without_fill(%x: tensor<10x64xbf16>, %p: tensor<2x64xf32>) {
  // expected-error @+1 {{min_rows_per_partial needs min_partials}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<2x64xf32>) -> tensor<2x64xf32> attributes {rows_per_partial = 8 : i64, min_rows_per_partial = 4 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @fused_floor_past_split(%x: tensor<10x64xbf16>, %p: tensor<1x64xf32>) {
  // expected-error @+1 {{min_rows_per_partial must be from 1 to rows_per_partial (8), got 9}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<1x64xf32>) -> tensor<1x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 4 : i64, min_rows_per_partial = 9 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @fused_floor_zero(%x: tensor<10x64xbf16>, %p: tensor<4x64xf32>) {
  // expected-error @+1 {{min_rows_per_partial must be from 1 to rows_per_partial (8), got 0}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<4x64xf32>) -> tensor<4x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 4 : i64, min_rows_per_partial = 0 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

// With min_partials = 4 and at least 5 rows each, 10 rows make 2 partial
// rows, not 4 (ceil(10/4) = 3 rows each).
func.func @fused_floor_shape(%x: tensor<10x64xbf16>, %p: tensor<4x64xf32>) {
  // expected-error @+1 {{output #0 holds column partials of ceil(M/8) rows (or more, min_partials)}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<4x64xf32>) -> tensor<4x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 4 : i64, min_rows_per_partial = 5 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

// The floor of 5 rows yields to ceil(40 / 4) = 10 partial rows: ten rows
// make 10 partial rows of one, not 2 of five.
func.func @fused_floor_yields_shape(%x: tensor<10x64xbf16>, %p: tensor<2x64xf32>) {
  // expected-error @+1 {{output #0 holds column partials of ceil(M/8) rows (or more, min_partials)}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<2x64xf32>) -> tensor<2x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 40 : i64, min_rows_per_partial = 5 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @fused_cap_needs_fill(%x: tensor<10x64xbf16>, %p: tensor<2x64xf32>) {
  // expected-error @+1 {{max_partials needs min_partials}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<2x64xf32>) -> tensor<2x64xf32> attributes {rows_per_partial = 8 : i64, max_partials = 4 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @fused_cap_under_fill(%x: tensor<10x64xbf16>, %p: tensor<3x64xf32>) {
  // expected-error @+1 {{max_partials must be at least min_partials (4), got 3}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<3x64xf32>) -> tensor<3x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 4 : i64, max_partials = 3 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

// max_partials = 8 caps 100 rows at 8 partial rows of 13, not the 50 of 2
// that the waves of min_partials = 4 would give.
func.func @fused_cap_shape(%x: tensor<100x64xbf16>, %p: tensor<50x64xf32>) {
  // expected-error @+1 {{output #0 holds column partials of ceil(M/2) rows (or more, min_partials)}}
  %r = norm.fused ins(%x : full tensor<100x64xbf16>) outs(%p : col tensor<50x64xf32>) -> tensor<50x64xf32> attributes {rows_per_partial = 2 : i64, min_partials = 4 : i64, max_partials = 8 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @fused_split_zero(%x: tensor<10x64xbf16>, %p: tensor<3x64xf32>) {
  // expected-error @+1 {{rows_per_partial must be positive, got 0}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<3x64xf32>) -> tensor<3x64xf32> attributes {rows_per_partial = 0 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @fused_mixed_kinds(%x: tensor<4x64xbf16>, %o: memref<4x64xbf16>) {
  // expected-error @+1 {{operands must be all tensors or all memrefs}}
  norm.fused ins(%x : full tensor<4x64xbf16>) outs(%o : full memref<4x64xbf16>) {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  return
}

// -----

func.func @fused_no_space(%r: tensor<4xf32>, %o: tensor<4xf32>) {
  // expected-error @+1 {{needs a 'full' input or output}}
  %s = norm.fused ins(%r : row tensor<4xf32>) outs(%o : row tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return
}

// -----

func.func @fused_col_yield(%x: tensor<4x64xbf16>, %o: tensor<64xbf16>) {
  // expected-error @+1 {{region yields 'bf16' for result #0, expected 'f32'}}
  %s = norm.fused ins(%x : full tensor<4x64xbf16>) outs(%o : col tensor<64xbf16>) -> tensor<64xbf16> {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  return
}

// -----

func.func @row_reduce_outside(%v: f32) {
  // expected-error @+1 {{expects parent op 'norm.fused'}}
  %r = norm.row_reduce <add> %v : f32
  return
}

// -----

func.func @combine_partials(%p: tensor<4x64xbf16>, %o: tensor<64xbf16>) {
  // expected-error @+1 {{partials must be a rank-2 f32 buffer (P x N)}}
  %r = norm.combine ins(%p : tensor<4x64xbf16>) outs(%o : tensor<64xbf16>) -> tensor<64xbf16>
  return
}

// -----

func.func @combine_columns(%p: tensor<4x64xf32>, %o: tensor<32xbf16>) {
  // expected-error @+1 {{partials have 64 columns but the output has 32}}
  %r = norm.combine ins(%p : tensor<4x64xf32>) outs(%o : tensor<32xbf16>) -> tensor<32xbf16>
  return
}

// -----

func.func @whole_columns_with_rows(%x: tensor<?x64xbf16>, %y: tensor<?x64xbf16>) {
  // expected-error @+1 {{'norm.whole_columns' marks kernels with column outputs; this one has none}}
  %r = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%y : full tensor<?x64xbf16>) -> tensor<?x64xbf16> attributes {norm.whole_columns} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @rows_per_block_zero(%x: tensor<?x64xbf16>, %y: tensor<?x64xbf16>) {
  // expected-error @+1 {{'norm.rows_per_block' must be a positive integer, got 0 : i64}}
  %r = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%y : full tensor<?x64xbf16>) -> tensor<?x64xbf16> attributes {norm.rows_per_block = 0 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @rows_per_block_not_integer(%x: tensor<?x64xbf16>, %y: tensor<?x64xbf16>) {
  // expected-error @+1 {{'norm.rows_per_block' must be an integer, got "four"}}
  %r = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%y : full tensor<?x64xbf16>) -> tensor<?x64xbf16> attributes {norm.rows_per_block = "four"} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @min_blocks_per_sm_zero(%x: tensor<?x64xbf16>, %y: tensor<?x64xbf16>) {
  // expected-error @+1 {{'norm.min_blocks_per_sm' must be an integer from 1 to 32, got 0 : i64}}
  %r = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%y : full tensor<?x64xbf16>) -> tensor<?x64xbf16> attributes {norm.min_blocks_per_sm = 0 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @min_blocks_per_sm_too_many(%x: tensor<?x64xbf16>, %y: tensor<?x64xbf16>) {
  // expected-error @+1 {{'norm.min_blocks_per_sm' must be an integer from 1 to 32, got 33 : i64}}
  %r = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%y : full tensor<?x64xbf16>) -> tensor<?x64xbf16> attributes {norm.min_blocks_per_sm = 33 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @rows_below_zero(%x: tensor<?x64xbf16>, %y: tensor<?x64xbf16>) {
  // expected-error @+1 {{'norm.rows_below' must be a positive integer, got 0 : i64}}
  %r = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%y : full tensor<?x64xbf16>) -> tensor<?x64xbf16> attributes {norm.rows_below = 0 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @rows_below_static_rows(%x: tensor<16x64xbf16>, %y: tensor<16x64xbf16>) {
  // expected-error @+1 {{has 16 rows, not below its 'norm.rows_below' of 16}}
  %r = norm.fused ins(%x : full tensor<16x64xbf16>) outs(%y : full tensor<16x64xbf16>) -> tensor<16x64xbf16> attributes {norm.rows_below = 16 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @rows_multiple_negative(%x: tensor<?x64xbf16>, %y: tensor<?x64xbf16>) {
  // expected-error @+1 {{'norm.rows_multiple' must be a positive integer, got -4 : i64}}
  %r = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%y : full tensor<?x64xbf16>) -> tensor<?x64xbf16> attributes {norm.rows_multiple = -4 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @rows_multiple_static_rows(%x: tensor<18x64xbf16>, %y: tensor<18x64xbf16>) {
  // expected-error @+1 {{has 18 rows, not a multiple of its 'norm.rows_multiple' 4}}
  %r = norm.fused ins(%x : full tensor<18x64xbf16>) outs(%y : full tensor<18x64xbf16>) -> tensor<18x64xbf16> attributes {norm.rows_multiple = 4 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @whole_blocks_branch_not_unit(%x: tensor<?x64xbf16>, %y: tensor<?x64xbf16>) {
  // expected-error @+1 {{'norm.whole_blocks_branch' must be a unit attribute, got 4 : i64}}
  %r = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%y : full tensor<?x64xbf16>) -> tensor<?x64xbf16> attributes {norm.whole_blocks_branch = 4 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @vector_width_not_power_of_two(%x: tensor<?x384xbf16>, %y: tensor<?x384xbf16>) {
  // expected-error @+1 {{'norm.vector_width' must be a power of two, got 3 : i64}}
  %r = norm.fused ins(%x : full tensor<?x384xbf16>) outs(%y : full tensor<?x384xbf16>) -> tensor<?x384xbf16> attributes {norm.vector_width = 3 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @vector_width_too_wide(%x: tensor<?x384xbf16>, %y: tensor<?x384xbf16>) {
  // expected-error @+1 {{'norm.vector_width' of 16 elements of 16 bits exceeds a 16-byte vector}}
  %r = norm.fused ins(%x : full tensor<?x384xbf16>) outs(%y : full tensor<?x384xbf16>) -> tensor<?x384xbf16> attributes {norm.vector_width = 16 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @vector_width_not_dividing(%x: tensor<?x100xbf16>, %y: tensor<?x100xbf16>) {
  // expected-error @+1 {{'norm.vector_width' of 8 needs a static row width it divides}}
  %r = norm.fused ins(%x : full tensor<?x100xbf16>) outs(%y : full tensor<?x100xbf16>) -> tensor<?x100xbf16> attributes {norm.vector_width = 8 : i64} {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @rows_per_block_with_split(%x: tensor<16x64xbf16>, %p: tensor<2x64xf32>) {
  // expected-error @+1 {{'norm.rows_per_block' and rows_per_partial both set the rows of a block: give one}}
  %r = norm.fused ins(%x : full tensor<16x64xbf16>) outs(%p : col tensor<2x64xf32>) -> tensor<2x64xf32> attributes {rows_per_partial = 8 : i64, norm.rows_per_block = 4 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    norm.yield %af : f32
  }
  return
}

// -----

func.func @preload_columns_not_streamed(%x: tensor<10x64xbf16>, %w: tensor<64xbf16>, %y: tensor<10x64xbf16>) {
  // expected-error @+1 {{'norm.preload_columns' needs 'norm.stream_rows': only streamed kernels preload columns}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>, %w : col tensor<64xbf16>) outs(%y : full tensor<10x64xbf16>) -> tensor<10x64xbf16> attributes {norm.preload_columns} {
  ^bb0(%a: bf16, %b: bf16):
    %m = arith.mulf %a, %b : bf16
    norm.yield %m : bf16
  }
  return
}

// -----

func.func @preload_columns_not_unit(%x: tensor<10x64xbf16>, %w: tensor<64xbf16>, %y: tensor<10x64xbf16>) {
  // expected-error @+1 {{'norm.preload_columns' must be a unit attribute, got 1 : i64}}
  %r = norm.fused ins(%x : full tensor<10x64xbf16>, %w : col tensor<64xbf16>) outs(%y : full tensor<10x64xbf16>) -> tensor<10x64xbf16> attributes {norm.preload_columns = 1 : i64, norm.stream_rows} {
  ^bb0(%a: bf16, %b: bf16):
    %m = arith.mulf %a, %b : bf16
    norm.yield %m : bf16
  }
  return
}


// -----

// 2^62 rows of 4 bf16: more bytes than 64-bit offsets address.
func.func @past_64_bit_offsets(%x: tensor<4611686018427387904x4xbf16>) {
  // expected-error @+1 {{x: activations of shape [4611686018427387904x4] are past 2^63 bytes, what 64-bit offsets address}}
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4611686018427387904x4xbf16> -> tensor<4611686018427387904x4xbf16>, tensor<4611686018427387904xf32>
  return
}

// -----

// Rows of no elements have no mean: refused before any pass divides by N.
func.func @empty_rows(%x: tensor<?x0xbf16>) {
  // expected-error @+1 {{x: the normalized dimension N must be positive, got 0}}
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<?x0xbf16> -> tensor<?x0xbf16>, tensor<?xf32>
  return
}

// -----

// Rows past 2^40 bytes (kMaxRowBytes), at the user level and the kernel
// level alike: the tuning multiplies row bytes by operand and thread counts.
func.func @rows_past_2_40_bytes(%x: tensor<?x1099511627776xbf16>) {
  // expected-error @+1 {{x: rows of 1099511627776 elements of 2 bytes are longer than 2^40 bytes}}
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<?x1099511627776xbf16> -> tensor<?x1099511627776xbf16>, tensor<?xf32>
  return
}

// -----

func.func @kernel_rows_past_2_40_bytes(%x: memref<?x9223372036854775807xbf16>, %y: memref<?x9223372036854775807xbf16>) {
  // expected-error @+1 {{input #0: rows of 9223372036854775807 elements of 2 bytes are longer than 2^40 bytes}}
  norm.fused ins(%x : full memref<?x9223372036854775807xbf16>) outs(%y : full memref<?x9223372036854775807xbf16>) {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @kernel_partials_past_2_40_bytes(%x: memref<?x549755813888xbf16>, %p: memref<?x549755813888xf32>) {
  // expected-error @+1 {{output #0: rows of 549755813888 elements of 4 bytes are longer than 2^40 bytes}}
  norm.fused ins(%x : full memref<?x549755813888xbf16>) outs(%p : col memref<?x549755813888xf32>) attributes {rows_per_partial = 64 : i64} {
  ^bb0(%a: bf16):
    %f = arith.extf %a : bf16 to f32
    norm.yield %f : f32
  }
  return
}

// -----

func.func @kernel_no_columns(%x: memref<?x0xf32>, %y: memref<?x0xf32>) {
  // expected-error @+1 {{input #0: the normalized dimension N must be positive, got 0}}
  norm.fused ins(%x : full memref<?x0xf32>) outs(%y : full memref<?x0xf32>) {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return
}

// -----

// Elements other than bf16, f16 and f32 are refused by the verifier before
// any attribute check asks for their width (index and complex have none).
func.func @kernel_index_elements(%x: memref<?x64xindex>, %y: memref<?x64xindex>) {
  // expected-error @+1 {{input #0 has element type 'index': expected bf16, f16 or f32}}
  norm.fused ins(%x : full memref<?x64xindex>) outs(%y : full memref<?x64xindex>) attributes {norm.vector_width = 4 : i64} {
  ^bb0(%a: index):
    norm.yield %a : index
  }
  return
}

// -----

func.func @kernel_complex_output(%x: memref<?x64xf32>, %y: memref<?x64xcomplex<f32>>) {
  // expected-error @+1 {{output #0 must be a ranked bf16, f16 or f32 value (f8E4M3FN unless a column output), got 'memref<?x64xcomplex<f32>>'}}
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xcomplex<f32>>) attributes {norm.vector_width = 4 : i64} {
  ^bb0(%a: f32):
    %c = complex.create %a, %a : complex<f32>
    norm.yield %c : complex<f32>
  }
  return
}

// -----

func.func @reduce_i32_input(%x: tensor<?x64xi32>) {
  // expected-error @+1 {{input #0 has element type 'i32': expected bf16, f16 or f32}}
  %s = norm.reduce <row> <add> ins(%x : full tensor<?x64xi32>) -> tensor<?xf32> {
  ^bb0(%e: i32):
    %f = arith.sitofp %e : i32 to f32
    norm.yield %f : f32
  }
  return
}

// -----

// The target attribute's parameters are the tuning rules' own bounds.
// expected-error @+1 {{invalid #norm.target: num_sms must be 1 to 65536, got 0}}
module attributes {norm.target = #norm.target<num_sms = 0, register_budget = 32, max_cluster_size = 16>} {}

// -----

// expected-error @+1 {{invalid #norm.target: register-budget must be 1 to 255 elements a thread, got 256}}
module attributes {norm.target = #norm.target<num_sms = 132, register_budget = 256, max_cluster_size = 16>} {}

// -----

// expected-error @+1 {{invalid #norm.target: max-cluster-size must be 1, 2, 4, 8 or 16}}
module attributes {norm.target = #norm.target<num_sms = 132, register_budget = 32, max_cluster_size = 32>} {}

// -----

// Every norm.* attribute is declared by the dialect; any other is refused.
// expected-error @+1 {{'norm.row_per_block' is not an attribute of the norm dialect}}
func.func @misspelled() attributes {norm.row_per_block = 4 : i64} {
  return
}

// -----

// expected-error @+1 {{invalid #norm.target: max_threads_per_block must be a positive multiple of 32, got 100}}
module attributes {norm.target = #norm.target<num_sms = 132, register_budget = 32, max_cluster_size = 16, max_threads_per_block = 100>} {}

// -----

// A plan belongs on a norm.fused op.
// expected-error @+1 {{'norm.plan' must be a #norm.plan on a norm.fused op}}
func.func @plan_elsewhere() attributes {norm.plan = #norm.plan<kind = row_resident, threads = 128>} {
  return
}

// -----

func.func @plan_bad_threads(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{invalid #norm.plan: threads must be 1 to 1024, got 2048}}
  %y = norm.fused ins(%x : full tensor<?x64xf32>) outs(%x : full tensor<?x64xf32>) -> tensor<?x64xf32> attributes {norm.plan = #norm.plan<kind = row_resident, threads = 2048>} {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return %y : tensor<?x64xf32>
}

// -----

func.func @plan_huge_rows_per_block(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{invalid #norm.plan: chunks_per_thread, column_slices, sweeps_per_step, rows_per_block, l2_prefetch_rows, l2_prefetch_min_rows, num_stages and min_blocks must be at most 2147483647}}
  %y = norm.fused ins(%x : full tensor<?x64xf32>) outs(%x : full tensor<?x64xf32>) -> tensor<?x64xf32> attributes {norm.plan = #norm.plan<kind = row_resident, threads = 64, rows_per_block = 9223372036854775807>} {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return %y : tensor<?x64xf32>
}

// -----

func.func @plan_slices_overflow(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{invalid #norm.plan: threads x vector_width x chunks_per_thread x column_slices must be at most 2^40 elements}}
  %y = norm.fused ins(%x : full tensor<?x64xf32>) outs(%x : full tensor<?x64xf32>) -> tensor<?x64xf32> attributes {norm.plan = #norm.plan<kind = row_resident, threads = 1024, vector_width = 32, chunks_per_thread = 2147483647, column_slices = 2147483647>} {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return %y : tensor<?x64xf32>
}

// -----

func.func @plan_bad_row_groups(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{invalid #norm.plan: row_groups must divide the 96 threads, got 5}}
  %y = norm.fused ins(%x : full tensor<?x64xf32>) outs(%x : full tensor<?x64xf32>) -> tensor<?x64xf32> attributes {norm.plan = #norm.plan<kind = row_resident, threads = 96, row_groups = 5>} {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return %y : tensor<?x64xf32>
}

// -----

func.func @plan_bad_kind(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+2 {{expected ::mlir::norm::KernelKind to be one of: row_resident, cluster, streaming, sliced, off_chip}}
  // expected-error @+1 {{failed to parse Norm_PlanAttr parameter 'kind'}}
  %y = norm.fused ins(%x : full tensor<?x64xf32>) outs(%x : full tensor<?x64xf32>) -> tensor<?x64xf32> attributes {norm.plan = #norm.plan<kind = warp, threads = 64>} {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return %y : tensor<?x64xf32>
}

// -----

func.func @group_without_size(%y: tensor<?x256xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{a 'group' order, role or norm.group_reduce needs a group_size}}
  %a = norm.reduce <group> <max> ins(%y : full tensor<?x256xf32>) -> tensor<?x2xf32> {
  ^bb0(%v: f32):
    norm.yield %v : f32
  }
  return %a : tensor<?x2xf32>
}

// -----

func.func @group_size_not_dividing(%y: tensor<?x256xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{group_size 100 does not divide the row of 256 elements}}
  %a = norm.reduce <group> <max> ins(%y : full tensor<?x256xf32>) {group_size = 100 : i64} -> tensor<?x2xf32> {
  ^bb0(%v: f32):
    norm.yield %v : f32
  }
  return %a : tensor<?x2xf32>
}

// -----

func.func @group_result_shape(%y: tensor<?x256xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{result contradicts order 'group': a 'group' value must have shape [?x2], got [?x4]}}
  %a = norm.reduce <group> <max> ins(%y : full tensor<?x256xf32>) {group_size = 128 : i64} -> tensor<?x4xf32> {
  ^bb0(%v: f32):
    norm.yield %v : f32
  }
  return %a : tensor<?x4xf32>
}

// -----

func.func @group_size_unused(%y: tensor<?x256xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{has a group_size but no 'group' order, role or norm.group_reduce}}
  %a = norm.reduce <row> <max> ins(%y : full tensor<?x256xf32>) {group_size = 128 : i64} -> tensor<?xf32> {
  ^bb0(%v: f32):
    norm.yield %v : f32
  }
  return %a : tensor<?xf32>
}

// -----

func.func @group_map_reads_full(%y: tensor<?x256xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{a 'group' result may only read 'group' and 'row' inputs, but input #0 is 'full'}}
  %a = norm.map <group> ins(%y : full tensor<?x256xf32>) {group_size = 128 : i64} -> tensor<?x2xf32> {
  ^bb0(%v: f32):
    norm.yield %v : f32
  }
  return %a : tensor<?x2xf32>
}

// -----

func.func @group_output_varies(%y: tensor<?x256xf32>, %o: tensor<?x2xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{output #0 is a 'group' output but its value varies along the group (reduce it with norm.group_reduce first)}}
  %s = norm.fused ins(%y : full tensor<?x256xf32>) outs(%o : group tensor<?x2xf32>) -> tensor<?x2xf32> attributes {group_size = 128 : i64} {
  ^bb0(%v: f32):
    norm.yield %v : f32
  }
  return %s : tensor<?x2xf32>
}

// -----

func.func @group_reduce_without_size(%y: tensor<?x256xf32>) -> tensor<?x256xf32> {
  // expected-error @+1 {{a 'group' order, role or norm.group_reduce needs a group_size}}
  %s = norm.fused ins(%y : full tensor<?x256xf32>) outs(%y : full tensor<?x256xf32>) -> tensor<?x256xf32> {
  ^bb0(%v: f32):
    %t = norm.group_reduce <add> %v : f32
    norm.yield %t : f32
  }
  return %s : tensor<?x256xf32>
}
