//===- NormShapes.cpp - shape and type rules of norm ops ------------------===//

#include "NormDialect/IR/NormShapes.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::norm;

bool mlir::norm::isSupportedFloatType(Type type) {
  return type.isBF16() || type.isF16() || type.isF32();
}

bool mlir::norm::isSupportedOutputType(Type type, Role role) {
  return isSupportedFloatType(type) ||
         (isa<Float8E4M3FNType>(type) && role != Role::col);
}

bool mlir::norm::dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

SmallVector<int64_t> mlir::norm::shapeForRole(Role role, int64_t m, int64_t n,
                                              int64_t groupSize) {
  switch (role) {
  case Role::group:
    return {m, ShapedType::isDynamic(n) || groupSize <= 0 ? ShapedType::kDynamic
                                                          : n / groupSize};
  case Role::full:
    return {m, n};
  case Role::row:
    return {m};
  case Role::col:
    return {n};
  }
  llvm_unreachable("unknown role");
}

Role mlir::norm::roleOfOrder(Order order) {
  switch (order) {
  case Order::row:
    return Role::row;
  case Order::col:
    return Role::col;
  case Order::group:
    return Role::group;
  }
  llvm_unreachable("unknown order");
}

static std::string dimToString(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

static std::string shapeToString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleave(
      shape, os, [&](int64_t d) { os << dimToString(d); }, "x");
  os << "]";
  return s;
}

std::string mlir::norm::checkRoleShape(Role role, ArrayRef<int64_t> shape,
                                       int64_t m, int64_t n,
                                       int64_t groupSize) {
  SmallVector<int64_t> expected = shapeForRole(role, m, n, groupSize);
  if (shape.size() != expected.size())
    return llvm::formatv("a '{0}' value must have rank {1}, got shape {2}",
                         stringifyRole(role), expected.size(),
                         shapeToString(shape));
  for (auto [got, want] : llvm::zip(shape, expected))
    if (!dimsCompatible(got, want))
      return llvm::formatv("a '{0}' value must have shape {1}, got {2}",
                           stringifyRole(role), shapeToString(expected),
                           shapeToString(shape));
  return {};
}

SmallVector<int64_t> mlir::norm::statsShape(ArrayRef<int64_t> x) {
  return SmallVector<int64_t>(x.drop_back());
}

int64_t mlir::norm::flattenedRows(ArrayRef<int64_t> x) {
  int64_t rows = 1;
  for (int64_t d : x.drop_back()) {
    if (ShapedType::isDynamic(d))
      return ShapedType::kDynamic;
    rows *= d;
  }
  return rows;
}

std::string mlir::norm::checkRowWidth(int64_t n, int64_t elementBytes) {
  if (ShapedType::isDynamic(n))
    return {};
  if (n <= 0)
    return llvm::formatv("the normalized dimension N must be positive, got {0}",
                         n);
  if (n > kMaxRowBytes / elementBytes)
    return llvm::formatv("rows of {0} elements of {1} bytes are longer than "
                         "2^40 bytes, the longest rows norm plans kernels for",
                         n, elementBytes);
  return {};
}

std::string mlir::norm::checkActivationType(ShapedType x) {
  if (!x.hasRank() || x.getRank() < 2)
    return "activations must have rank >= 2 (leading dimensions are rows, "
           "the innermost is normalized)";
  if (!isSupportedFloatType(x.getElementType()))
    return "unsupported activation element type: expected bf16, f16 or f32";
  if (std::string message =
          checkRowWidth(x.getShape().back(), x.getElementTypeBitWidth() / 8);
      !message.empty())
    return message;
  // The kernels address elements by 64-bit byte offsets: a static shape
  // past them would wrap (dynamic dimensions come from real tensors).
  int64_t bytes = x.getElementTypeBitWidth() / 8;
  for (int64_t dim : x.getShape())
    if (!ShapedType::isDynamic(dim) && llvm::MulOverflow(bytes, dim, bytes))
      return llvm::formatv("activations of shape {0} are past 2^63 bytes, "
                           "what 64-bit offsets address",
                           shapeToString(x.getShape()));
  return {};
}

std::string mlir::norm::checkStatsType(ShapedType stats, ArrayRef<int64_t> x) {
  if (!stats.getElementType().isF32())
    return "statistics must be f32";
  SmallVector<int64_t> want = statsShape(x);
  if (stats.getShape().size() != want.size())
    return llvm::formatv("statistics must have the leading dimensions of the "
                         "activation {0}, got {1}",
                         shapeToString(want), shapeToString(stats.getShape()));
  for (auto [got, expected] : llvm::zip(stats.getShape(), want))
    if (!dimsCompatible(got, expected))
      return llvm::formatv("statistics must have the leading dimensions of "
                           "the activation {0}, got {1}",
                           shapeToString(want),
                           shapeToString(stats.getShape()));
  return {};
}

std::string mlir::norm::checkParamType(ShapedType param, ArrayRef<int64_t> x) {
  if (param.getRank() != 1)
    return "weight and bias must have rank 1";
  if (!isSupportedFloatType(param.getElementType()))
    return "unsupported weight/bias element type: expected bf16, f16 or f32";
  if (!dimsCompatible(param.getDimSize(0), x.back()))
    return llvm::formatv("weight/bias length {0} does not match the normalized "
                         "dimension {1}",
                         dimToString(param.getDimSize(0)),
                         dimToString(x.back()));
  return {};
}
