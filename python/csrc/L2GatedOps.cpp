//===- L2GatedOps.cpp - the L2 norm and gated RMSNorm ops ---------------===//
//
// Schemas and CUDA kernels of the norm_mlir ops whose programs are written
// as order-typed IR (norm_mlir.order_programs): the L2 norm of Gated
// DeltaNet's q and k and the gated RMSNorm of Gated DeltaNet and Mamba2.
// Their fake, CPU and autocast kernels are registered by norm_mlir.ops in
// Python, their autograd kernels in L2GatedAutograd.cpp.
//
//===----------------------------------------------------------------------===//

#include "Programs.h"
#include "Tensors.h"

#include <torch/library.h>

namespace norm_mlir {
namespace {

std::vector<Tensor> l2Forward(const Tensor &x, double eps, bool stats,
                              const char *name) {
  checkInput(x, {}, name);
  ProgramKey key = keyFor(Kind::L2Forward, x, std::nullopt);
  key.eps = eps;
  key.stats = stats;
  return runForward(key, {x}, {}, 1);
}

std::tuple<Tensor, Tensor> l2Norm(const Tensor &x, double eps) {
  auto outs = l2Forward(x, eps, true, "l2_norm");
  return {outs[0], outs[1]};
}

Tensor l2NormInference(const Tensor &x, double eps) {
  return l2Forward(x, eps, false, "l2_norm_inference")[0];
}

Tensor l2NormBackward(const Tensor &dy, const Tensor &x, const Tensor &rstd) {
  checkInput(x, {}, "l2_norm_backward");
  checkGrad(dy, x, {&rstd}, "l2_norm_backward");
  ProgramKey key = keyFor(Kind::L2Backward, x, std::nullopt);
  auto outs =
      runProgram(key, {aligned(dy), aligned(x), aligned(rstd)}, rowsOf(x));
  return shaped(outs[0], x.sizes());
}

void checkActivation(c10::string_view activation, const char *name) {
  TORCH_CHECK_VALUE(activation == "silu" || activation == "sigmoid", name,
                    ": activation must be 'silu' or 'sigmoid', got '",
                    std::string(activation), "'");
}

ProgramKey gatedKey(Kind kind, const Tensor &x, const Tensor &z,
                    const OptionalTensor &weight, double offset,
                    c10::string_view activation, bool normBeforeGate,
                    int64_t groupSize, const char *name) {
  checkInput(x, {&weight}, name);
  checkLike(z, x, "the gate z", name);
  checkActivation(activation, name);
  ProgramKey key = keyFor(kind, x, weight);
  key.offset = offset;
  key.activation = std::string(activation);
  key.normBeforeGate = normBeforeGate;
  // A group of the whole row is the plain gated norm.
  if (groupCount(groupSize, x, name) > 1)
    key.groupSize = groupSize;
  return key;
}

std::vector<Tensor> gatedForward(const Tensor &x, const Tensor &z,
                                 const OptionalTensor &weight, double eps,
                                 double offset, c10::string_view activation,
                                 bool normBeforeGate, int64_t groupSize,
                                 bool stats, const char *name) {
  ProgramKey key = gatedKey(Kind::GatedForward, x, z, weight, offset,
                            activation, normBeforeGate, groupSize, name);
  key.eps = eps;
  key.stats = stats;
  return runForward(key, {x, z}, {&weight}, 1);
}

std::tuple<Tensor, Tensor>
rmsNormGated(const Tensor &x, const Tensor &z, const OptionalTensor &weight,
             double eps, double offset, c10::string_view activation,
             bool normBeforeGate, int64_t groupSize) {
  auto outs = gatedForward(x, z, weight, eps, offset, activation,
                           normBeforeGate, groupSize, true, "rms_norm_gated");
  return {outs[0], outs[1]};
}

Tensor rmsNormGatedInference(const Tensor &x, const Tensor &z,
                             const OptionalTensor &weight, double eps,
                             double offset, c10::string_view activation,
                             bool normBeforeGate, int64_t groupSize) {
  return gatedForward(x, z, weight, eps, offset, activation, normBeforeGate,
                      groupSize, false, "rms_norm_gated_inference")[0];
}

std::tuple<Tensor, Tensor, Tensor>
rmsNormGatedBackward(const Tensor &dy, const Tensor &x, const Tensor &z,
                     const Tensor &rstd, const OptionalTensor &weight,
                     double offset, c10::string_view activation,
                     bool normBeforeGate, int64_t groupSize) {
  const char *name = "rms_norm_gated_backward";
  ProgramKey key = gatedKey(Kind::GatedBackward, x, z, weight, offset,
                            activation, normBeforeGate, groupSize, name);
  int64_t groups = groupCount(key.groupSize, x, name);
  checkGrad(dy, x, {&rstd}, name, groups);
  // Statistics one a group are the program's M x N/G buffer.
  Tensor stats = aligned(rstd);
  if (groups > 1)
    stats = stats.view({rowsOf(x), groups});
  std::vector<Tensor> inputs{aligned(dy), aligned(x), aligned(z), stats};
  if (weight)
    inputs.push_back(aligned(*weight));
  auto outs = runProgram(key, inputs, rowsOf(x));
  Tensor dw = weight ? outs[2] : x.new_empty({0});
  return {shaped(outs[0], x.sizes()), shaped(outs[1], x.sizes()), dw};
}

} // namespace

TORCH_LIBRARY_FRAGMENT(norm_mlir, m) {
  const std::vector<at::Tag> compliant{at::Tag::pt2_compliant_tag};
  // The L2 norm y = x / sqrt(sum x^2 + eps) (no weight), returning the
  // row's 1 / sqrt(sum x^2 + eps) beside y.
  m.def("l2_norm(Tensor x, float eps) -> (Tensor, Tensor)", compliant);
  m.def("l2_norm_backward(Tensor dy, Tensor x, Tensor rstd) -> Tensor",
        compliant);
  m.def("l2_norm_inference(Tensor x, float eps) -> Tensor", compliant);
  // The gated RMSNorm: y = rms_norm(x) (w + offset) act(z) with the norm
  // before the gate, rms_norm(x act(z)) (w + offset) after it.
  // group_size G (0: the whole row) normalizes each group of G columns by
  // itself; rstd is then x's rows by N / G.
  m.def("rms_norm_gated(Tensor x, Tensor z, Tensor? weight, float eps, "
        "float offset, str activation, bool norm_before_gate, "
        "int group_size=0) -> (Tensor, Tensor)",
        compliant);
  m.def("rms_norm_gated_backward(Tensor dy, Tensor x, Tensor z, Tensor rstd, "
        "Tensor? weight, float offset, str activation, "
        "bool norm_before_gate, int group_size=0) -> (Tensor, Tensor, Tensor)",
        compliant);
  m.def("rms_norm_gated_inference(Tensor x, Tensor z, Tensor? weight, "
        "float eps, float offset, str activation, bool norm_before_gate, "
        "int group_size=0) -> Tensor",
        compliant);
}

TORCH_LIBRARY_IMPL(norm_mlir, CUDA, m) {
  m.impl("l2_norm", &l2Norm);
  m.impl("l2_norm_backward", &l2NormBackward);
  m.impl("l2_norm_inference", &l2NormInference);
  m.impl("rms_norm_gated", &rmsNormGated);
  m.impl("rms_norm_gated_backward", &rmsNormGatedBackward);
  m.impl("rms_norm_gated_inference", &rmsNormGatedInference);
}

} // namespace norm_mlir
