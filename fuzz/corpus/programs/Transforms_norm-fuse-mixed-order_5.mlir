func.func @yields_captured_constant(%x: tensor<?x64xbf16>) -> tensor<?x64xbf16> {
  %c = arith.constant 2.0 : f32
  %s = norm.reduce <row> <add> ins(%x : full tensor<?x64xbf16>) -> tensor<?xf32> {
  ^bb0(%e: bf16):
    norm.yield %c : f32
  }
  %y = norm.map <full> ins(%x : full tensor<?x64xbf16>, %s : row tensor<?xf32>) -> tensor<?x64xbf16> {
  ^bb0(%e: bf16, %r: f32):
    %t = arith.truncf %r : f32 to bf16
    norm.yield %t : bf16
  }
  return %y : tensor<?x64xbf16>
}
