func.func @rms_fwd(%x: tensor<?x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>
  return %y : tensor<?x4096xbf16>
}
func.func @rms_fwd_8192(%x: tensor<?x8192xbf16>, %w: tensor<8192xbf16>) -> tensor<?x8192xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<8192xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x8192xbf16> -> tensor<?x8192xbf16>, tensor<?xf32>
  return %y : tensor<?x8192xbf16>
}
func.func @ln_fwd(%x: tensor<?x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x4096xbf16>
}
func.func @ln_fwd_1024(%x: tensor<?x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<?x1024xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x1024xbf16> -> tensor<?x1024xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x1024xbf16>
}
func.func @ln_fwd_512_rows(%x: tensor<512x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<512x1024xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<512x1024xbf16> -> tensor<512x1024xbf16>, tensor<512xf32>, tensor<512xf32>
  return %y : tensor<512x1024xbf16>
}
func.func @ln_fwd_2048_rows(%x: tensor<2048x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<2048x4096xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<2048x4096xbf16> -> tensor<2048x4096xbf16>, tensor<2048xf32>, tensor<2048xf32>
  return %y : tensor<2048x4096xbf16>
}
func.func @rms_fwd_4096_rows(%x: tensor<4096x1000xbf16>, %w: tensor<1000xbf16>) -> tensor<4096x1000xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1000xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<4096x1000xbf16> -> tensor<4096x1000xbf16>, tensor<4096xf32>
  return %y : tensor<4096x1000xbf16>
}
func.func @rms_fwd_3167_rows(%x: tensor<3167x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<3167x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<3167x1024xbf16> -> tensor<3167x1024xbf16>, tensor<3167xf32>
  return %y : tensor<3167x1024xbf16>
}
func.func @rms_fwd_99_rows(%x: tensor<99x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<99x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<99x1024xbf16> -> tensor<99x1024xbf16>, tensor<99xf32>
  return %y : tensor<99x1024xbf16>
}

