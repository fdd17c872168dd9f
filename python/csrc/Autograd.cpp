//===- Autograd.cpp - autograd kernels of the norm_mlir ops --------------===//
//
// The forwards' autograd formulas, in C++ so a training call costs no
// Python: the training forwards save x, the weight and the statistics and
// call their backward op; the inference forwards save nothing and refuse a
// backward. They call the ops below autograd through the dispatcher, so
// the same formulas serve CUDA, CPU (Python kernels) and fake tensors under
// torch.compile.
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

// The ops below autograd, looked up once.
using RmsNormSignature = std::tuple<Tensor, Tensor>(const Tensor &,
                                                    const OptionalTensor &,
                                                    double, double);
using LayerNormSignature = std::tuple<Tensor, Tensor, Tensor>(
    const Tensor &, const OptionalTensor &, const OptionalTensor &, double,
    double);
using RmsInferenceSignature = Tensor(const Tensor &, const OptionalTensor &,
                                     double, double);
using LayerInferenceSignature = Tensor(const Tensor &, const OptionalTensor &,
                                       const OptionalTensor &, double, double);
/// layer_norm_backward and fused_add_layer_norm_backward.
using LayerBackwardSignature = std::tuple<Tensor, Tensor, Tensor>(
    const Tensor &, const Tensor &, const Tensor &, const Tensor &,
    const OptionalTensor &, bool, double);
using AddLayerBackwardSignature = std::tuple<Tensor, Tensor, Tensor>(
    const Tensor &, const Tensor &, const Tensor &, const Tensor &,
    const Tensor &, const OptionalTensor &, bool, double);

const c10::TypedOperatorHandle<RmsNormSignature> &rmsNormOp() {
  static auto handle = lookupOp<RmsNormSignature>("norm_mlir::rms_norm");
  return handle;
}
const c10::TypedOperatorHandle<LayerNormSignature> &layerNormOp() {
  static auto handle = lookupOp<LayerNormSignature>("norm_mlir::layer_norm");
  return handle;
}
const c10::TypedOperatorHandle<RmsInferenceSignature> &rmsNormInferenceOp() {
  static auto handle =
      lookupOp<RmsInferenceSignature>("norm_mlir::rms_norm_inference");
  return handle;
}
const c10::TypedOperatorHandle<LayerInferenceSignature> &
layerNormInferenceOp() {
  static auto handle =
      lookupOp<LayerInferenceSignature>("norm_mlir::layer_norm_inference");
  return handle;
}

OptionalTensor optional(const Tensor &t) {
  return t.defined() ? OptionalTensor(t) : std::nullopt;
}

class RmsNormFunction : public torch::autograd::Function<RmsNormFunction> {
public:
  static variable_list forward(AutogradContext *ctx, const Tensor &x,
                               const OptionalTensor &weight, double eps,
                               double offset) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [y, rstd] = rmsNormOp().call(x, weight, eps, offset);
    ctx->save_for_backward({x, weight.value_or(Tensor()), rstd});
    ctx->saved_data["offset"] = offset;
    ctx->mark_non_differentiable({rstd});
    // A loss that does not use y gives no gradient for it: left undefined
    // rather than a tensor of zeros (an allocation and a kernel per call).
    ctx->set_materialize_grads(false);
    return {y, rstd};
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    static auto rmsNormBackward = lookupOp<std::tuple<Tensor, Tensor>(
        const Tensor &, const Tensor &, const Tensor &, const OptionalTensor &,
        double)>("norm_mlir::rms_norm_backward");
    auto saved = ctx->get_saved_variables();
    OptionalTensor weight = optional(saved[1]);
    if (!grads[0].defined())
      return {Tensor(), Tensor(), Tensor(), Tensor()};
    auto [dx, dw] = rmsNormBackward.call(grads[0], saved[0], saved[2], weight,
                                         ctx->saved_data["offset"].toDouble());
    return {dx, weight ? dw : Tensor(), Tensor(), Tensor()};
  }
};

