func.func @reduce_input_shape(%x: tensor<4x64xbf16>, %w: tensor<32xbf16>) {
  %s = norm.reduce <row> <add> ins(%x : full tensor<4x64xbf16>, %w : col tensor<32xbf16>) -> tensor<4xf32> {
  ^bb0(%e: bf16, %v: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}