func.func @rms_fwd_98_rows(%x: tensor<98x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<98x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<98x1024xbf16> -> tensor<98x1024xbf16>, tensor<98xf32>
  return %y : tensor<98x1024xbf16>
}
func.func @rms_fwd_395_rows(%x: tensor<395x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<395x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<395x1024xbf16> -> tensor<395x1024xbf16>, tensor<395xf32>
  return %y : tensor<395x1024xbf16>
}
func.func @rms_fwd_396_rows(%x: tensor<396x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<396x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<396x1024xbf16> -> tensor<396x1024xbf16>, tensor<396xf32>
  return %y : tensor<396x1024xbf16>
}
func.func @rms_fwd_660_rows(%x: tensor<660x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<660x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<660x1024xbf16> -> tensor<660x1024xbf16>, tensor<660xf32>
  return %y : tensor<660x1024xbf16>
}
func.func @rms_fwd_661_rows(%x: tensor<661x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<661x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<661x1024xbf16> -> tensor<661x1024xbf16>, tensor<661xf32>
  return %y : tensor<661x1024xbf16>
}
func.func @rms_fwd_4224_rows(%x: tensor<4224x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<4224x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<4224x1024xbf16> -> tensor<4224x1024xbf16>, tensor<4224xf32>
  return %y : tensor<4224x1024xbf16>
}
func.func @rms_fwd_4752_rows(%x: tensor<4752x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<4752x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<4752x1024xbf16> -> tensor<4752x1024xbf16>, tensor<4752xf32>
  return %y : tensor<4752x1024xbf16>
}
func.func @rms_fwd_6144_rows(%x: tensor<6144x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<6144x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<6144x1024xbf16> -> tensor<6144x1024xbf16>, tensor<6144xf32>
  return %y : tensor<6144x1024xbf16>
}
func.func @rms_fwd_16895_rows(%x: tensor<16895x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<16895x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<16895x1024xbf16> -> tensor<16895x1024xbf16>, tensor<16895xf32>
  return %y : tensor<16895x1024xbf16>
}
func.func @rms_fwd_16896_rows(%x: tensor<16896x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<16896x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<16896x1024xbf16> -> tensor<16896x1024xbf16>, tensor<16896xf32>
  return %y : tensor<16896x1024xbf16>
}
func.func @rms_fwd_1000(%x: tensor<?x1000xbf16>, %w: tensor<1000xbf16>) -> tensor<?x1000xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1000xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x1000xbf16> -> tensor<?x1000xbf16>, tensor<?xf32>
  return %y : tensor<?x1000xbf16>
}
func.func @rms_fwd_1024(%x: tensor<?x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<?x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x1024xbf16> -> tensor<?x1024xbf16>, tensor<?xf32>
  return %y : tensor<?x1024xbf16>
}
func.func @ln_fwd_1024_stats(%x: tensor<?x1024xbf16>, %w: tensor<1024xbf16>) -> (tensor<?x1024xbf16>, tensor<?xf32>, tensor<?xf32>) {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x1024xbf16> -> tensor<?x1024xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y, %mean, %rstd : tensor<?x1024xbf16>, tensor<?xf32>, tensor<?xf32>
}
func.func @ln_fwd_768(%x: tensor<?x768xbf16>, %w: tensor<768xbf16>, %b: tensor<768xbf16>) -> tensor<?x768xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<768xbf16>) bias(%b : tensor<768xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x768xbf16> -> tensor<?x768xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x768xbf16>
}
func.func @rms_fwd_768_stats(%x: tensor<?x768xbf16>, %w: tensor<768xbf16>) -> (tensor<?x768xbf16>, tensor<?xf32>) {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<768xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x768xbf16> -> tensor<?x768xbf16>, tensor<?xf32>
  return %y, %rstd : tensor<?x768xbf16>, tensor<?xf32>
}
func.func @rms_fwd_256(%x: tensor<?x256xbf16>, %w: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<256xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x256xbf16> -> tensor<?x256xbf16>, tensor<?xf32>
  return %y : tensor<?x256xbf16>
}
func.func @rms_fwd_256_static(%x: tensor<4096x256xbf16>, %w: tensor<256xbf16>) -> tensor<4096x256xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<256xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<4096x256xbf16> -> tensor<4096x256xbf16>, tensor<4096xf32>
  return %y : tensor<4096x256xbf16>
}
func.func @ln_fwd_256(%x: tensor<?x256xbf16>, %w: tensor<256xbf16>, %b: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<256xbf16>) bias(%b : tensor<256xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x256xbf16> -> tensor<?x256xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x256xbf16>
}
func.func @ln_fwd_512(%x: tensor<?x512xbf16>, %w: tensor<512xbf16>, %b: tensor<512xbf16>) -> tensor<?x512xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<512xbf16>) bias(%b : tensor<512xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x512xbf16> -> tensor<?x512xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x512xbf16>
}
func.func @ln_fwd_384(%x: tensor<?x384xbf16>, %w: tensor<384xbf16>, %b: tensor<384xbf16>) -> tensor<?x384xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<384xbf16>) bias(%b : tensor<384xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x384xbf16> -> tensor<?x384xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x384xbf16>
}
func.func @rms_bwd_12288(%dy: tensor<?x12288xbf16>, %x: tensor<?x12288xbf16>, %rstd: tensor<?xf32>,
                         %w: tensor<12288xbf16>) -> (tensor<?x12288xbf16>, tensor<12288xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<12288xbf16>)
      : tensor<?x12288xbf16>, tensor<?x12288xbf16>, tensor<?xf32> -> tensor<?x12288xbf16>, tensor<12288xbf16>
  return %dx, %dw : tensor<?x12288xbf16>, tensor<12288xbf16>
}
func.func @rms_bwd_wide(%dy: tensor<?x65536xbf16>, %x: tensor<?x65536xbf16>, %rstd: tensor<?xf32>,
                        %w: tensor<65536xbf16>) -> (tensor<?x65536xbf16>, tensor<65536xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<65536xbf16>)
      : tensor<?x65536xbf16>, tensor<?x65536xbf16>, tensor<?xf32> -> tensor<?x65536xbf16>, tensor<65536xbf16>
  return %dx, %dw : tensor<?x65536xbf16>, tensor<65536xbf16>
}
