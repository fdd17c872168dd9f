func.func @rms_bwd(%dy_m: memref<?x64xf16>, %x_m: memref<?x64xf16>, %rstd_m: memref<?xf32>, %dx_out: memref<?x64xf16>) {
  %dy = bufferization.to_tensor %dy_m restrict : memref<?x64xf16> to tensor<?x64xf16>
  %x = bufferization.to_tensor %x_m restrict : memref<?x64xf16> to tensor<?x64xf16>
  %rstd = bufferization.to_tensor %rstd_m restrict : memref<?xf32> to tensor<?xf32>
  %dx = norm.rms_norm_grad %dy, %x, %rstd : tensor<?x64xf16>, tensor<?x64xf16>, tensor<?xf32> -> tensor<?x64xf16>
  bufferization.materialize_in_destination %dx in restrict writable %dx_out : (tensor<?x64xf16>, memref<?x64xf16>) -> ()
  return
}
