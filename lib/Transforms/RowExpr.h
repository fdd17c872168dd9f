//===- RowExpr.h - linalg on tensors read as row expressions ----*- C++ -*-===//
//
// Private to lib/Transforms: what --norm-raise reads of linalg-on-tensors IR.
// A tensor over rows of N elements (shape [rows..., N]) is read as the scalar
// expression of one of its elements, through the elementwise linalg.generic
// ops that make it, the sums over the last dimension (linalg.generic with a
// trailing reduction into a zero fill) and the reshapes that only add or drop
// a trailing unit dimension. Each value is then of an order: the same at
// every element (scalar), per row (row: [rows...] or [rows..., 1]), per
// column ([N]) or full. Anything else is a leaf: a function argument, a
// matmul's result, a generic that broadcasts or transposes otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_TRANSFORMS_ROWEXPR_H
#define LIB_TRANSFORMS_ROWEXPR_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <deque>

namespace mlir::norm {

/// How a value varies over the rows x N space. Other: a shape that is none
/// of these (the value cannot be part of a row computation).
enum class RowOrder { Scalar, Row, Col, Full, Other };

/// The order of a value that depends on values of orders `a` and `b`.
RowOrder joinOrders(RowOrder a, RowOrder b);

/// One element of a row computation.
struct RowExpr {
  enum class Kind { Leaf, Constant, Op, RowSum };
  Kind kind = Kind::Leaf;
  RowOrder order = RowOrder::Other;
  /// The element type.
  Type type;
  /// Leaf: the tensor read.
  Value leaf;
  /// Constant: its value.
  double value = 0;
  /// Op: the arith or math operation's name (math.fpowi and math.powf by 2
  /// read as arith.mulf of the base by itself).
  StringRef name;
  /// Op: its operands; RowSum: the summand.
  SmallVector<const RowExpr *, 2> operands;

  bool isOp(StringRef opName) const {
    return kind == Kind::Op && name == opName;
  }
};

/// Reads tensors of one row space (leading dimensions `rowShape`, rows of
/// `n` elements) as RowExprs. Each value is read once.
class RowExprReader {
public:
  RowExprReader(ArrayRef<int64_t> rowShape, int64_t n)
      : rowShape(rowShape), n(n) {}

  /// The element of `tensor`: an expression of its ops, else a leaf.
  const RowExpr *read(Value tensor);

  /// The first tensor read whose element `expr` is, or null.
  Value tensorOf(const RowExpr *expr) const { return tensors.lookup(expr); }

  /// The order of a tensor of `type` in this row space.
  RowOrder orderOf(Type type) const;

private:
  const RowExpr *leaf(Value tensor);
  const RowExpr *constant(double value, Type type);
  const RowExpr *readGeneric(Operation *generic, unsigned result);
  /// The order a generic's operand map reads `tensor` in, or Other.
  RowOrder mapOrder(Operation *generic, unsigned operand) const;

  SmallVector<int64_t> rowShape;
  int64_t n;
  std::deque<RowExpr> storage;
  llvm::DenseMap<Value, const RowExpr *> memo;
  llvm::DenseMap<const RowExpr *, Value> tensors;
};

/// Whether `a` and `b` compute the same value (the same leaves, constants
/// and operations).
bool sameRowExpr(const RowExpr *a, const RowExpr *b);

} // namespace mlir::norm

#endif // LIB_TRANSFORMS_ROWEXPR_H
