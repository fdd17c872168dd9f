//===- QuantOps.cpp - the norms with FP8 output --------------------------===//
//
// Schemas and CUDA kernels of the RMSNorm and LayerNorm forwards whose y is
// quantized to FP8 e4m3 per row (norm_mlir.programs' quant=True): q =
// y / scale rounded to float8_e4m3fn (saturating), scale = max(amax_j |y| /
// 448, 1e-12) per row (or per group of group_size columns), y computed in
// f32 in the kernel and never stored.
// They are inference forwards: their autograd kernel refuses a backward.
// Fake and CPU kernels: norm_mlir.ops.
//
//===----------------------------------------------------------------------===//

#include "Programs.h"
#include "Tensors.h"

#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/library.h>

namespace norm_mlir {
namespace {

/// Runs a quantized forward: q, then h with a residual, then the scale.
std::vector<Tensor>
quantForward(ProgramKey key, const Tensor &x, const OptionalTensor &residual,
             std::initializer_list<const OptionalTensor *> params,
             int64_t groupSize, const char *name) {
  groupCount(groupSize, x, name);
  key.groupSize = groupSize;
  key.quant = true;
  key.stats = false;
  key.residual = residual.has_value();
  if (residual)
    return runForward(key, {x, *residual}, params, 2);
  return runForward(key, {x}, params, 1);
}

std::tuple<Tensor, Tensor> rmsNormQuant(const Tensor &x,
                                        const OptionalTensor &weight,
                                        double eps, double offset,
                                        int64_t groupSize) {
  checkInput(x, {&weight}, "rms_norm_quant");
  ProgramKey key = keyFor(Kind::RmsForward, x, weight);
  key.eps = eps;
  key.offset = offset;
  auto outs = quantForward(key, x, std::nullopt, {&weight}, groupSize,
                           "rms_norm_quant");
  return {outs[0], outs[1]};
}

std::tuple<Tensor, Tensor> layerNormQuant(const Tensor &x,
                                          const OptionalTensor &weight,
                                          const OptionalTensor &bias,
                                          double eps, int64_t groupSize,
                                          double offset) {
  checkInput(x, {&weight, &bias}, "layer_norm_quant");
  checkBias(weight, bias, "layer_norm_quant");
  ProgramKey key = keyFor(Kind::LayerForward, x, weight);
  key.eps = eps;
  key.offset = offset;
  key.bias = bias.has_value();
  auto outs = quantForward(key, x, std::nullopt, {&weight, &bias}, groupSize,
                           "layer_norm_quant");
  return {outs[0], outs[1]};
}

std::tuple<Tensor, Tensor, Tensor>
fusedAddRmsNormQuant(const Tensor &x, const Tensor &residual,
                     const OptionalTensor &weight, double eps, double offset,
                     int64_t groupSize) {
  checkInput(x, {&weight}, "fused_add_rms_norm_quant");
  checkLike(residual, x, "residual", "fused_add_rms_norm_quant");
  ProgramKey key = keyFor(Kind::RmsForward, x, weight);
  key.eps = eps;
  key.offset = offset;
  auto outs = quantForward(key, x, residual, {&weight}, groupSize,
                           "fused_add_rms_norm_quant");
  return {outs[0], outs[1], outs[2]};
}

} // namespace

TORCH_LIBRARY_FRAGMENT(norm_mlir, m) {
  const std::vector<at::Tag> compliant{at::Tag::pt2_compliant_tag};
  // group_size G > 0: one scale a group of G columns (x's rows by N / G).
  m.def("rms_norm_quant(Tensor x, Tensor? weight, float eps, float offset, "
        "int group_size=0) -> (Tensor, Tensor)",
        compliant);
  m.def("layer_norm_quant(Tensor x, Tensor? weight, Tensor? bias, float eps, "
        "int group_size=0, float offset=0.0) -> (Tensor, Tensor)",
        compliant);
  m.def(
      "fused_add_rms_norm_quant(Tensor x, Tensor residual, Tensor? weight, "
      "float eps, float offset, int group_size=0) -> (Tensor, Tensor, Tensor)",
      compliant);
}

TORCH_LIBRARY_IMPL(norm_mlir, CUDA, m) {
  m.impl("rms_norm_quant", &rmsNormQuant);
  m.impl("layer_norm_quant", &layerNormQuant);
  m.impl("fused_add_rms_norm_quant", &fusedAddRmsNormQuant);
}

// Quantized outputs are for inference: a gradient through them is an error.
TORCH_LIBRARY_IMPL(norm_mlir, Autograd, m) {
  m.impl("rms_norm_quant", torch::autograd::autogradNotImplementedFallback());
  m.impl("layer_norm_quant", torch::autograd::autogradNotImplementedFallback());
  m.impl("fused_add_rms_norm_quant",
         torch::autograd::autogradNotImplementedFallback());
}

} // namespace norm_mlir