class LayerNormFunction : public torch::autograd::Function<LayerNormFunction> {
public:
  static variable_list forward(AutogradContext *ctx, const Tensor &x,
                               const OptionalTensor &weight,
                               const OptionalTensor &bias, double eps,
                               double offset) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [y, mean, rstd] = layerNormOp().call(x, weight, bias, eps, offset);
    ctx->save_for_backward({x, weight.value_or(Tensor()), mean, rstd});
    ctx->saved_data["has_bias"] = bias.has_value();
    ctx->saved_data["offset"] = offset;
    ctx->mark_non_differentiable({mean, rstd});
    ctx->set_materialize_grads(false);
    return {y, mean, rstd};
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    static auto layerNormBackward =
        lookupOp<LayerBackwardSignature>("norm_mlir::layer_norm_backward");
    auto saved = ctx->get_saved_variables();
    OptionalTensor weight = optional(saved[1]);
    bool hasBias = ctx->saved_data["has_bias"].toBool();
    if (!grads[0].defined())
      return {Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
    auto [dx, dw, db] = layerNormBackward.call(
        grads[0], saved[0], saved[2], saved[3], weight, hasBias,
        ctx->saved_data["offset"].toDouble());
    return {dx, weight ? dw : Tensor(), hasBias ? db : Tensor(), Tensor(),
            Tensor()};
  }
};

using AddRmsSignature = std::tuple<Tensor, Tensor, Tensor>(
    const Tensor &, const Tensor &, const OptionalTensor &, double, double);
using AddLayerSignature = std::tuple<Tensor, Tensor, Tensor, Tensor>(
    const Tensor &, const Tensor &, const OptionalTensor &,
    const OptionalTensor &, double, double);
using AddRmsInferenceSignature = std::tuple<Tensor, Tensor>(
    const Tensor &, const Tensor &, const OptionalTensor &, double, double);
using AddLayerInferenceSignature = std::tuple<Tensor, Tensor>(
    const Tensor &, const Tensor &, const OptionalTensor &,
    const OptionalTensor &, double, double);

/// The fused residual add and RMSNorm: y and h = x + residual are both
/// differentiable; x and the residual get the same gradient, the norm's at
/// h plus h's own (dh), summed inside the backward kernel.
class FusedAddRmsNormFunction
    : public torch::autograd::Function<FusedAddRmsNormFunction> {
public:
  static variable_list forward(AutogradContext *ctx, const Tensor &x,
                               const Tensor &residual,
                               const OptionalTensor &weight, double eps,
                               double offset) {
    at::AutoDispatchBelowADInplaceOrView below;
    static auto fused =
        lookupOp<AddRmsSignature>("norm_mlir::fused_add_rms_norm");
    auto [y, h, rstd] = fused.call(x, residual, weight, eps, offset);
    ctx->save_for_backward({h, weight.value_or(Tensor()), rstd});
    ctx->saved_data["offset"] = offset;
    ctx->mark_non_differentiable({rstd});
    ctx->set_materialize_grads(false);
    return {y, h, rstd};
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    static auto plain = lookupOp<std::tuple<Tensor, Tensor>(
        const Tensor &, const Tensor &, const Tensor &, const OptionalTensor &,
        double)>("norm_mlir::rms_norm_backward");
    static auto fused = lookupOp<std::tuple<Tensor, Tensor>(
        const Tensor &, const Tensor &, const Tensor &, const Tensor &,
        const OptionalTensor &, double)>(
        "norm_mlir::fused_add_rms_norm_backward");
    auto saved = ctx->get_saved_variables();
    OptionalTensor weight = optional(saved[1]);
    double offset = ctx->saved_data["offset"].toDouble();
    const Tensor &dy = grads[0], &dh = grads[1];
    Tensor dx, dw;
    if (dy.defined() && dh.defined())
      std::tie(dx, dw) = fused.call(dy, dh, saved[0], saved[2], weight, offset);
    else if (dy.defined())
      std::tie(dx, dw) = plain.call(dy, saved[0], saved[2], weight, offset);
    else
      dx = dh;
    return {dx, dx, weight && dw.defined() ? dw : Tensor(), Tensor(),
            Tensor()};
  }
};

