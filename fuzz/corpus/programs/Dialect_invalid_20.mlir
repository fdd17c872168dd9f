func.func @reduce_square_roles(%x: tensor<64x64xbf16>, %r: tensor<64xf32>) {
  %s = norm.reduce <row> <add> ins(%x : full tensor<64x64xbf16>, %x : row tensor<64x64xbf16>) -> tensor<64xf32> {
  ^bb0(%e: bf16, %g: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}
