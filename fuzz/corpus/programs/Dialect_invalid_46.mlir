func.func @row_reduce_outside(%v: f32) {
  %r = norm.row_reduce <add> %v : f32
  return
}
