func.func @reduce_arg_type(%x: tensor<4x64xbf16>) {
  %s = norm.reduce <row> <add> ins(%x : full tensor<4x64xbf16>) -> tensor<4xf32> {
  ^bb0(%e: f32):
    norm.yield %e : f32
  }
  return
}
