func.func @ln_fwd(%x: tensor<8x32xf32>, %w: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %y, %m, %r = norm.layer_norm %x weight(%w : tensor<32xf32>) bias(%b : tensor<32xf32>) {epsilon = 1.0e-5 : f64}
      : tensor<8x32xf32> -> tensor<8x32xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<8x32xf32>
}
