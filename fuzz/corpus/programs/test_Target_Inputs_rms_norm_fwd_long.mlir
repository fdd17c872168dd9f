func.func @rms_fwd(%x: tensor<?x65536xbf16>, %w: tensor<65536xbf16>) -> (tensor<?x65536xbf16>, tensor<?xf32>) {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<65536xbf16>) {epsilon = 9.99999999999999955e-07 : f64} : tensor<?x65536xbf16> -> tensor<?x65536xbf16>, tensor<?xf32>
  return %y, %rstd : tensor<?x65536xbf16>, tensor<?xf32>
}
