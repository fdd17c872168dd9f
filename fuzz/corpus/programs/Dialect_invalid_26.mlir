func.func @unknown_order(%x: tensor<4x64xbf16>) {
  %s = norm.reduce <diagonal> <add> ins(%x : full tensor<4x64xbf16>) -> tensor<4xf32> {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}
