//===- Level2Builder.h - order-typed ops over a 2-D view of rows -*- C++
//-*-===//
//
// Private to lib/Transforms: builds norm.reduce / norm.map ops over the
// M x N view of a normalization's rows (leading dimensions collapsed, and
// expanded again on the results), shared by --norm-decompose and
// --norm-raise.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_TRANSFORMS_LEVEL2BUILDER_H
#define LIB_TRANSFORMS_LEVEL2BUILDER_H

#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/IR/NormOps.h"
#include "NormDialect/IR/NormShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/Builders.h"

namespace mlir::norm {

/// Builds the regions of norm.reduce / norm.map: arguments are the inputs'
/// elements, the callback computes the yielded value.
using BodyFn =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange elements)>;

/// One input of a level-2 op: a value and the role it is read with.
struct Input {
  Value value;
  Role role;
};

/// The 2-D (M x N) view of one normalization's rows and the level-2 ops
/// built on it: --norm-decompose's user ops and --norm-raise's L2 norm.
class Level2Builder {
public:
  Level2Builder(OpBuilder &rewriter, Location loc, Value x)
      : b(rewriter), loc(loc), x(x) {
    xType = cast<RankedTensorType>(x.getType());
    x2d = toRows(x);
    auto x2dType = cast<RankedTensorType>(x2d.getType());
    m = x2dType.getDimSize(0);
    n = x2dType.getDimSize(1);
    f32 = b.getF32Type();
    invN = buildInverseN();
  }

  /// The M x N view of an activation.
  Value toRows(Value activation) {
    auto type = cast<RankedTensorType>(activation.getType());
    if (type.getRank() == 2)
      return activation;
    ReassociationIndices leading;
    for (int64_t d = 0; d + 1 < type.getRank(); ++d)
      leading.push_back(d);
    SmallVector<ReassociationIndices> reassoc = {leading, {type.getRank() - 1}};
    return tensor::CollapseShapeOp::create(b, loc, activation, reassoc);
  }

  /// What a backward's decomposition starts from: the rows of dy, the
  /// statistics as rows (mean and rstd, or rstd) and the inputs its row
  /// reductions and dx read: dy, x, the statistics, then the weight if
  /// any. The op's norm.split_size travels to the kernels it becomes.
  struct GradInputs {
    Value dy;
    SmallVector<Value> stats;
    Value weight;
    SmallVector<Input> common;
  };
  GradInputs gradInputs(Operation *op, Value dy, ValueRange stats,
                        Value weight) {
    splitHint = op->getAttr(NormDialect::SplitSizeAttrHelper::getNameStr());
    GradInputs g;
    g.dy = toRows(dy);
    g.weight = weight;
    g.common = {{g.dy, Role::full}, {x2d, Role::full}};
    for (Value stat : stats) {
      g.stats.push_back(statsToRows(stat));
      g.common.push_back({g.stats.back(), Role::row});
    }
    if (weight)
      g.common.push_back({weight, Role::col});
    return g;
  }

  /// The M view of per-row statistics.
  Value statsToRows(Value stats) {
    auto type = cast<RankedTensorType>(stats.getType());
    if (type.getRank() == 1)
      return stats;
    ReassociationIndices all;
    for (int64_t d = 0; d < type.getRank(); ++d)
      all.push_back(d);
    return tensor::CollapseShapeOp::create(
        b, loc, stats, SmallVector<ReassociationIndices>{all});
  }

  /// The activation's leading (row) dimensions, as one reassociation group.
  ReassociationIndices rowDims() const {
    ReassociationIndices dims;
    for (int64_t d = 0; d + 1 < xType.getRank(); ++d)
      dims.push_back(d);
    return dims;
  }

  /// Expands an M x N result back to the activation's shape.
  Value activationFromRows(Value value2d) {
    if (xType.getRank() == 2)
      return value2d;
    SmallVector<ReassociationIndices> reassoc = {rowDims(),
                                                 {xType.getRank() - 1}};
    auto type = RankedTensorType::get(
        xType.getShape(),
        cast<RankedTensorType>(value2d.getType()).getElementType());
    return expandRows(value2d, type, reassoc, tensor::getMixedSizes(b, loc, x));
  }

  /// Expands an M-vector back to the statistics shape (leading dims of x).
  Value statsFromRows(Value value1d) {
    if (xType.getRank() == 2)
      return value1d;
    auto type = RankedTensorType::get(xType.getShape().drop_back(), f32);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    sizes.pop_back();
    return expandRows(value1d, type,
                      SmallVector<ReassociationIndices>{rowDims()}, sizes);
  }

