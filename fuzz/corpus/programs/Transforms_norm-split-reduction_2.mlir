func.func @attribute_wins(%x: tensor<10x32xf32>) -> tensor<32xf32> {
  %c = norm.reduce <col> <add> ins(%x : full tensor<10x32xf32>) {norm.split_size = 3 : i64} -> tensor<32xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return %c : tensor<32xf32>
}
func.func @forward_untouched(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<16x64xf32> -> tensor<16x64xf32>, tensor<16xf32>
  return %y : tensor<16x64xf32>
}