/// The fused residual add and LayerNorm (as FusedAddRmsNormFunction).
class FusedAddLayerNormFunction
    : public torch::autograd::Function<FusedAddLayerNormFunction> {
public:
  static variable_list forward(AutogradContext *ctx, const Tensor &x,
                               const Tensor &residual,
                               const OptionalTensor &weight,
                               const OptionalTensor &bias, double eps,
                               double offset) {
    at::AutoDispatchBelowADInplaceOrView below;
    static auto fused =
        lookupOp<AddLayerSignature>("norm_mlir::fused_add_layer_norm");
    auto [y, h, mean, rstd] =
        fused.call(x, residual, weight, bias, eps, offset);
    ctx->save_for_backward({h, weight.value_or(Tensor()), mean, rstd});
    ctx->saved_data["has_bias"] = bias.has_value();
    ctx->saved_data["offset"] = offset;
    ctx->mark_non_differentiable({mean, rstd});
    ctx->set_materialize_grads(false);
    return {y, h, mean, rstd};
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    static auto plain =
        lookupOp<LayerBackwardSignature>("norm_mlir::layer_norm_backward");
    static auto fused = lookupOp<AddLayerBackwardSignature>(
        "norm_mlir::fused_add_layer_norm_backward");
    auto saved = ctx->get_saved_variables();
    OptionalTensor weight = optional(saved[1]);
    bool hasBias = ctx->saved_data["has_bias"].toBool();
    double offset = ctx->saved_data["offset"].toDouble();
    const Tensor &dy = grads[0], &dh = grads[1];
    Tensor dx, dw, db;
    if (dy.defined() && dh.defined())
      std::tie(dx, dw, db) = fused.call(dy, dh, saved[0], saved[2], saved[3],
                                        weight, hasBias, offset);
    else if (dy.defined())
      std::tie(dx, dw, db) =
          plain.call(dy, saved[0], saved[2], saved[3], weight, hasBias, offset);
    else
      dx = dh;
    return {dx,       dx,       weight && dw.defined() ? dw : Tensor(),
            hasBias && db.defined() ? db : Tensor(), Tensor(), Tensor()};
  }
};

/// The inference forwards store no statistics, so a gradient through them
/// is a clear error naming the op to use instead.
template <typename Derived> [[noreturn]] void refuseBackward() {
  TORCH_CHECK(false, "norm_mlir::", Derived::kName,
              " has no backward (it saves no statistics); use norm_mlir::",
              Derived::kTraining, " where gradients are needed");
}

class RmsNormInferenceFunction
    : public torch::autograd::Function<RmsNormInferenceFunction> {
public:
  static constexpr const char *kName = "rms_norm_inference";
  static constexpr const char *kTraining = "rms_norm";
  static Tensor forward(AutogradContext *ctx, const Tensor &x,
                        const OptionalTensor &weight, double eps,
                        double offset) {
    at::AutoDispatchBelowADInplaceOrView below;
    return rmsNormInferenceOp().call(x, weight, eps, offset);
  }
  static variable_list backward(AutogradContext *, variable_list) {
    refuseBackward<RmsNormInferenceFunction>();
  }
};

class LayerNormInferenceFunction
    : public torch::autograd::Function<LayerNormInferenceFunction> {
public:
  static constexpr const char *kName = "layer_norm_inference";
  static constexpr const char *kTraining = "layer_norm";
  static Tensor forward(AutogradContext *ctx, const Tensor &x,
                        const OptionalTensor &weight,
                        const OptionalTensor &bias, double eps,
                        double offset) {
    at::AutoDispatchBelowADInplaceOrView below;
    return layerNormInferenceOp().call(x, weight, bias, eps, offset);
  }
  static variable_list backward(AutogradContext *, variable_list) {
    refuseBackward<LayerNormInferenceFunction>();
  }
};

