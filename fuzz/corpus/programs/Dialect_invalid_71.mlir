func.func @kernel_index_elements(%x: memref<?x64xindex>, %y: memref<?x64xindex>) {
  norm.fused ins(%x : full memref<?x64xindex>) outs(%y : full memref<?x64xindex>) attributes {norm.vector_width = 4 : i64} {
  ^bb0(%a: index):
    norm.yield %a : index
  }
  return
}
