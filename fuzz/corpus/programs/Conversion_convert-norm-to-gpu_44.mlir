func.func @whole_columns_with_row_reduce(%x: memref<?x1024xbf16>, %dw: memref<1024xbf16>) {
  norm.fused ins(%x : full memref<?x1024xbf16>) outs(%dw : col memref<1024xbf16>) attributes {norm.whole_columns} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %v = arith.mulf %af, %s : f32
    norm.yield %v : f32
  }
  return
}
