func.func @dyn(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<?x?xf32> -> tensor<?x?xf32>, tensor<?xf32>
  return %y : tensor<?x?xf32>
}
