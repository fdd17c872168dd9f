// Kernels that use Hopper's instructions where the target has them (the
// split kernel's dependent launch, staged rows, an FP8 conversion), for
// convert-norm-to-gpu.mlir's compute-capability-80 run.
func.func @bwd(%dy: memref<?x4096xbf16>, %x: memref<?x4096xbf16>, %dx: memref<?x4096xbf16>, %p: memref<?x4096xf32>, %dw: memref<4096xbf16>) {
  norm.fused ins(%dy : full memref<?x4096xbf16>, %x : full memref<?x4096xbf16>) outs(%dx : full memref<?x4096xbf16>, %p : col memref<?x4096xf32>) attributes {rows_per_partial = 64 : i64} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %m = arith.mulf %af, %bf : f32
    %s = norm.row_reduce <add> %m : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %m : bf16, f32
  }
  norm.combine ins(%p : memref<?x4096xf32>) outs(%dw : memref<4096xbf16>)
  return
}

func.func @fp8_output(%x: memref<?x64xf32>, %y: memref<?x64xf8E4M3FN>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xf8E4M3FN>) {
  ^bb0(%a: f32):
    %t = arith.truncf %a : f32 to f8E4M3FN
    norm.yield %t : f8E4M3FN
  }
  return
}

// Rows no block holds with one row reduction and a column output (an
// RMSNorm backward at N = 65536), which a block group shares on this target.
func.func @long_bwd(%dy: memref<?x65536xbf16>, %x: memref<?x65536xbf16>, %dx: memref<?x65536xbf16>, %p: memref<?x65536xf32>, %dw: memref<65536xbf16>) {
  norm.fused ins(%dy : full memref<?x65536xbf16>, %x : full memref<?x65536xbf16>) outs(%dx : full memref<?x65536xbf16>, %p : col memref<?x65536xf32>) attributes {rows_per_partial = 32 : i64} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %m = arith.mulf %af, %bf : f32
    %s = norm.row_reduce <add> %m : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %m : bf16, f32
  }
  norm.combine ins(%p : memref<?x65536xf32>) outs(%dw : memref<65536xbf16>)
  return
}
