//===- NormShapes.h - shape and type rules of norm ops ----------*- C++ -*-===//
//
// The shape and element-type rules shared by the verifiers, the passes and
// the unit tests. Pure functions of shapes and types: no IR is needed to call
// them.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_IR_NORMSHAPES_H
#define NORMDIALECT_IR_NORMSHAPES_H

#include "NormDialect/IR/NormAttrs.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace mlir::norm {

/// True for the element types norm computes on: bf16, f16 and f32.
bool isSupportedFloatType(Type type);

/// Element types a kernel output of role `role` may have: those of
/// isSupportedFloatType, and f8E4M3FN for full and row outputs (an FP8
/// quantized result, rounded once from f32; column outputs are sums).
bool isSupportedOutputType(Type type, Role role);

/// True when two dimension sizes can be equal (either may be dynamic).
bool dimsCompatible(int64_t a, int64_t b);

/// Shape of a value with role `role` in an M x N iteration space.
/// A `group` value is M x (N / groupSize) (its second dimension dynamic
/// where N is, or without a group size).
llvm::SmallVector<int64_t> shapeForRole(Role role, int64_t m, int64_t n,
                                        int64_t groupSize = 0);

/// The role of a reduction's result along `order`: one value per row
/// (row), per column (col), or per row and group (group).
Role roleOfOrder(Order order);

/// Checks that `shape` fits role `role` in an M x N space. Returns an empty
/// string when it does, else a message naming the mismatch.
std::string checkRoleShape(Role role, llvm::ArrayRef<int64_t> shape, int64_t m,
                           int64_t n, int64_t groupSize = 0);

/// The statistics shape of an activation: its leading (row) dimensions.
llvm::SmallVector<int64_t> statsShape(llvm::ArrayRef<int64_t> activationShape);

/// Number of rows of an activation: the product of its leading dimensions,
/// or ShapedType::kDynamic when one of them is dynamic.
int64_t flattenedRows(llvm::ArrayRef<int64_t> activationShape);

/// Checks the shape and type of a user op's per-row statistics operand or
/// result against activation shape `x`. Empty string when valid.
std::string checkStatsType(ShapedType stats, llvm::ArrayRef<int64_t> x);

/// Checks a weight or bias (rank 1, length N of `x`, supported float type).
/// Empty string when valid.
std::string checkParamType(ShapedType param, llvm::ArrayRef<int64_t> x);

/// The longest row, in bytes, norm plans kernels for: far beyond any GPU's
/// memory, and small enough that the tuning's products of row bytes with
/// operand and thread counts stay within 64 bits.
constexpr int64_t kMaxRowBytes = int64_t(1) << 40;

/// Checks a static normalized size `n` of elements of `elementBytes` bytes:
/// positive and at most kMaxRowBytes. Empty when valid (or dynamic).
std::string checkRowWidth(int64_t n, int64_t elementBytes);

/// Checks an activation (rank >= 2, supported float type, static sizes whose
/// bytes 64-bit offsets address). Empty when valid.
std::string checkActivationType(ShapedType x);

} // namespace mlir::norm

#endif // NORMDIALECT_IR_NORMSHAPES_H
