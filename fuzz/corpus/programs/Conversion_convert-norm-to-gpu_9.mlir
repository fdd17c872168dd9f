func.func @reread_cluster_rows(%dy: memref<?x32768xbf16>, %x: memref<?x32768xbf16>, %w: memref<32768xbf16>, %dx: memref<?x32768xbf16>, %pw: memref<?x32768xf32>, %pb: memref<?x32768xf32>, %dw: memref<32768xbf16>, %db: memref<32768xbf16>) {
  norm.fused ins(%dy : full memref<?x32768xbf16>, %x : full memref<?x32768xbf16>, %w : col memref<32768xbf16>) outs(%dx : full memref<?x32768xbf16>, %pw : col memref<?x32768xf32>, %pb : col memref<?x32768xf32>) attributes {rows_per_partial = 32 : i64} {
  ^bb0(%g: bf16, %a: bf16, %v: bf16):
    %gf = arith.extf %g : bf16 to f32
    %af = arith.extf %a : bf16 to f32
    %vf = arith.extf %v : bf16 to f32
    %gw = arith.mulf %gf, %vf : f32
    %m = arith.mulf %gw, %af : f32
    %s = norm.row_reduce <add> %m : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.subf %gw, %d : f32
    %t = arith.truncf %e : f32 to bf16
    %gx = arith.mulf %gf, %af : f32
    norm.yield %t, %gx, %gf : bf16, f32, f32
  }
  norm.combine ins(%pw : memref<?x32768xf32>) outs(%dw : memref<32768xbf16>)
  norm.combine ins(%pb : memref<?x32768xf32>) outs(%db : memref<32768xbf16>)
  return
}
