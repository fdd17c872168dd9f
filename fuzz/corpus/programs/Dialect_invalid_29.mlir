func.func @fused_row_output_varies(%x: tensor<4x64xbf16>, %o: tensor<4xf32>) {
  %r = norm.fused ins(%x : full tensor<4x64xbf16>) outs(%o : row tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%e: bf16):
    %f = arith.extf %e : bf16 to f32
    norm.yield %f : f32
  }
  return
}
