//===- Tensors.h - argument checks and layouts of the ops ------*- C++ -*-===//
//
// What the CUDA kernels of the norm_mlir ops share on the tensor side: the
// argument checks (the errors of norm_mlir.checks, word for word), the copy
// into the layout the kernels read, and the program key of a call.
//
//===----------------------------------------------------------------------===//

#ifndef NORM_MLIR_CSRC_TENSORS_H
#define NORM_MLIR_CSRC_TENSORS_H

#include "Programs.h"

#include <ATen/core/Tensor.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace norm_mlir {

using at::Tensor;
using OptionalTensor = std::optional<Tensor>;

/// A shape as Python prints a tuple ("(4, 256)"). Numbers are formatted
/// here, not streamed into the error message: an extension built with
/// another C++ library than PyTorch's crashed streaming integers into
/// c10's message stream.
std::string shapeText(c10::IntArrayRef shape);

/// Whether the kernels take dtype `t` (bfloat16, float16, float32).
bool isFloat(c10::ScalarType t);

/// What every kernel needs of x and its weight and bias (norm_mlir.checks'
/// check_input and check_cuda, the same errors).
void checkInput(const Tensor &x,
                std::initializer_list<const OptionalTensor *> params,
                const char *name);

/// A backward's dy (x's shape and dtype) and statistics (float32,
/// `perRow` a row of x: one, or one a group), on x's device.
void checkGrad(const Tensor &dy, const Tensor &x,
               std::initializer_list<const Tensor *> stats, const char *name,
               int64_t perRow = 1);

/// The groups a row of x has for an op's `groupSize` (0: one, the whole
/// row), after checking that it divides the row.
int64_t groupCount(int64_t groupSize, const Tensor &x, const char *name);

/// A bias needs a weight of its dtype.
void checkBias(const OptionalTensor &weight, const OptionalTensor &bias,
               const char *name);

/// A second activation read beside x (a fused add's residual, a backward's
/// dh, a gate): x's shape, dtype and device; `what` names it in the error.
void checkLike(const Tensor &t, const Tensor &x, const char *what,
               const char *name);

/// `t` as the kernels read it: contiguous and starting on a 16-byte
/// boundary (their 16-byte vector accesses need it). Strided views and
/// views at odd offsets are copied, as norm_mlir.checks.aligned does.
Tensor aligned(const Tensor &t);

/// `t` (a result of the program's shape) viewed as `shape`; itself where
/// the shapes agree (2-D x), which saves a view per result.
Tensor shaped(const Tensor &t, c10::IntArrayRef shape);

/// The key of `kind`'s program for x and its weight (flags left default).
ProgramKey keyFor(Kind kind, const Tensor &x, const OptionalTensor &weight);

/// Runs forward program `key` over x's rows (x = activations[0]): its
/// inputs are `activations` (x, then any other M x N input) and the
/// parameters present, all aligned; its first `fullResults` results are
/// shaped as x, the rest (per-row statistics, scales) as x's rows, those
/// with a value per group as x's rows by their groups.
std::vector<Tensor>
runForward(const ProgramKey &key, const std::vector<Tensor> &activations,
           std::initializer_list<const OptionalTensor *> params,
           size_t fullResults);

/// The rows of x: all its leading dimensions.
int64_t rowsOf(const Tensor &x);

/// x's shape without its last dimension: the statistics' shape.
std::vector<int64_t> rowShape(const Tensor &x);

} // namespace norm_mlir

#endif // NORM_MLIR_CSRC_TENSORS_H
