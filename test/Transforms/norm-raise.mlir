// RUN: norm-opt %s --norm-raise --split-input-file --verify-diagnostics | FileCheck %s
// The IR torch-mlir makes of PyTorch's norms and of two transformer blocks
// (Inputs/external/generate.py): every norm is raised, nothing else.
// RUN: norm-opt %S/Inputs/external/rms_norm_f32.mlir --norm-raise | FileCheck %s --check-prefix=RMS32
// RUN: norm-opt %S/Inputs/external/rms_norm_bf16.mlir --norm-raise | FileCheck %s --check-prefix=RMSBF16
// RUN: norm-opt %S/Inputs/external/layer_norm_f32.mlir --norm-raise | FileCheck %s --check-prefix=LN32
// RUN: norm-opt %S/Inputs/external/llama_block.mlir --norm-raise --verify-diagnostics | FileCheck %s --check-prefix=LLAMA
// RUN: norm-opt %S/Inputs/external/bert_block.mlir --norm-raise --verify-diagnostics | FileCheck %s --check-prefix=BERT

// The pipelines raise first with raise=true: a host compiler's module keeps
// its own work (the matmuls, bufferized) and gets norm's kernels as
// gpu.launch_func.
// RUN: norm-opt %S/Inputs/external/llama_block.mlir --norm-to-gpu="raise=true" | FileCheck %s --check-prefix=HOST
// HOST: linalg.batch_matmul ins({{.+}} : memref<
// HOST: gpu.launch_func @norm_fused::@norm_fused
// HOST: linalg.batch_matmul
// HOST: gpu.launch_func @norm_fused_0::@norm_fused_0
// HOST: linalg.batch_matmul
// HOST-NOT: gpu.launch_func
// HOST-NOT: norm.rms_norm
// HOST: gpu.module @norm_fused
// HOST: gpu.module @norm_fused_0
// The host then turns the kernels into PTX with its GPU lowering (here the
// kernel half of norm-to-ptx) and norm-serialize-kernels, its own ops left
// as they are.
// RUN: norm-opt %S/Inputs/external/llama_block.mlir --pass-pipeline="builtin.module(norm-to-gpu{raise=true},norm-attach-target,gpu.module(convert-nvgpu-to-nvvm,convert-scf-to-cf,convert-nvvm-to-llvm,expand-strided-metadata,lower-affine,convert-gpu-to-nvvm{index-bitwidth=64},canonicalize,cse,reconcile-unrealized-casts),norm-serialize-kernels)" | FileCheck %s --check-prefix=HOSTPTX
// HOSTPTX: linalg.batch_matmul
// HOSTPTX: gpu.launch_func @norm_fused::@norm_fused
// HOSTPTX-COUNT-2: gpu.binary @norm_fused{{(_0)?}} [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx81">{{.*}}.entry norm_fused

// Gated DeltaNet's L2 norm becomes norm's order-typed ops over the rows
// collapsed to 16 x 64; torch's F.normalize (a clamped pow(sum, 1/2)) is a
// near miss, refused with a remark.
// RUN: norm-opt %S/Inputs/external/l2_norm_f32.mlir --norm-raise | FileCheck %s --check-prefix=L2
// RUN: norm-opt %S/Inputs/external/normalize_f32.mlir --norm-raise 2>&1 | FileCheck %s --check-prefix=NORMALIZE
// L2: %[[X:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<2x8x64xf32> into tensor<16x64xf32>
// L2: norm.reduce <row> <add> ins (%[[X]] : full tensor<16x64xf32>)
// L2: norm.map <row>
// L2: %[[Y:.+]] = norm.map <full>
// L2: %[[E:.+]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2]] output_shape [2, 8, 64]
// L2-NEXT: return %[[E]]
// NORMALIZE: remark: norm-raise: rows normalized here are not raised: the rows are not divided by the square root of a row statistic plus epsilon
// NORMALIZE-NOT: norm.

