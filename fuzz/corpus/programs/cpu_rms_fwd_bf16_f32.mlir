func.func @rms_fwd(%x_m: memref<?x64xbf16>, %w_m: memref<64xf32>, %y_out: memref<?x64xbf16>, %rstd_out: memref<?xf32>) {
  %x = bufferization.to_tensor %x_m restrict : memref<?x64xbf16> to tensor<?x64xbf16>
  %w = bufferization.to_tensor %w_m restrict : memref<64xf32> to tensor<64xf32>
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<64xf32>) {epsilon = 9.99999999999999955e-07 : f64} : tensor<?x64xbf16> -> tensor<?x64xbf16>, tensor<?xf32>
  bufferization.materialize_in_destination %y in restrict writable %y_out : (tensor<?x64xbf16>, memref<?x64xbf16>) -> ()
  bufferization.materialize_in_destination %rstd in restrict writable %rstd_out : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}
