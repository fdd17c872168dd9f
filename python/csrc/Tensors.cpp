//===- Tensors.cpp - argument checks and layouts of the ops --------------===//

#include "Tensors.h"

#include <cstdint>

namespace norm_mlir {

std::string shapeText(c10::IntArrayRef shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

bool isFloat(c10::ScalarType t) {
  return t == c10::ScalarType::BFloat16 || t == c10::ScalarType::Half ||
         t == c10::ScalarType::Float;
}

void checkInput(const Tensor &x,
                std::initializer_list<const OptionalTensor *> params,
                const char *name) {
  TORCH_CHECK_TYPE(isFloat(x.scalar_type()), name,
                   ": x must be bfloat16, float16 or float32, got ",
                   x.scalar_type());
  TORCH_CHECK_VALUE(x.dim() >= 1 && x.size(-1) != 0, name,
                    ": x must have a non-empty last dimension, got shape ",
                    shapeText(x.sizes()));
  for (const OptionalTensor *p : params) {
    if (!p->has_value())
      continue;
    const Tensor &t = **p;
    TORCH_CHECK_VALUE(t.dim() == 1 && t.size(0) == x.size(-1), name,
                      ": weight/bias must have shape (",
                      std::to_string(x.size(-1)), ",), got ",
                      shapeText(t.sizes()));
    TORCH_CHECK_VALUE(t.device() == x.device(), name,
                      ": weight/bias must be on ", x.device().str(), ", got ",
                      t.device().str());
    TORCH_CHECK_TYPE(isFloat(t.scalar_type()), name,
                     ": weight/bias must be bfloat16, float16 or float32, got ",
                     t.scalar_type());
  }
  TORCH_CHECK_VALUE(x.is_cuda(), name, ": x must be a CUDA or CPU tensor, got ",
                    x.device().str());
}

void checkGrad(const Tensor &dy, const Tensor &x,
               std::initializer_list<const Tensor *> stats, const char *name,
               int64_t perRow) {
  TORCH_CHECK_VALUE(dy.sizes() == x.sizes() &&
                        dy.scalar_type() == x.scalar_type(),
                    name, ": dy must have the shape and dtype of x (",
                    shapeText(x.sizes()), ", ", x.scalar_type(), "), got (",
                    shapeText(dy.sizes()), ", ", dy.scalar_type(), ")");
  int64_t rows = x.numel() / x.size(-1) * perRow;
  TORCH_CHECK_VALUE(dy.device() == x.device(), name,
                    ": dy and the statistics must be on ", x.device().str(),
                    ", got ", dy.device().str());
  for (const Tensor *t : stats) {
    TORCH_CHECK_VALUE(t->device() == x.device(), name,
                      ": dy and the statistics must be on ", x.device().str(),
                      ", got ", t->device().str());
    TORCH_CHECK_VALUE(
        t->scalar_type() == c10::ScalarType::Float && t->numel() == rows, name,
        ": mean/rstd must be float32 with ",
        perRow == 1 ? std::string("one value per row")
                    : std::to_string(perRow) + " values per row (group)",
        " of x (", std::to_string(rows), "), got ", t->scalar_type(), " with ",
        std::to_string(t->numel()));
  }
}

void checkBias(const OptionalTensor &weight, const OptionalTensor &bias,
               const char *name) {
  if (!bias)
    return;
  TORCH_CHECK_VALUE(weight.has_value(), name, ": a bias needs a weight");
  TORCH_CHECK_TYPE(bias->scalar_type() == weight->scalar_type(), name,
                   ": the bias must have the weight's dtype (",
                   weight->scalar_type(), "), got ", bias->scalar_type());
}

Tensor aligned(const Tensor &t) {
  // The common case (a fresh or contiguous aligned tensor) makes no call.
  if (t.is_contiguous() &&
      reinterpret_cast<uintptr_t>(t.const_data_ptr()) % 16 == 0)
    return t;
  Tensor c = t.contiguous();
  if (reinterpret_cast<uintptr_t>(c.const_data_ptr()) % 16)
    c = c.clone();
  return c;
}

Tensor shaped(const Tensor &t, c10::IntArrayRef shape) {
  return t.sizes() == shape ? t : t.view(shape);
}

ProgramKey keyFor(Kind kind, const Tensor &x, const OptionalTensor &weight) {
  ProgramKey key;
  key.kind = kind;
  key.n = x.size(-1);
  key.dtype = x.scalar_type();
  if (weight)
    key.weightDtype = weight->scalar_type();
  key.device = x.device().index();
  return key;
}

int64_t rowsOf(const Tensor &x) { return x.numel() / x.size(-1); }

int64_t groupCount(int64_t groupSize, const Tensor &x, const char *name) {
  int64_t n = x.size(-1);
  TORCH_CHECK_VALUE(groupSize >= 0 && (groupSize == 0 || n % groupSize == 0),
                    name,
                    ": group_size must be 0 (the whole row) or divide the last "
                    "dimension (",
                    std::to_string(n), "), got ", std::to_string(groupSize));
  return groupSize ? n / groupSize : 1;
}

std::vector<int64_t> rowShape(const Tensor &x) {
  return std::vector<int64_t>(x.sizes().begin(), x.sizes().end() - 1);
}

void checkLike(const Tensor &t, const Tensor &x, const char *what,
               const char *name) {
  TORCH_CHECK_VALUE(
      t.sizes() == x.sizes() && t.scalar_type() == x.scalar_type() &&
          t.device() == x.device(),
      name, ": ", what, " must have the shape, dtype and device of x (",
      shapeText(x.sizes()), ", ", x.scalar_type(), ", ", x.device().str(),
      "), got (", shapeText(t.sizes()), ", ", t.scalar_type(), ", ",
      t.device().str(), ")");
}

std::vector<Tensor>
runForward(const ProgramKey &key, const std::vector<Tensor> &activations,
           std::initializer_list<const OptionalTensor *> params,
           size_t fullResults) {
  const Tensor &x = activations.front();
  std::vector<Tensor> inputs;
  for (const Tensor &a : activations)
    inputs.push_back(aligned(a));
  for (const OptionalTensor *p : params)
    if (p->has_value())
      inputs.push_back(aligned(**p));
  std::vector<Tensor> outs = runProgram(key, inputs, rowsOf(x));
  std::vector<int64_t> rows = rowShape(x);
  for (size_t i = 0; i < outs.size(); ++i) {
    if (i < fullResults) {
      outs[i] = shaped(outs[i], x.sizes());
      continue;
    }
    std::vector<int64_t> shape = rows;
    if (outs[i].dim() == 2) // One a group: M x N/G.
      shape.push_back(outs[i].size(1));
    outs[i] = shaped(outs[i], shape);
  }
  return outs;
}

} // namespace norm_mlir
