func.func @reduce_i32_input(%x: tensor<?x64xi32>) {
  %s = norm.reduce <row> <add> ins(%x : full tensor<?x64xi32>) -> tensor<?xf32> {
  ^bb0(%e: i32):
    %f = arith.sitofp %e : i32 to f32
    norm.yield %f : f32
  }
  return
}
