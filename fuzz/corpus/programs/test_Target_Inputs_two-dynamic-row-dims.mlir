func.func @rms_3d(%x: tensor<?x?x64xf16>) -> (tensor<?x?x64xf16>, tensor<?x?xf32>) {
  %y, %rstd = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<?x?x64xf16> -> tensor<?x?x64xf16>, tensor<?x?xf32>
  return %y, %rstd : tensor<?x?x64xf16>, tensor<?x?xf32>
}
