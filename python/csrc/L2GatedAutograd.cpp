//===- L2GatedAutograd.cpp - autograd of the L2 norm and gated RMSNorm ---===//
//
// The autograd formulas of the ops in L2GatedOps.cpp, in C++ as those of
// Autograd.cpp: the training forwards save what their backward op reads and
// call it; the inference forwards save nothing and refuse a backward. Calls
// go through the dispatcher, so the formulas serve CUDA, CPU and fake
// tensors alike.
//
//===----------------------------------------------------------------------===//

#include "Dispatch.h"

#include <torch/autograd.h>
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/library.h>

namespace norm_mlir {
namespace {

using at::Tensor;
using OptionalTensor = std::optional<Tensor>;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

using L2Signature = std::tuple<Tensor, Tensor>(const Tensor &, double);
using L2InferenceSignature = Tensor(const Tensor &, double);
using L2BackwardSignature = Tensor(const Tensor &, const Tensor &,
                                   const Tensor &);
using GatedSignature = std::tuple<Tensor, Tensor>(
    const Tensor &, const Tensor &, const OptionalTensor &, double, double,
    c10::string_view, bool, int64_t);
using GatedInferenceSignature = Tensor(const Tensor &, const Tensor &,
                                       const OptionalTensor &, double, double,
                                       c10::string_view, bool, int64_t);
using GatedBackwardSignature = std::tuple<Tensor, Tensor, Tensor>(
    const Tensor &, const Tensor &, const Tensor &, const Tensor &,
    const OptionalTensor &, double, c10::string_view, bool, int64_t);

// The ops below autograd, looked up once.
const c10::TypedOperatorHandle<L2Signature> &l2Op() {
  static auto handle = lookupOp<L2Signature>("norm_mlir::l2_norm");
  return handle;
}
const c10::TypedOperatorHandle<L2InferenceSignature> &l2InferenceOp() {
  static auto handle =
      lookupOp<L2InferenceSignature>("norm_mlir::l2_norm_inference");
  return handle;
}
const c10::TypedOperatorHandle<L2BackwardSignature> &l2BackwardOp() {
  static auto handle =
      lookupOp<L2BackwardSignature>("norm_mlir::l2_norm_backward");
  return handle;
}
const c10::TypedOperatorHandle<GatedSignature> &gatedOp() {
  static auto handle = lookupOp<GatedSignature>("norm_mlir::rms_norm_gated");
  return handle;
}
const c10::TypedOperatorHandle<GatedInferenceSignature> &gatedInferenceOp() {
  static auto handle =
      lookupOp<GatedInferenceSignature>("norm_mlir::rms_norm_gated_inference");
  return handle;
}
const c10::TypedOperatorHandle<GatedBackwardSignature> &gatedBackwardOp() {
  static auto handle =
      lookupOp<GatedBackwardSignature>("norm_mlir::rms_norm_gated_backward");
  return handle;
}

[[noreturn]] void refuseBackward(const char *name, const char *training) {
  TORCH_CHECK(false, "norm_mlir::", name,
              " has no backward (it saves no statistics); use norm_mlir::",
              training, " where gradients are needed");
}

class L2NormFunction : public torch::autograd::Function<L2NormFunction> {
public:
  static variable_list forward(AutogradContext *ctx, const Tensor &x,
                               double eps) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [y, rstd] = l2Op().call(x, eps);
    ctx->save_for_backward({x, rstd});
    ctx->mark_non_differentiable({rstd});
    ctx->set_materialize_grads(false);
    return {y, rstd};
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    if (!grads[0].defined())
      return {Tensor(), Tensor()};
    auto saved = ctx->get_saved_variables();
    return {l2BackwardOp().call(grads[0], saved[0], saved[1]), Tensor()};
  }
};

class L2NormInferenceFunction
    : public torch::autograd::Function<L2NormInferenceFunction> {
public:
  static Tensor forward(AutogradContext *, const Tensor &x, double eps) {
    at::AutoDispatchBelowADInplaceOrView below;
    return l2InferenceOp().call(x, eps);
  }
  static variable_list backward(AutogradContext *, variable_list) {
    refuseBackward("l2_norm_inference", "l2_norm");
  }
};

/// The gated RMSNorm: x, z and the weight get gradients from one backward
/// kernel.
class GatedFunction : public torch::autograd::Function<GatedFunction> {
public:
  static variable_list forward(AutogradContext *ctx, const Tensor &x,
                               const Tensor &z, const OptionalTensor &weight,
                               double eps, double offset,
                               c10::string_view activation, bool normBeforeGate,
                               int64_t groupSize) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [y, rstd] = gatedOp().call(x, z, weight, eps, offset, activation,
                                    normBeforeGate, groupSize);
    ctx->save_for_backward({x, z, weight.value_or(Tensor()), rstd});
    ctx->saved_data["offset"] = offset;
    ctx->saved_data["activation"] = std::string(activation);
    ctx->saved_data["norm_before_gate"] = normBeforeGate;
    ctx->saved_data["group_size"] = groupSize;
    ctx->mark_non_differentiable({rstd});
    ctx->set_materialize_grads(false);
    return {y, rstd};
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    if (!grads[0].defined())
      return variable_list(8);
    auto saved = ctx->get_saved_variables();
    OptionalTensor weight =
        saved[2].defined() ? OptionalTensor(saved[2]) : std::nullopt;
    std::string activation = ctx->saved_data["activation"].toStringRef();
    auto [dx, dz, dw] =
        gatedBackwardOp().call(grads[0], saved[0], saved[1], saved[3], weight,
                               ctx->saved_data["offset"].toDouble(), activation,
                               ctx->saved_data["norm_before_gate"].toBool(),
                               ctx->saved_data["group_size"].toInt());
    return {dx,       dz,       weight ? dw : Tensor(),
            Tensor(), Tensor(), Tensor(),
            Tensor(), Tensor()};
  }
};

