func.func @rms_fwd(%x: tensor<?x64xf32>, %w: tensor<64xf32>) -> (tensor<?x64xf32>, tensor<?xf32>) {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<64xf32>) {epsilon = 1.0e-6 : f64}
      : tensor<?x64xf32> -> tensor<?x64xf32>, tensor<?xf32>
  return %y, %rstd : tensor<?x64xf32>, tensor<?xf32>
}
