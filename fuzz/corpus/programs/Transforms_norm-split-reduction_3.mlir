func.func @zero_split(%x: tensor<10x32xf32>) -> tensor<32xf32> {
  %c = norm.reduce <col> <add> ins(%x : full tensor<10x32xf32>) {norm.split_size = 0 : i64} -> tensor<32xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return %c : tensor<32xf32>
}
