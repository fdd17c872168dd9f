func.func @strided_guarded_rows(%m: memref<?x8xf32>, %o: memref<?x8xf32>, %b: index, %g: index, %count: index, %inside: i1) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  scf.for %k = %c0 to %count step %c1 {
    %stride = arith.muli %k, %g : index
    %row = arith.addi %b, %stride : index
    %v = scf.if %inside -> (f32) {
      %l = memref.load %m[%row, %c0] : memref<?x8xf32>
      scf.yield %l : f32
    } else {
      scf.yield %zero : f32
    } {norm.prefetch}
    %w = arith.addf %v, %v : f32
    memref.store %w, %o[%row, %c0] : memref<?x8xf32>
  } {norm.row_loop}
  return
}