// Through ONNX (IREE's importer, torch-mlir's onnx-to-torch): LayerNorm's
// LayerNormalization and Hugging Face's RMSNorm (Pow, ReduceMean, Add, Sqrt,
// Div: the rows times 1 / sqrt, epsilon a 0-D constant); their parameters
// are constants.
// RUN: norm-opt %S/Inputs/external/layer_norm_onnx.mlir --norm-raise | FileCheck %s --check-prefix=LNONNX
// RUN: norm-opt %S/Inputs/external/rms_norm_onnx.mlir --norm-raise | FileCheck %s --check-prefix=RMSONNX
// LNONNX: func.func @main_graph(%[[X:.+]]: tensor<2x8x64xf32>)
// LNONNX: %[[Y:.+]], %{{.+}}, %{{.+}} = norm.layer_norm %[[X]] weight(%{{.+}} : tensor<64xf32>) bias(%{{.+}} : tensor<64xf32>) {epsilon = 9.9999997473787516E-6 : f64}
// LNONNX-NEXT: return %[[Y]]
// RMSONNX: func.func @main_graph(%[[X:.+]]: tensor<2x8x64xf32>)
// RMSONNX: %[[Y:.+]], %{{.+}} = norm.rms_norm %[[X]] weight(%{{.+}} : tensor<64xf32>) {epsilon = 9.9999999747524271E-7 : f64}
// RMSONNX-NEXT: return %[[Y]]

// RMS32: func.func @main(%[[X:.+]]: tensor<2x8x64xf32>, %[[W:.+]]: tensor<64xf32>)
// RMS32-NEXT: %[[Y:.+]], %{{.+}} = norm.rms_norm %[[X]] weight(%[[W]] : tensor<64xf32>) {epsilon = 9.9999999747524271E-7 : f64} : tensor<2x8x64xf32> -> tensor<2x8x64xf32>, tensor<2x8xf32>
// RMS32-NEXT: return %[[Y]]
// Hugging Face's RMSNorm on bf16: x upcast, y cast back, then the weight.
// RMSBF16: func.func @main(%[[X:.+]]: tensor<2x8x64xbf16>, %[[W:.+]]: tensor<64xbf16>)
// RMSBF16-NEXT: %[[Y:.+]], %{{.+}} = norm.rms_norm %[[X]] weight(%[[W]] : tensor<64xbf16>) {epsilon = 9.9999999747524271E-7 : f64} : tensor<2x8x64xbf16> -> tensor<2x8x64xbf16>, tensor<2x8xf32>
// RMSBF16-NEXT: return %[[Y]]
// LN32: func.func @main(%[[X:.+]]: tensor<2x8x64xf32>, %[[W:.+]]: tensor<64xf32>, %[[B:.+]]: tensor<64xf32>)
// LN32-NEXT: %[[Y:.+]], %{{.+}}, %{{.+}} = norm.layer_norm %[[X]] weight(%[[W]] : tensor<64xf32>) bias(%[[B]] : tensor<64xf32>) {epsilon = 9.9999997473787516E-6 : f64}
// LN32-NEXT: return %[[Y]]
// Llama: the two RMSNorms (the second over the residual add), each then
// read by the projections; the softmax's two row reductions stay.
// LLAMA: norm.rms_norm %arg0 weight(%arg8 : tensor<64xf32>) {epsilon = 9.9999999747524271E-7 : f64}
// LLAMA-COUNT-2: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// LLAMA: %[[H:.+]] = linalg.generic {{.+}} ins(%arg0, %{{.+}} : tensor<2x8x64xf32>, tensor<2x8x64xf32>)
// LLAMA-NEXT: ^bb0
// LLAMA-NEXT: arith.addf
// LLAMA: norm.rms_norm %[[H]] weight(%arg9 : tensor<64xf32>)
// LLAMA-NOT: math.rsqrt
// LLAMA-NOT: norm.
// BERT (post-norm): LayerNorm of each residual add; the softmax stays.
// BERT-COUNT-2: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// BERT: norm.layer_norm %{{.+}} weight(%arg9 : tensor<64xf32>) bias(%arg10 : tensor<64xf32>) {epsilon = 9.999999960041972E-13 : f64}
// BERT: norm.layer_norm %{{.+}} weight(%arg15 : tensor<64xf32>) bias(%arg16 : tensor<64xf32>)
// BERT-NOT: math.rsqrt
// BERT-NOT: norm.


