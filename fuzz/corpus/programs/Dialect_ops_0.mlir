func.func @rms_norm(%x: tensor<?x4096xbf16>, %w: tensor<4096xf32>) -> (tensor<?x4096xbf16>, tensor<?xf32>) {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<4096xf32>) {epsilon = 1.0e-6 : f64, weight_offset = 1.0 : f64}
      : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>
  return %y, %rstd : tensor<?x4096xbf16>, tensor<?xf32>
}

func.func @rms_norm_no_weight_3d(%x: tensor<2x3x64xf16>) -> (tensor<2x3x64xf16>, tensor<2x3xf32>) {
  %y, %rstd = norm.rms_norm %x {epsilon = 1.0e-5 : f64} : tensor<2x3x64xf16> -> tensor<2x3x64xf16>, tensor<2x3xf32>
  return %y, %rstd : tensor<2x3x64xf16>, tensor<2x3xf32>
}

func.func @layer_norm(%x: tensor<8x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<8x1024xf32> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1024xf32>) bias(%b : tensor<1024xf32>) {epsilon = 1.0e-5 : f64}
      : tensor<8x1024xf32> -> tensor<8x1024xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8x1024xf32>
}

func.func @grads(%dy: tensor<?x512xbf16>, %x: tensor<?x512xbf16>, %mean: tensor<?xf32>, %rstd: tensor<?xf32>, %w: tensor<512xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<512xbf16>)
      : tensor<?x512xbf16>, tensor<?x512xbf16>, tensor<?xf32> -> tensor<?x512xbf16>, tensor<512xbf16>
  %dx2 = norm.rms_norm_grad %dy, %x, %rstd : tensor<?x512xbf16>, tensor<?x512xbf16>, tensor<?xf32> -> tensor<?x512xbf16>
  %dx3, %dw3, %db3 = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<512xbf16>) {has_bias}
      : tensor<?x512xbf16>, tensor<?x512xbf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x512xbf16> dw tensor<512xbf16> db tensor<512xbf16>
  return
}

func.func @order_typed(%x: tensor<?x64xbf16>, %w: tensor<64xbf16>) -> (tensor<?xf32>, tensor<64xf32>, tensor<?x64xbf16>) {
  %s = norm.reduce <row> <add> ins(%x : full tensor<?x64xbf16>) -> tensor<?xf32> {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  %c = norm.reduce <col> <max> ins(%x : full tensor<?x64xbf16>, %w : col tensor<64xbf16>) -> tensor<64xf32> {
  ^bb0(%e: bf16, %v: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  %y = norm.map <full> ins(%x : full tensor<?x64xbf16>, %s : row tensor<?xf32>) -> tensor<?x64xbf16> {
  ^bb0(%e: bf16, %r: f32):
    %f = arith.extf %e : bf16 to f32
    %m = arith.mulf %f, %r : f32
    %t = arith.truncf %m : f32 to bf16
    norm.yield %t : bf16
  }
  return %s, %c, %y : tensor<?xf32>, tensor<64xf32>, tensor<?x64xbf16>
}

func.func @min_rows_per_partial(%x: tensor<10x64xbf16>, %p: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<2x64xf32>) -> tensor<2x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 4 : i64, min_rows_per_partial = 5 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return %r : tensor<2x64xf32>
}

func.func @min_rows_per_partial_yields(%x: tensor<10x64xbf16>, %p: tensor<10x64xf32>) -> tensor<10x64xf32> {
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<10x64xf32>) -> tensor<10x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 40 : i64, min_rows_per_partial = 5 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return %r : tensor<10x64xf32>
}

func.func @max_partials(%x: tensor<100x64xbf16>, %p: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %r = norm.fused ins(%x : full tensor<100x64xbf16>) outs(%p : col tensor<8x64xf32>) -> tensor<8x64xf32> attributes {rows_per_partial = 2 : i64, min_partials = 4 : i64, max_partials = 8 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return %r : tensor<8x64xf32>
}

func.func @min_partials(%x: tensor<10x64xbf16>, %p: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %r = norm.fused ins(%x : full tensor<10x64xbf16>) outs(%p : col tensor<4x64xf32>) -> tensor<4x64xf32> attributes {rows_per_partial = 8 : i64, min_partials = 4 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return %r : tensor<4x64xf32>
}

func.func @kernels(%x: tensor<?x64xbf16>, %o: tensor<?x64xbf16>, %p: tensor<?x64xf32>, %d: tensor<64xbf16>) -> (tensor<?x64xbf16>, tensor<64xbf16>) {
  %r:2 = norm.fused ins(%x : full tensor<?x64xbf16>) outs(%o : full tensor<?x64xbf16>, %p : col tensor<?x64xf32>)
      -> tensor<?x64xbf16>, tensor<?x64xf32> attributes {rows_per_partial = 16 : i64} {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    %s = norm.row_reduce <add> %f : f32
    %m = arith.mulf %f, %s : f32
    %t = arith.truncf %m : f32 to bf16
    norm.yield %t, %f : bf16, f32
  }
  %dw = norm.combine ins(%r#1 : tensor<?x64xf32>) outs(%d : tensor<64xbf16>) -> tensor<64xbf16>
  return %r#0, %dw : tensor<?x64xbf16>, tensor<64xbf16>
}

func.func @kernels_on_memrefs(%x: memref<?x64xbf16>, %y: memref<?x64xbf16>, %p: memref<?x64xf32>, %d: memref<64xf32>) {
  norm.fused ins(%x : full memref<?x64xbf16>) outs(%y : full memref<?x64xbf16>) {
  ^bb0(%e: bf16):
    norm.yield %e : bf16
  }
  norm.combine ins(%p : memref<?x64xf32>) outs(%d : memref<64xf32>)
  return
}

func.func @attributes() attributes {norm.order = #norm.order<col>, norm.role = #norm.role<row>, norm.combiner = #norm.combiner<max>} {
  return
}
