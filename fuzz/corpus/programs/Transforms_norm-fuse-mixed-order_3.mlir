func.func @reads_column_result(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %c = norm.reduce <col> <add> ins(%x : full tensor<8x32xf32>) -> tensor<32xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  %y = norm.map <full> ins(%x : full tensor<8x32xf32>, %c : col tensor<32xf32>) -> tensor<8x32xf32> {
  ^bb0(%e: f32, %s: f32):
    %d = arith.divf %e, %s : f32
    norm.yield %d : f32
  }
  return %y : tensor<8x32xf32>
}
