func.func @past_64_bit_offsets(%x: tensor<4611686018427387904x4xbf16>) {
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64} : tensor<4611686018427387904x4xbf16> -> tensor<4611686018427387904x4xbf16>, tensor<4611686018427387904xf32>
  return
}
