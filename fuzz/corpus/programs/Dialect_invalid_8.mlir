func.func @epsilon_nan(%x: tensor<4x64xbf16>) {
  %y, %r = norm.rms_norm %x {epsilon = 0x7FF8000000000000 : f64} : tensor<4x64xbf16> -> tensor<4x64xbf16>, tensor<4xf32>
  return
}
