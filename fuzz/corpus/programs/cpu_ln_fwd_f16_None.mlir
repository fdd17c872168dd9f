func.func @ln_fwd(%x_m: memref<?x64xf16>, %y_out: memref<?x64xf16>, %mean_out: memref<?xf32>, %rstd_out: memref<?xf32>) {
  %x = bufferization.to_tensor %x_m restrict : memref<?x64xf16> to tensor<?x64xf16>
  %y, %mean, %rstd = norm.layer_norm %x {epsilon = 9.99999999999999955e-07 : f64} : tensor<?x64xf16> -> tensor<?x64xf16>, tensor<?xf32>, tensor<?xf32>
  bufferization.materialize_in_destination %y in restrict writable %y_out : (tensor<?x64xf16>, memref<?x64xf16>) -> ()
  bufferization.materialize_in_destination %mean in restrict writable %mean_out : (tensor<?xf32>, memref<?xf32>) -> ()
  bufferization.materialize_in_destination %rstd in restrict writable %rstd_out : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}
