func.func @rank1(%x: tensor<64xbf16>) {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<64xbf16> -> tensor<64xbf16>, tensor<f32>
  return
}
