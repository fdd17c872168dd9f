//===- Ops.cpp - the norm_mlir ops: schemas and CUDA kernels -------------===//
//
// Defines the norm_mlir ops (the schemas norm_mlir.ops documents) and their
// CUDA kernels: check the arguments, make the inputs contiguous and 16-byte
// aligned, run the program (Programs.h) on the current stream, and shape
// the results. Their fake, CPU and autocast kernels are registered by
// norm_mlir.ops in Python, their autograd kernels in Autograd.cpp.
//
//===----------------------------------------------------------------------===//

#include "Programs.h"
#include "Tensors.h"

#include <ATen/core/Tensor.h>
#include <torch/library.h>

#include <cstdint>

namespace norm_mlir {
namespace {

/// A forward: y and `stats` statistics per row (the training forward's
/// mean/rstd; none for the inference forward).
std::vector<Tensor>
forward(ProgramKey key, const Tensor &x,
        std::initializer_list<const OptionalTensor *> params, int stats) {
  key.stats = stats > 0;
  return runForward(key, {x}, params, 1);
}

std::tuple<Tensor, Tensor> rmsNorm(const Tensor &x,
                                   const OptionalTensor &weight, double eps,
                                   double offset) {
  checkInput(x, {&weight}, "rms_norm");
  ProgramKey key = keyFor(Kind::RmsForward, x, weight);
  key.eps = eps;
  key.offset = offset;
  auto outs = forward(key, x, {&weight}, 1);
  return {outs[0], outs[1]};
}

Tensor rmsNormInference(const Tensor &x, const OptionalTensor &weight,
                        double eps, double offset) {
  checkInput(x, {&weight}, "rms_norm_inference");
  ProgramKey key = keyFor(Kind::RmsForward, x, weight);
  key.eps = eps;
  key.offset = offset;
  return forward(key, x, {&weight}, 0)[0];
}

std::tuple<Tensor, Tensor> rmsNormBackward(const Tensor &dy, const Tensor &x,
                                           const Tensor &rstd,
                                           const OptionalTensor &weight,
                                           double offset) {
  checkInput(x, {&weight}, "rms_norm_backward");
  checkGrad(dy, x, {&rstd}, "rms_norm_backward");
  ProgramKey key = keyFor(Kind::RmsBackward, x, weight);
  key.offset = offset;
  std::vector<Tensor> inputs{aligned(dy), aligned(x), aligned(rstd)};
  if (weight)
    inputs.push_back(aligned(*weight));
  auto outs = runProgram(key, inputs, rowsOf(x));
  Tensor dw = weight ? outs[1] : x.new_empty({0});
  return {shaped(outs[0], x.sizes()), dw};
}

std::tuple<Tensor, Tensor, Tensor> layerNorm(const Tensor &x,
                                             const OptionalTensor &weight,
                                             const OptionalTensor &bias,
                                             double eps, double offset) {
  checkInput(x, {&weight, &bias}, "layer_norm");
  checkBias(weight, bias, "layer_norm");
  ProgramKey key = keyFor(Kind::LayerForward, x, weight);
  key.eps = eps;
  key.offset = offset;
  key.bias = bias.has_value();
  auto outs = forward(key, x, {&weight, &bias}, 2);
  return {outs[0], outs[1], outs[2]};
}

Tensor layerNormInference(const Tensor &x, const OptionalTensor &weight,
                          const OptionalTensor &bias, double eps,
                          double offset) {
  checkInput(x, {&weight, &bias}, "layer_norm_inference");
  checkBias(weight, bias, "layer_norm_inference");
  ProgramKey key = keyFor(Kind::LayerForward, x, weight);
  key.eps = eps;
  key.offset = offset;
  key.bias = bias.has_value();
  return forward(key, x, {&weight, &bias}, 0)[0];
}

std::tuple<Tensor, Tensor, Tensor>
layerNormBackward(const Tensor &dy, const Tensor &x, const Tensor &mean,
                  const Tensor &rstd, const OptionalTensor &weight,
                  bool hasBias, double offset) {
  checkInput(x, {&weight}, "layer_norm_backward");
  checkGrad(dy, x, {&mean, &rstd}, "layer_norm_backward");
  ProgramKey key = keyFor(Kind::LayerBackward, x, weight);
  key.bias = hasBias;
  key.offset = offset;
  std::vector<Tensor> inputs{aligned(dy), aligned(x), aligned(mean),
                             aligned(rstd)};
  if (weight)
    inputs.push_back(aligned(*weight));
  auto outs = runProgram(key, inputs, rowsOf(x));
  size_t next = 1;
  Tensor dw = weight ? outs[next++] : x.new_empty({0});
  Tensor db = hasBias ? outs[next++] : x.new_empty({0});
  return {shaped(outs[0], x.sizes()), dw, db};
}

/// A fused residual add and norm: y, h = x + residual, then `stats`
/// statistics per row (none for the inference forward).
std::vector<Tensor>
addForward(ProgramKey key, const Tensor &x, const Tensor &residual,
           std::initializer_list<const OptionalTensor *> params, int stats) {
  key.stats = stats > 0;
  key.residual = true;
  return runForward(key, {x, residual}, params, 2);
}

/// The fused residual add and RMSNorm, checked under `name`, with `stats`
/// statistics (1: the training forward, 0: the inference forward).
std::vector<Tensor> fusedAddRms(const Tensor &x, const Tensor &residual,
                                const OptionalTensor &weight, double eps,
                                double offset, int stats, const char *name) {
  checkInput(x, {&weight}, name);
  checkLike(residual, x, "residual", name);
  ProgramKey key = keyFor(Kind::RmsForward, x, weight);
  key.eps = eps;
  key.offset = offset;
  return addForward(key, x, residual, {&weight}, stats);
}

std::tuple<Tensor, Tensor, Tensor> fusedAddRmsNorm(const Tensor &x,
                                                   const Tensor &residual,
                                                   const OptionalTensor &weight,
                                                   double eps, double offset) {
  auto outs =
      fusedAddRms(x, residual, weight, eps, offset, 1, "fused_add_rms_norm");
  return {outs[0], outs[1], outs[2]};
}

std::tuple<Tensor, Tensor>
fusedAddRmsNormInference(const Tensor &x, const Tensor &residual,
                         const OptionalTensor &weight, double eps,
                         double offset) {
  auto outs = fusedAddRms(x, residual, weight, eps, offset, 0,
                          "fused_add_rms_norm_inference");
  return {outs[0], outs[1]};
}

std::tuple<Tensor, Tensor>
fusedAddRmsNormBackward(const Tensor &dy, const Tensor &dh, const Tensor &h,
                        const Tensor &rstd, const OptionalTensor &weight,
                        double offset) {
  checkInput(h, {&weight}, "fused_add_rms_norm_backward");
  checkGrad(dy, h, {&rstd}, "fused_add_rms_norm_backward");
  checkLike(dh, h, "residual", "fused_add_rms_norm_backward");
  ProgramKey key = keyFor(Kind::RmsBackward, h, weight);
  key.offset = offset;
  key.residual = true;
  std::vector<Tensor> inputs{aligned(dy), aligned(dh), aligned(h),
                             aligned(rstd)};
  if (weight)
    inputs.push_back(aligned(*weight));
  auto outs = runProgram(key, inputs, rowsOf(h));
  Tensor dw = weight ? outs[1] : h.new_empty({0});
  return {shaped(outs[0], h.sizes()), dw};
}

/// The fused residual add and LayerNorm (as fusedAddRms; 2 statistics for
/// the training forward).
std::vector<Tensor> fusedAddLayer(const Tensor &x, const Tensor &residual,
                                  const OptionalTensor &weight,
                                  const OptionalTensor &bias, double eps,
                                  double offset, int stats, const char *name) {
  checkInput(x, {&weight, &bias}, name);
  checkBias(weight, bias, name);
  checkLike(residual, x, "residual", name);
  ProgramKey key = keyFor(Kind::LayerForward, x, weight);
  key.eps = eps;
  key.offset = offset;
  key.bias = bias.has_value();
  return addForward(key, x, residual, {&weight, &bias}, stats);
}

std::tuple<Tensor, Tensor, Tensor, Tensor>
fusedAddLayerNorm(const Tensor &x, const Tensor &residual,
                  const OptionalTensor &weight, const OptionalTensor &bias,
                  double eps, double offset) {
  auto outs = fusedAddLayer(x, residual, weight, bias, eps, offset, 2,
                            "fused_add_layer_norm");
  return {outs[0], outs[1], outs[2], outs[3]};
}

std::tuple<Tensor, Tensor>
fusedAddLayerNormInference(const Tensor &x, const Tensor &residual,
                           const OptionalTensor &weight,
                           const OptionalTensor &bias, double eps,
                           double offset) {
  auto outs = fusedAddLayer(x, residual, weight, bias, eps, offset, 0,
                            "fused_add_layer_norm_inference");
  return {outs[0], outs[1]};
}

std::tuple<Tensor, Tensor, Tensor>
fusedAddLayerNormBackward(const Tensor &dy, const Tensor &dh, const Tensor &h,
                          const Tensor &mean, const Tensor &rstd,
                          const OptionalTensor &weight, bool hasBias,
                          double offset) {
  checkInput(h, {&weight}, "fused_add_layer_norm_backward");
  checkGrad(dy, h, {&mean, &rstd}, "fused_add_layer_norm_backward");
  checkLike(dh, h, "residual", "fused_add_layer_norm_backward");
  ProgramKey key = keyFor(Kind::LayerBackward, h, weight);
  key.bias = hasBias;
  key.offset = offset;
  key.residual = true;
  std::vector<Tensor> inputs{aligned(dy), aligned(dh), aligned(h),
                             aligned(mean), aligned(rstd)};
  if (weight)
    inputs.push_back(aligned(*weight));
  auto outs = runProgram(key, inputs, rowsOf(h));
  size_t next = 1;
  Tensor dw = weight ? outs[next++] : h.new_empty({0});
  Tensor db = hasBias ? outs[next++] : h.new_empty({0});
  return {shaped(outs[0], h.sizes()), dw, db};
}

} // namespace

TORCH_LIBRARY(norm_mlir, m) {
  // Their fake kernels are registered by this Python module.
  m.set_python_module("norm_mlir.ops");
  const std::vector<at::Tag> compliant{at::Tag::pt2_compliant_tag};
  m.def("rms_norm(Tensor x, Tensor? weight, float eps, float offset) -> "
        "(Tensor, Tensor)",
        compliant);
  m.def("rms_norm_backward(Tensor dy, Tensor x, Tensor rstd, Tensor? weight, "
        "float offset) -> (Tensor, Tensor)",
        compliant);
  m.def("rms_norm_inference(Tensor x, Tensor? weight, float eps, "
        "float offset) -> Tensor",
        compliant);
  // LayerNorm's offset (last, 0 by default): the weight enters as
  // weight + offset in f32 (1: a zero-centered weight, LayerNorm1P).
  m.def("layer_norm(Tensor x, Tensor? weight, Tensor? bias, float eps, "
        "float offset=0.0) -> (Tensor, Tensor, Tensor)",
        compliant);
  m.def("layer_norm_backward(Tensor dy, Tensor x, Tensor mean, Tensor rstd, "
        "Tensor? weight, bool has_bias, float offset=0.0) -> "
        "(Tensor, Tensor, Tensor)",
        compliant);
  m.def("layer_norm_inference(Tensor x, Tensor? weight, Tensor? bias, "
        "float eps, float offset=0.0) -> Tensor",
        compliant);
  // The pre-norm residual add fused with the norm: h = x + residual is
  // normalized and returned for the next block's residual; the backward
  // takes h's own gradient dh and returns the gradient of x and residual.
  m.def("fused_add_rms_norm(Tensor x, Tensor residual, Tensor? weight, "
        "float eps, float offset) -> (Tensor, Tensor, Tensor)",
        compliant);
  m.def("fused_add_rms_norm_backward(Tensor dy, Tensor dh, Tensor h, "
        "Tensor rstd, Tensor? weight, float offset) -> (Tensor, Tensor)",
        compliant);
  m.def("fused_add_rms_norm_inference(Tensor x, Tensor residual, "
        "Tensor? weight, float eps, float offset) -> (Tensor, Tensor)",
        compliant);
  m.def("fused_add_layer_norm(Tensor x, Tensor residual, Tensor? weight, "
        "Tensor? bias, float eps, float offset=0.0) -> "
        "(Tensor, Tensor, Tensor, Tensor)",
        compliant);
  m.def("fused_add_layer_norm_backward(Tensor dy, Tensor dh, Tensor h, "
        "Tensor mean, Tensor rstd, Tensor? weight, bool has_bias, "
        "float offset=0.0) -> (Tensor, Tensor, Tensor)",
        compliant);
  m.def("fused_add_layer_norm_inference(Tensor x, Tensor residual, "
        "Tensor? weight, Tensor? bias, float eps, float offset=0.0) -> "
        "(Tensor, Tensor)",
        compliant);
  // The bundle directory of a program, compiled (or found in the cache) by
  // norm_mlir.ops: the CUDA kernels above call it for a program they have
  // not loaded yet.
  m.def("_bundle_directory(str kind, int n, ScalarType dtype, "
        "ScalarType? weight_dtype, float eps, float offset, bool bias, "
        "bool stats, bool residual, str activation, bool norm_before_gate, "
        "bool quant, Device device, int group_size=0) -> str");
}

TORCH_LIBRARY_IMPL(norm_mlir, CUDA, m) {
  m.impl("rms_norm", &rmsNorm);
  m.impl("rms_norm_backward", &rmsNormBackward);
  m.impl("rms_norm_inference", &rmsNormInference);
  m.impl("layer_norm", &layerNorm);
  m.impl("layer_norm_backward", &layerNormBackward);
  m.impl("layer_norm_inference", &layerNormInference);
  m.impl("fused_add_rms_norm", &fusedAddRmsNorm);
  m.impl("fused_add_rms_norm_backward", &fusedAddRmsNormBackward);
  m.impl("fused_add_rms_norm_inference", &fusedAddRmsNormInference);
  m.impl("fused_add_layer_norm", &fusedAddLayerNorm);
  m.impl("fused_add_layer_norm_backward", &fusedAddLayerNormBackward);
  m.impl("fused_add_layer_norm_inference", &fusedAddLayerNormInference);
}

} // namespace norm_mlir
