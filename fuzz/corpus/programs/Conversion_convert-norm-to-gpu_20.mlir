func.func @columns_after_producer(%x: memref<?x1024xbf16>, %y: memref<?x1024xbf16>, %dw: memref<1024xbf16>) {
  norm.fused ins(%x : full memref<?x1024xbf16>) outs(%y : full memref<?x1024xbf16>) {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  norm.fused ins(%y : full memref<?x1024xbf16>) outs(%dw : col memref<1024xbf16>) attributes {norm.whole_columns} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    norm.yield %af : f32
  }
  return
}