class GatedInferenceFunction
    : public torch::autograd::Function<GatedInferenceFunction> {
public:
  static Tensor forward(AutogradContext *, const Tensor &x, const Tensor &z,
                        const OptionalTensor &weight, double eps, double offset,
                        c10::string_view activation, bool normBeforeGate,
                        int64_t groupSize) {
    at::AutoDispatchBelowADInplaceOrView below;
    return gatedInferenceOp().call(x, z, weight, eps, offset, activation,
                                   normBeforeGate, groupSize);
  }
  static variable_list backward(AutogradContext *, variable_list) {
    refuseBackward("rms_norm_gated_inference", "rms_norm_gated");
  }
};

/// Whether autograd needs this call's backward (Autograd.cpp's needsGrad).
bool needsGrad(std::initializer_list<const Tensor *> tensors) {
  if (!at::GradMode::is_enabled())
    return false;
  for (const Tensor *t : tensors)
    if (t && t->defined() && t->requires_grad())
      return true;
  return false;
}

std::tuple<Tensor, Tensor> l2Norm(const Tensor &x, double eps) {
  if (!needsGrad({&x})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return l2Op().call(x, eps);
  }
  auto outs = L2NormFunction::apply(x, eps);
  return {outs[0], outs[1]};
}

Tensor l2NormInference(const Tensor &x, double eps) {
  if (!needsGrad({&x})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return l2InferenceOp().call(x, eps);
  }
  return L2NormInferenceFunction::apply(x, eps);
}

std::tuple<Tensor, Tensor>
rmsNormGated(const Tensor &x, const Tensor &z, const OptionalTensor &weight,
             double eps, double offset, c10::string_view activation,
             bool normBeforeGate, int64_t groupSize) {
  if (!needsGrad({&x, &z, weight ? &*weight : nullptr})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return gatedOp().call(x, z, weight, eps, offset, activation, normBeforeGate,
                          groupSize);
  }
  auto outs = GatedFunction::apply(x, z, weight, eps, offset, activation,
                                   normBeforeGate, groupSize);
  return {outs[0], outs[1]};
}

Tensor rmsNormGatedInference(const Tensor &x, const Tensor &z,
                             const OptionalTensor &weight, double eps,
                             double offset, c10::string_view activation,
                             bool normBeforeGate, int64_t groupSize) {
  if (!needsGrad({&x, &z, weight ? &*weight : nullptr})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return gatedInferenceOp().call(x, z, weight, eps, offset, activation,
                                   normBeforeGate, groupSize);
  }
  return GatedInferenceFunction::apply(x, z, weight, eps, offset, activation,
                                       normBeforeGate, groupSize);
}

} // namespace

TORCH_LIBRARY_IMPL(norm_mlir, Autograd, m) {
  m.impl("l2_norm", &l2Norm);
  m.impl("l2_norm_inference", &l2NormInference);
  m.impl("rms_norm_gated", &rmsNormGated);
  m.impl("rms_norm_gated_inference", &rmsNormGatedInference);
  // The backwards have no derivative: a clear error where one is asked for.
  m.impl("l2_norm_backward", torch::autograd::autogradNotImplementedFallback());
  m.impl("rms_norm_gated_backward",
         torch::autograd::autogradNotImplementedFallback());
}

} // namespace norm_mlir
