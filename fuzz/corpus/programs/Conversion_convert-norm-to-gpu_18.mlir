func.func @side_by_side(%dy: memref<?x1024xbf16>, %x: memref<?x1024xbf16>, %rstd: memref<?xf32>, %w: memref<1024xbf16>,
                        %dx: memref<?x1024xbf16>, %dw: memref<1024xbf16>) {
  norm.fused ins(%dy : full memref<?x1024xbf16>, %x : full memref<?x1024xbf16>, %rstd : row memref<?xf32>, %w : col memref<1024xbf16>) outs(%dx : full memref<?x1024xbf16>) {
  ^bb0(%g: bf16, %a: bf16, %r: f32, %wt: bf16):
    %gf = arith.extf %g : bf16 to f32
    %wf = arith.extf %wt : bf16 to f32
    %gw = arith.mulf %gf, %wf : f32
    %af = arith.extf %a : bf16 to f32
    %xh = arith.mulf %af, %r : f32
    %p = arith.mulf %gw, %xh : f32
    %s = norm.row_reduce <add> %p : f32
    %d = arith.mulf %xh, %s : f32
    %e = arith.subf %gw, %d : f32
    %f = arith.mulf %r, %e : f32
    %t = arith.truncf %f : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%dy : full memref<?x1024xbf16>, %x : full memref<?x1024xbf16>, %rstd : row memref<?xf32>) outs(%dw : col memref<1024xbf16>) attributes {norm.whole_columns} {
  ^bb0(%g: bf16, %a: bf16, %r: f32):
    %af = arith.extf %a : bf16 to f32
    %xh = arith.mulf %af, %r : f32
    %gf = arith.extf %g : bf16 to f32
    %v = arith.mulf %gf, %xh : f32
    norm.yield %v : f32
  }
  return
}
