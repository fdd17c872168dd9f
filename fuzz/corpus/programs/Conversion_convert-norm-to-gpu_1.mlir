func.func @bwd_row_inputs(%dy: memref<?x4096xbf16>, %x: memref<?x4096xbf16>, %rstd: memref<?xf32>, %dx: memref<?x4096xbf16>, %p: memref<?x4096xf32>, %dw: memref<4096xbf16>) {
  norm.fused ins(%dy : full memref<?x4096xbf16>, %x : full memref<?x4096xbf16>, %rstd : row memref<?xf32>) outs(%dx : full memref<?x4096xbf16>, %p : col memref<?x4096xf32>) attributes {rows_per_partial = 64 : i64} {
  ^bb0(%a: bf16, %b: bf16, %r: f32):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %xh = arith.mulf %bf, %r : f32
    %m = arith.mulf %af, %xh : f32
    %s = norm.row_reduce <add> %m : f32
    %d = arith.mulf %r, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %m : bf16, f32
  }
  norm.combine ins(%p : memref<?x4096xf32>) outs(%dw : memref<4096xbf16>)
  return
}
