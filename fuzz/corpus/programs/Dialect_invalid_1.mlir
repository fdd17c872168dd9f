func.func @bad_dtype(%x: tensor<4x64xf64>) {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4x64xf64> -> tensor<4x64xf64>, tensor<4xf32>
  return
}
