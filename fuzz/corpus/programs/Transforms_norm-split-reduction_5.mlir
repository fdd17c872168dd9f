func.func @reread_cluster_wave(%dy: tensor<?x32768xbf16>, %x: tensor<?x32768xbf16>, %mean: tensor<?xf32>, %rstd: tensor<?xf32>, %w: tensor<32768xbf16>) -> (tensor<?x32768xbf16>, tensor<32768xbf16>, tensor<32768xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<32768xbf16>) {has_bias} : tensor<?x32768xbf16>, tensor<?x32768xbf16>, tensor<?xf32>, tensor<?xf32> -> tensor<?x32768xbf16> dw tensor<32768xbf16> db tensor<32768xbf16>
  return %dx, %dw, %db : tensor<?x32768xbf16>, tensor<32768xbf16>, tensor<32768xbf16>
}