// One generic: the mean as the sum times 1/N, 1 / sqrt(m + eps), Gemma's
// (1 + w).
// CHECK-LABEL: func @rms_times_inverse_n(
// CHECK-NEXT: %[[Y:.+]], %{{.+}} = norm.rms_norm %arg0 weight(%arg1 : tensor<64xf32>) {epsilon = 9.9999997473787516E-6 : f64, weight_offset = 1.000000e+00 : f64}
// CHECK-NEXT: return %[[Y]]
#full = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @rms_times_inverse_n(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.015625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %s = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%f : tensor<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %acc, %sq : f32
    linalg.yield %a : f32
  } -> tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [#full, #full], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<8x1xf32>) outs(%e : tensor<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %inv, %in : f32
    %p = arith.addf %m, %eps : f32
    %q = math.sqrt %p : f32
    %t = arith.divf %one, %q : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %o = tensor.empty() : tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [#full, #row, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %r, %w : tensor<8x64xf32>, tensor<8x1xf32>, tensor<64xf32>) outs(%o : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %one_w = arith.addf %c, %one : f32
    %n = arith.mulf %b, %a : f32
    %v = arith.mulf %n, %one_w : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Near misses stay, with a remark: the sum times 1/63 over rows of 64.
// CHECK-LABEL: func @divides_by_another_length(
// CHECK-NOT: norm.
#full = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @divides_by_another_length(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.015873017 : f32
  %eps = arith.constant 1.0e-5 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %s = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%f : tensor<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %acc, %sq : f32
    linalg.yield %a : f32
  } -> tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [#full, #full], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<8x1xf32>) outs(%e : tensor<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %inv, %in : f32
    %p = arith.addf %m, %eps : f32
    %q = math.sqrt %p : f32
    %t = arith.divf %one, %q : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %o = tensor.empty() : tensor<8x64xf32>
  // expected-remark @below {{norm-raise: rows normalized here are not raised: the row sum is multiplied by 0.015873, not by 1/64}}
  %y = linalg.generic {indexing_maps = [#full, #row, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %r, %w : tensor<8x64xf32>, tensor<8x1xf32>, tensor<64xf32>) outs(%o : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %one_w = arith.addf %c, %one : f32
    %n = arith.mulf %b, %a : f32
    %v = arith.mulf %n, %one_w : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// No epsilon.
// CHECK-LABEL: func @no_epsilon(
// CHECK-NOT: norm.
#full = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @no_epsilon(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.015625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %s = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%f : tensor<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %acc, %sq : f32
    linalg.yield %a : f32
  } -> tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [#full, #full], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<8x1xf32>) outs(%e : tensor<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %inv, %in : f32
    %q = math.sqrt %m : f32
    %t = arith.divf %one, %q : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %o = tensor.empty() : tensor<8x64xf32>
  // expected-remark @below {{norm-raise: rows normalized here are not raised: no epsilon is added to the row statistic}}
  %y = linalg.generic {indexing_maps = [#full, #row, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %r, %w : tensor<8x64xf32>, tensor<8x1xf32>, tensor<64xf32>) outs(%o : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %one_w = arith.addf %c, %one : f32
    %n = arith.mulf %b, %a : f32
    %v = arith.mulf %n, %one_w : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// A bias after an RMSNorm.
// CHECK-LABEL: func @rms_with_bias(
// CHECK-NOT: norm.
#full = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @rms_with_bias(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.015625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %s = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%f : tensor<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %acc, %sq : f32
    linalg.yield %a : f32
  } -> tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [#full, #full], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<8x1xf32>) outs(%e : tensor<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %inv, %in : f32
    %p = arith.addf %m, %eps : f32
    %q = math.sqrt %p : f32
    %t = arith.divf %one, %q : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %o = tensor.empty() : tensor<8x64xf32>
  // expected-remark @below {{norm-raise: rows normalized here are not raised: an RMSNorm with a bias}}
  %y = linalg.generic {indexing_maps = [#full, #row, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %r, %w : tensor<8x64xf32>, tensor<8x1xf32>, tensor<64xf32>) outs(%o : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %one_w = arith.addf %c, %one : f32
    %n = arith.mulf %b, %a : f32
    %v = arith.addf %n, %c : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// An L2 norm (no row mean; norm has no user op for it): the order-typed
// ops of norm_mlir's l2_fwd, the sum of squares, rsqrt(sum + epsilon) per
// row, and x times it.
// CHECK-LABEL: func @l2_norm(
// CHECK: %[[SS:.+]] = norm.reduce <row> <add> ins (%arg0 : full tensor<8x64xf32>) -> tensor<8xf32>
// CHECK: arith.mulf
// CHECK: %[[R:.+]] = norm.map <row> ins (%[[SS]] : row tensor<8xf32>)
// CHECK: arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT: math.rsqrt
// CHECK: %[[Y:.+]] = norm.map <full> ins (%arg0 : full tensor<8x64xf32>, %[[R]] : row tensor<8xf32>)
// CHECK: return %[[Y]]
#full = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @l2_norm(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.015625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %s = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%f : tensor<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %acc, %sq : f32
    linalg.yield %a : f32
  } -> tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [#full, #full], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<8x1xf32>) outs(%e : tensor<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.addf %in, %eps : f32
    %q = math.sqrt %p : f32
    %t = arith.divf %one, %q : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %o = tensor.empty() : tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [#full, #row, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %r, %w : tensor<8x64xf32>, tensor<8x1xf32>, tensor<64xf32>) outs(%o : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %v = arith.mulf %b, %a : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// The sum is of squares of other values than the scaled rows.
// CHECK-LABEL: func @squares_other_values(
// CHECK-NOT: norm.
#full = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @squares_other_values(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.015625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %s = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%f : tensor<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %sq2 = arith.mulf %sq, %in : f32
    %a = arith.addf %acc, %sq2 : f32
    linalg.yield %a : f32
  } -> tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [#full, #full], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<8x1xf32>) outs(%e : tensor<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %inv, %in : f32
    %p = arith.addf %m, %eps : f32
    %q = math.sqrt %p : f32
    %t = arith.divf %one, %q : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %o = tensor.empty() : tensor<8x64xf32>
  // expected-remark @below {{norm-raise: rows normalized here are not raised: the row sum is not of the squares of the scaled rows}}
  %y = linalg.generic {indexing_maps = [#full, #row, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %r, %w : tensor<8x64xf32>, tensor<8x1xf32>, tensor<64xf32>) outs(%o : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %one_w = arith.addf %c, %one : f32
    %n = arith.mulf %b, %a : f32
    %v = arith.mulf %n, %one_w : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// y rounded to f16 from bf16 rows.
// CHECK-LABEL: func @rounds_to_a_third_type(
// CHECK-NOT: norm.
#full = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @rounds_to_a_third_type(%x: tensor<8x64xbf16>) -> tensor<8x64xf16> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %s = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xbf16>) outs(%f : tensor<8x1xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %v = arith.extf %in : bf16 to f32
    %sq = arith.mulf %v, %v : f32
    %a = arith.addf %sq, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8x1xf32>
  %o = tensor.empty() : tensor<8x64xf16>
  // expected-remark @below {{norm-raise: rows normalized here are not raised: y is rounded to another type than x's or f32}}
  %y = linalg.generic {indexing_maps = [#full, #row, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<8x64xbf16>, tensor<8x1xf32>) outs(%o : tensor<8x64xf16>) {
  ^bb0(%a: bf16, %b: f32, %out: f16):
    %m = arith.divf %b, %n : f32
    %p = arith.addf %m, %eps : f32
    %r = math.rsqrt %p : f32
    %v = arith.extf %a : bf16 to f32
    %t = arith.mulf %v, %r : f32
    %h = arith.truncf %t : f32 to f16
    linalg.yield %h : f16
  } -> tensor<8x64xf16>
  return %y : tensor<8x64xf16>
}

// -----

// A sum over the other dimension (a column statistic) is no row
// normalization: nothing is raised and nothing is said.
// CHECK-LABEL: func @column_sums(
// CHECK-NOT: norm.
#full = affine_map<(d0, d1) -> (d0, d1)>
#rowsum = affine_map<(d0, d1) -> (0, d1)>
func.func @column_sums(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 8.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %s = linalg.generic {indexing_maps = [#full, #rowsum], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%f : tensor<1x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %sq, %acc : f32
    linalg.yield %a : f32
  } -> tensor<1x64xf32>
  %o = tensor.empty() : tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [#full, #rowsum, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<8x64xf32>, tensor<1x64xf32>) outs(%o : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.divf %b, %n : f32
    %p = arith.addf %m, %eps : f32
    %r = math.rsqrt %p : f32
    %t = arith.mulf %a, %r : f32
    linalg.yield %t : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
