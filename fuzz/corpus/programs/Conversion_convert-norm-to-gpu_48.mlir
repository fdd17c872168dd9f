func.func @rows_off_chip(%x: memref<?x2147483648xbf16>, %y: memref<?x2147483648xbf16>, %p: memref<?x2147483648xf32>) {
  norm.fused ins(%x : full memref<?x2147483648xbf16>) outs(%y : full memref<?x2147483648xbf16>, %p : col memref<?x2147483648xf32>) attributes {rows_per_partial = 64 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %d : bf16, f32
  }
  return
}
