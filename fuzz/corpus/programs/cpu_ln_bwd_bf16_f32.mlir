func.func @ln_bwd(%dy_m: memref<?x64xbf16>, %x_m: memref<?x64xbf16>, %mean_m: memref<?xf32>, %rstd_m: memref<?xf32>, %w_m: memref<64xf32>, %dx_out: memref<?x64xbf16>, %dw_out: memref<64xf32>, %db_out: memref<64xf32>) {
  %dy = bufferization.to_tensor %dy_m restrict : memref<?x64xbf16> to tensor<?x64xbf16>
  %x = bufferization.to_tensor %x_m restrict : memref<?x64xbf16> to tensor<?x64xbf16>
  %mean = bufferization.to_tensor %mean_m restrict : memref<?xf32> to tensor<?xf32>
  %rstd = bufferization.to_tensor %rstd_m restrict : memref<?xf32> to tensor<?xf32>
  %w = bufferization.to_tensor %w_m restrict : memref<64xf32> to tensor<64xf32>
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<64xf32>) {has_bias} : tensor<?x64xbf16>, tensor<?x64xbf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x64xbf16> dw tensor<64xf32> db tensor<64xf32>
  bufferization.materialize_in_destination %dx in restrict writable %dx_out : (tensor<?x64xbf16>, memref<?x64xbf16>) -> ()
  bufferization.materialize_in_destination %dw in restrict writable %dw_out : (tensor<64xf32>, memref<64xf32>) -> ()
  bufferization.materialize_in_destination %db in restrict writable %db_out : (tensor<64xf32>, memref<64xf32>) -> ()
  return
}