class FusedAddRmsNormInferenceFunction
    : public torch::autograd::Function<FusedAddRmsNormInferenceFunction> {
public:
  static constexpr const char *kName = "fused_add_rms_norm_inference";
  static constexpr const char *kTraining = "fused_add_rms_norm";
  static variable_list forward(AutogradContext *ctx, const Tensor &x,
                               const Tensor &residual,
                               const OptionalTensor &weight, double eps,
                               double offset) {
    at::AutoDispatchBelowADInplaceOrView below;
    static auto inference = lookupOp<AddRmsInferenceSignature>(
        "norm_mlir::fused_add_rms_norm_inference");
    auto [y, h] = inference.call(x, residual, weight, eps, offset);
    return {y, h};
  }
  static variable_list backward(AutogradContext *, variable_list) {
    refuseBackward<FusedAddRmsNormInferenceFunction>();
  }
};

class FusedAddLayerNormInferenceFunction
    : public torch::autograd::Function<FusedAddLayerNormInferenceFunction> {
public:
  static constexpr const char *kName = "fused_add_layer_norm_inference";
  static constexpr const char *kTraining = "fused_add_layer_norm";
  static variable_list forward(AutogradContext *ctx, const Tensor &x,
                               const Tensor &residual,
                               const OptionalTensor &weight,
                               const OptionalTensor &bias, double eps,
                               double offset) {
    at::AutoDispatchBelowADInplaceOrView below;
    static auto inference = lookupOp<AddLayerInferenceSignature>(
        "norm_mlir::fused_add_layer_norm_inference");
    auto [y, h] = inference.call(x, residual, weight, bias, eps, offset);
    return {y, h};
  }
  static variable_list backward(AutogradContext *, variable_list) {
    refuseBackward<FusedAddLayerNormInferenceFunction>();
  }
};

/// Whether autograd needs this call's backward. Where it does not (no_grad,
/// inference, inputs without requires_grad) the op runs below autograd
/// directly: no node, no saved tensors, no Python.
bool needsGrad(const Tensor &x, const OptionalTensor &a,
               const OptionalTensor &b = std::nullopt) {
  return at::GradMode::is_enabled() &&
         (x.requires_grad() || (a && a->requires_grad()) ||
          (b && b->requires_grad()));
}

std::tuple<Tensor, Tensor> rmsNorm(const Tensor &x,
                                   const OptionalTensor &weight, double eps,
                                   double offset) {
  if (!needsGrad(x, weight)) {
    at::AutoDispatchBelowADInplaceOrView below;
    return rmsNormOp().call(x, weight, eps, offset);
  }
  auto outs = RmsNormFunction::apply(x, weight, eps, offset);
  return {outs[0], outs[1]};
}

std::tuple<Tensor, Tensor, Tensor> layerNorm(const Tensor &x,
                                             const OptionalTensor &weight,
                                             const OptionalTensor &bias,
                                             double eps, double offset) {
  if (!needsGrad(x, weight, bias)) {
    at::AutoDispatchBelowADInplaceOrView below;
    return layerNormOp().call(x, weight, bias, eps, offset);
  }
  auto outs = LayerNormFunction::apply(x, weight, bias, eps, offset);
  return {outs[0], outs[1], outs[2]};
}

Tensor rmsNormInference(const Tensor &x, const OptionalTensor &weight,
                        double eps, double offset) {
  if (!needsGrad(x, weight)) {
    at::AutoDispatchBelowADInplaceOrView below;
    return rmsNormInferenceOp().call(x, weight, eps, offset);
  }
  return RmsNormInferenceFunction::apply(x, weight, eps, offset);
}

Tensor layerNormInference(const Tensor &x, const OptionalTensor &weight,
                          const OptionalTensor &bias, double eps,
                          double offset) {
  if (!needsGrad(x, weight, bias)) {
    at::AutoDispatchBelowADInplaceOrView below;
    return layerNormInferenceOp().call(x, weight, bias, eps, offset);
  }
  return LayerNormInferenceFunction::apply(x, weight, bias, eps, offset);
}

bool needsGrad(const Tensor &x, const Tensor &residual,
               const OptionalTensor &a, const OptionalTensor &b) {
  return needsGrad(x, a, b) ||
         (at::GradMode::is_enabled() && residual.requires_grad());
}