  /// `value` reshaped to `type` (its row dimension expanded into x's
  /// leading dimensions, whose sizes `sizes` lists): tensor.expand_shape where
  /// at most one leading dimension is dynamic, else tensor.reshape. Upstream
  /// expand-strided-metadata crashes on the memref.expand_shape of several
  /// dynamic sizes in one group (MLIR 22), which both the CPU and the GPU
  /// pipelines run; memref.reshape of a contiguous buffer lowers directly.
  Value expandRows(Value value, RankedTensorType type,
                   ArrayRef<ReassociationIndices> reassoc,
                   ArrayRef<OpFoldResult> sizes) {
    if (llvm::count_if(xType.getShape().drop_back(), ShapedType::isDynamic) <=
        1)
      return tensor::ExpandShapeOp::create(b, loc, type, value, reassoc, sizes);
    SmallVector<Value> dims;
    for (OpFoldResult size : sizes)
      dims.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
    Value shape = tensor::FromElementsOp::create(b, loc, dims);
    return tensor::ReshapeOp::create(b, loc, type, value, shape);
  }

  Value reduce(Order order, Type elementType, ArrayRef<Input> inputs,
               BodyFn body) {
    Role resultRole = roleOfOrder(order);
    auto type = RankedTensorType::get(
        resultRole == Role::row ? ArrayRef<int64_t>{m} : ArrayRef<int64_t>{n},
        elementType);
    auto [values, roles] = split(inputs);
    auto op = ReduceOp::create(
        b, loc, type, OrderAttr::get(b.getContext(), order),
        CombinerAttr::get(b.getContext(), Combiner::add), values, roles,
        /*group_size=*/nullptr);
    if (order == Order::col && splitHint)
      op->setAttr(NormDialect::SplitSizeAttrHelper::getNameStr(), splitHint);
    fillBody(op.getBody(), values, body);
    return op.getResult();
  }

  Value map(Role resultRole, Type elementType, ArrayRef<Input> inputs,
            BodyFn body) {
    SmallVector<int64_t> shape;
    if (resultRole == Role::full)
      shape = {m, n};
    else
      shape = {resultRole == Role::row ? m : n};
    auto type = RankedTensorType::get(shape, elementType);
    auto [values, roles] = split(inputs);
    auto op = MapOp::create(
        b, loc, type, RoleAttr::get(b.getContext(), resultRole), values, roles,
        /*group_size=*/nullptr);
    fillBody(op.getBody(), values, body);
    return op.getResult();
  }

  /// rstd = rsqrt(sum * invN + eps) as a row map over `sum`.
  Value rstdFromSum(Value sum, double epsilon) {
    return map(Role::row, f32, {{sum, Role::row}},
               [&](OpBuilder &ob, Location l, ValueRange e) -> Value {
                 Value eps = constant(ob, l, epsilon);
                 Value meanSq = arith::MulFOp::create(ob, l, e[0], invN);
                 Value sumEps = arith::AddFOp::create(ob, l, meanSq, eps);
                 return math::RsqrtOp::create(ob, l, sumEps);
               });
  }

  static Value constant(OpBuilder &ob, Location l, double value) {
    return arith::ConstantOp::create(ob, l, ob.getF32FloatAttr(value));
  }
  static Value toF32(OpBuilder &ob, Location l, Value v) {
    if (v.getType().isF32())
      return v;
    return arith::ExtFOp::create(ob, l, ob.getF32Type(), v);
  }
  static Value fromF32(OpBuilder &ob, Location l, Value v, Type type) {
    if (type.isF32())
      return v;
    return arith::TruncFOp::create(ob, l, type, v);
  }

  OpBuilder &b;
  Location loc;
  Value x, x2d;
  RankedTensorType xType;
  int64_t m, n;
  Type f32;
  /// 1/N as an f32 value defined before the level-2 ops (captured by them).
  Value invN;
  /// The user op's `norm.split_size`, carried to its column reductions.
  Attribute splitHint;

private:
  Value buildInverseN() {
    if (!ShapedType::isDynamic(n))
      return constant(b, loc, 1.0 / static_cast<double>(n));
    Value dim = tensor::DimOp::create(b, loc, x2d, 1);
    Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), dim);
    Value asFloat = arith::UIToFPOp::create(b, loc, f32, asInt);
    return arith::DivFOp::create(b, loc, constant(b, loc, 1.0), asFloat);
  }

  std::pair<SmallVector<Value>, ArrayAttr> split(ArrayRef<Input> inputs) {
    SmallVector<Value> values;
    SmallVector<Attribute> roles;
    for (const Input &in : inputs) {
      values.push_back(in.value);
      roles.push_back(RoleAttr::get(b.getContext(), in.role));
    }
    return {values, b.getArrayAttr(roles)};
  }

  void fillBody(Region &region, ValueRange values, BodyFn body) {
    SmallVector<Type> types;
    SmallVector<Location> locs;
    for (Value v : values) {
      types.push_back(cast<ShapedType>(v.getType()).getElementType());
      locs.push_back(loc);
    }
    OpBuilder::InsertionGuard guard(b);
    Block *block = b.createBlock(&region, region.end(), types, locs);
    Value result = body(b, loc, block->getArguments());
    YieldOp::create(b, loc, result);
  }
};

} // namespace mlir::norm

#endif // LIB_TRANSFORMS_LEVEL2BUILDER_H
