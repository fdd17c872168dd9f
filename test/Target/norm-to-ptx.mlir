// The registered pipeline from user-level IR to a gpu.binary holding PTX.
// RUN: norm-opt %s --norm-to-ptx | FileCheck %s
// RUN: norm-opt %S/Inputs/two-dynamic-row-dims.mlir --norm-to-ptx | FileCheck %s --check-prefix=TWOROWDIMS
// An empty chip once crashed upstream's target verification.
// RUN: not norm-opt %s --norm-to-ptx="chip=" 2>&1 | FileCheck %s --check-prefix=EMPTYCHIP
// EMPTYCHIP: error: norm-attach-target: chip must be sm_80 {{.*}}got ''
// EMPTYCHIP-NOT: Stack dump
// TWOROWDIMS: gpu.binary @norm_fused
// sm_80: the kernels plan for an A100 (compute capability 80, from the
// chip) and use none of Hopper's instructions; an older PTX version than
// the kernels need is an error, not PTX ptxas rejects.
// RUN: norm-opt %s --norm-to-ptx="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: not norm-opt %s --norm-to-ptx="chip=sm_80 features=+ptx75" 2>&1 | FileCheck %s --check-prefix=SM80OLD
// RUN: norm-opt %s --norm-to-ptx="chip=sm_90a features=+ptx90" | FileCheck %s --check-prefix=SM90A
// A hand-written gpu.launch is outlined, then given the target like the
// norm kernels (it was outlined after the target was attached, and had none).
// RUN: norm-opt %S/Inputs/gpu-launch.mlir --norm-to-ptx | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: gpu.binary @f_kernel {{.*}}#nvvm.target<{{.*}}chip = "sm_90"
// LAUNCH-SAME: .entry f_kernel(

// CHECK: llvm.func @rms_fwd
// One binary per kernel (norm-serialize-kernels): the streamed kernels of
// the RMSNorm forward at N = 2048 (norm-short-rows: the row, one vector a
// thread, loaded once with an L2 hint and kept in registers; two rows a
// block from past one wave of one-row blocks, with registers for as many
// blocks an SM, then a row a block), then the row-resident kernel of the
// forward at N = 5120.
// CHECK: gpu.binary @norm_fused {{.*}}#nvvm.target<{{.*}}chip = "sm_90", features = "+ptx81">
// CHECK-SAME: .target sm_90
// CHECK-SAME: .entry norm_fused(
// CHECK-SAME: .minnctapersm 8
// CHECK-SAME: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// rstd by the approximate reciprocal square root (as CUDA's rsqrtf), not
// sqrt.rn and a division; its ftz form, exact for a mean square + 1e-6.
// CHECK-SAME: rsqrt.approx.ftz.f32
// CHECK-NOT: sqrt.rn.f32
// CHECK: gpu.binary @norm_fused_0 {{.*}}#nvvm.target<{{.*}}chip = "sm_90"
// CHECK-SAME: .entry norm_fused_0(
// CHECK-SAME: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK-NOT: sqrt.rn.f32
// CHECK: gpu.binary @norm_fused_1 {{.*}}#nvvm.target<{{.*}}chip = "sm_90"
// CHECK-SAME: .entry norm_fused_1(
// CHECK-SAME: ld.global.v4.b32
// CHECK-NOT: sqrt.rn.f32
// SM80: gpu.binary @norm_fused {{.*}}#nvvm.target<{{.*}}chip = "sm_80", features = "+ptx81">
// SM80-SAME: .target sm_80
// SM80-NOT: griddepcontrol
// SM80-NOT: cp.async.bulk
// SM80-NOT: cluster
// SM80OLD: error: norm-attach-target: features must name one PTX ISA version that the kernels can use on sm_80 and LLVM knows: +ptx81
// SM90A: .version 9.0
// SM90A-SAME: .target sm_90a
func.func @rms_fwd(%x: tensor<?x2048xbf16>, %w: tensor<2048xbf16>) -> (tensor<?x2048xbf16>, tensor<?xf32>) {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<2048xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x2048xbf16> -> tensor<?x2048xbf16>, tensor<?xf32>
  return %y, %rstd : tensor<?x2048xbf16>, tensor<?xf32>
}
func.func @rms_fwd_5120(%x: tensor<?x5120xbf16>, %w: tensor<5120xbf16>) -> (tensor<?x5120xbf16>, tensor<?xf32>) {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<5120xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x5120xbf16> -> tensor<?x5120xbf16>, tensor<?xf32>
  return %y, %rstd : tensor<?x5120xbf16>, tensor<?xf32>
}