std::tuple<Tensor, Tensor, Tensor>
fusedAddRmsNorm(const Tensor &x, const Tensor &residual,
                const OptionalTensor &weight, double eps, double offset) {
  if (!needsGrad(x, residual, weight, std::nullopt)) {
    at::AutoDispatchBelowADInplaceOrView below;
    static auto fused =
        lookupOp<AddRmsSignature>("norm_mlir::fused_add_rms_norm");
    return fused.call(x, residual, weight, eps, offset);
  }
  auto outs = FusedAddRmsNormFunction::apply(x, residual, weight, eps, offset);
  return {outs[0], outs[1], outs[2]};
}

std::tuple<Tensor, Tensor, Tensor, Tensor>
fusedAddLayerNorm(const Tensor &x, const Tensor &residual,
                  const OptionalTensor &weight, const OptionalTensor &bias,
                  double eps, double offset) {
  if (!needsGrad(x, residual, weight, bias)) {
    at::AutoDispatchBelowADInplaceOrView below;
    static auto fused =
        lookupOp<AddLayerSignature>("norm_mlir::fused_add_layer_norm");
    return fused.call(x, residual, weight, bias, eps, offset);
  }
  auto outs =
      FusedAddLayerNormFunction::apply(x, residual, weight, bias, eps, offset);
  return {outs[0], outs[1], outs[2], outs[3]};
}

std::tuple<Tensor, Tensor>
fusedAddRmsNormInference(const Tensor &x, const Tensor &residual,
                         const OptionalTensor &weight, double eps,
                         double offset) {
  if (!needsGrad(x, residual, weight, std::nullopt)) {
    at::AutoDispatchBelowADInplaceOrView below;
    static auto inference = lookupOp<AddRmsInferenceSignature>(
        "norm_mlir::fused_add_rms_norm_inference");
    return inference.call(x, residual, weight, eps, offset);
  }
  auto outs = FusedAddRmsNormInferenceFunction::apply(x, residual, weight,
                                                      eps, offset);
  return {outs[0], outs[1]};
}

std::tuple<Tensor, Tensor>
fusedAddLayerNormInference(const Tensor &x, const Tensor &residual,
                           const OptionalTensor &weight,
                           const OptionalTensor &bias, double eps,
                           double offset) {
  if (!needsGrad(x, residual, weight, bias)) {
    at::AutoDispatchBelowADInplaceOrView below;
    static auto inference = lookupOp<AddLayerInferenceSignature>(
        "norm_mlir::fused_add_layer_norm_inference");
    return inference.call(x, residual, weight, bias, eps, offset);
  }
  auto outs = FusedAddLayerNormInferenceFunction::apply(x, residual, weight,
                                                        bias, eps, offset);
  return {outs[0], outs[1]};
}

} // namespace

TORCH_LIBRARY_IMPL(norm_mlir, Autograd, m) {
  m.impl("rms_norm", &rmsNorm);
  m.impl("layer_norm", &layerNorm);
  m.impl("rms_norm_inference", &rmsNormInference);
  m.impl("layer_norm_inference", &layerNormInference);
  // The backwards have no derivative: a clear error where one is asked for.
  m.impl("rms_norm_backward",
         torch::autograd::autogradNotImplementedFallback());
  m.impl("layer_norm_backward",
         torch::autograd::autogradNotImplementedFallback());
  m.impl("fused_add_rms_norm", &fusedAddRmsNorm);
  m.impl("fused_add_layer_norm", &fusedAddLayerNorm);
  m.impl("fused_add_rms_norm_inference", &fusedAddRmsNormInference);
  m.impl("fused_add_layer_norm_inference", &fusedAddLayerNormInference);
  m.impl("fused_add_rms_norm_backward",
         torch::autograd::autogradNotImplementedFallback());
  m.impl("fused_add_layer_norm_backward",
         torch::autograd::autogradNotImplementedFallback());
}

} // namespace norm_mlir
