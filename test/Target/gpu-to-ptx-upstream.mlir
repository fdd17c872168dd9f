// buildGPUToPTXPipeline leaves out passes of upstream's
// gpu-lower-to-nvvm-pipeline whose work the kernels do not need or that the
// NVVM and host conversions already do, and canonicalizes the kernels in one
// sweep (its comment says what and why). Its PTX stays byte-identical to
// upstream's arrangement of the passes, run here by name after norm-to-gpu
// with norm-serialize-kernels in gpu-module-to-binary's place: for the
// LayerNorm backward (streamed, persistent and column kernels, bulk copies,
// the finishing reduction), the RMSNorm forward (short rows) and a long-row
// backward (thread block clusters, and the pair of kernels below 96 rows).
// DEFINE: %{upstream} = --pass-pipeline="builtin.module(nvvm-attach-target{chip=sm_90 features=+ptx81 O=3},gpu-kernel-outlining,any(convert-nvgpu-to-nvvm,convert-vector-to-scf,convert-scf-to-cf,convert-nvvm-to-llvm),convert-func-to-llvm,any(expand-strided-metadata,lower-affine,convert-arith-to-llvm,convert-index-to-llvm{index-bitwidth=64}),gpu.module(convert-gpu-to-nvvm{index-bitwidth=64},canonicalize,cse,reconcile-unrealized-casts),gpu-to-llvm,norm-serialize-kernels{format=isa},convert-math-to-llvm,canonicalize,cse,reconcile-unrealized-casts)"
// RUN: norm-opt %norm_src/examples/layer_norm_bwd.mlir --norm-to-ptx | grep gpu.binary > %t.ln_bwd.cut
// RUN: norm-opt %norm_src/examples/layer_norm_bwd.mlir --norm-to-gpu | norm-opt %{upstream} | grep gpu.binary > %t.ln_bwd.upstream
// RUN: diff %t.ln_bwd.cut %t.ln_bwd.upstream
// RUN: norm-opt %norm_src/examples/rms_norm_fwd.mlir --norm-to-ptx | grep gpu.binary > %t.rms_fwd.cut
// RUN: norm-opt %norm_src/examples/rms_norm_fwd.mlir --norm-to-gpu | norm-opt %{upstream} | grep gpu.binary > %t.rms_fwd.upstream
// RUN: diff %t.rms_fwd.cut %t.rms_fwd.upstream
// RUN: norm-opt %S/Inputs/layer_norm_bwd_long.mlir --norm-to-ptx | grep gpu.binary > %t.long.cut
// RUN: norm-opt %S/Inputs/layer_norm_bwd_long.mlir --norm-to-gpu | norm-opt %{upstream} | grep gpu.binary > %t.long.upstream
// RUN: diff %t.long.cut %t.long.upstream
// The comparison is of every kernel: one binary each.
// RUN: FileCheck %s --check-prefix=LNBWD < %t.ln_bwd.cut
// LNBWD-COUNT-5: gpu.binary @norm_
// LNBWD-NOT: gpu.binary
// RUN: FileCheck %s --check-prefix=LONG < %t.long.cut
// LONG-COUNT-5: gpu.binary @norm_
// LONG-NOT: gpu.binary
