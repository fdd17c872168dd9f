//===- RowExpr.cpp - linalg on tensors read as row expressions ------------===//

#include "RowExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::norm;

RowOrder mlir::norm::joinOrders(RowOrder a, RowOrder b) {
  if (a == RowOrder::Other || b == RowOrder::Other)
    return RowOrder::Other;
  if (a == b || b == RowOrder::Scalar)
    return a;
  if (a == RowOrder::Scalar)
    return b;
  return RowOrder::Full;
}

RowOrder RowExprReader::orderOf(Type type) const {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return RowOrder::Other;
  ArrayRef<int64_t> shape = tensor.getShape();
  if (shape.empty())
    return RowOrder::Scalar;
  ArrayRef<int64_t> rows(rowShape);
  if (shape.size() == 1 && shape[0] == n && !rows.empty())
    return RowOrder::Col;
  if (shape == rows)
    return RowOrder::Row;
  if (shape.size() == rows.size() + 1 && shape.drop_back() == rows)
    return shape.back() == n   ? RowOrder::Full
           : shape.back() == 1 ? RowOrder::Row
                               : RowOrder::Other;
  return RowOrder::Other;
}

RowOrder RowExprReader::mapOrder(Operation *op, unsigned operand) const {
  auto generic = cast<linalg::GenericOp>(op);
  OpOperand &use = op->getOpOperand(operand);
  AffineMap map = generic.getMatchingIndexingMap(&use);
  RowOrder order = orderOf(use.get().getType());
  size_t rows = rowShape.size();
  ArrayRef<AffineExpr> results = map.getResults();
  auto isDim = [](AffineExpr e, unsigned d) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    return dim && dim.getPosition() == d;
  };
  auto isZero = [](AffineExpr e) {
    auto c = dyn_cast<AffineConstantExpr>(e);
    return c && c.getValue() == 0;
  };
  auto rowDims = [&] {
    for (size_t d = 0; d < rows; ++d)
      if (!isDim(results[d], d))
        return false;
    return true;
  };
  switch (order) {
  case RowOrder::Scalar:
    return results.empty() ? order : RowOrder::Other;
  case RowOrder::Col:
    return results.size() == 1 && isDim(results[0], rows) ? order
                                                          : RowOrder::Other;
  case RowOrder::Full:
    return results.size() == rows + 1 && rowDims() && isDim(results[rows], rows)
               ? order
               : RowOrder::Other;
  case RowOrder::Row:
    // [rows...] read at (d0..), or [rows..., 1] at (d0.., 0) or, in a loop
    // nest whose last loop has the extent 1 of the tensor's last
    // dimension, (d0.., d_rows).
    if (results.size() == rows)
      return rowDims() ? order : RowOrder::Other;
    return results.size() == rows + 1 && rowDims() &&
                   (isZero(results[rows]) || isDim(results[rows], rows))
               ? order
               : RowOrder::Other;
  case RowOrder::Other:
    break;
  }
  return RowOrder::Other;
}

const RowExpr *RowExprReader::leaf(Value tensor) {
  RowExpr &e = storage.emplace_back();
  e.kind = RowExpr::Kind::Leaf;
  e.leaf = tensor;
  e.order = orderOf(tensor.getType());
  e.type = getElementTypeOrSelf(tensor.getType());
  return &e;
}

const RowExpr *RowExprReader::constant(double value, Type type) {
  RowExpr &e = storage.emplace_back();
  e.kind = RowExpr::Kind::Constant;
  e.order = RowOrder::Scalar;
  e.value = value;
  e.type = type;
  return &e;
}

/// The value of a float constant, if `v` is one.
static std::optional<double> floatConstant(Value v) {
  FloatAttr attr;
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    attr = dyn_cast<FloatAttr>(c.getValue());
  if (!attr)
    return std::nullopt;
  return attr.getValueAsDouble();
}

/// Whether `v` is the integer or float constant 2.
static bool isTwo(Value v) {
  if (std::optional<double> f = floatConstant(v))
    return *f == 2.0;
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return i.getValue() == 2;
  return false;
}

const RowExpr *RowExprReader::readGeneric(Operation *op, unsigned result) {
  auto generic = cast<linalg::GenericOp>(op);
  Value tensor = op->getResult(result);
  size_t rows = rowShape.size();
  unsigned loops = generic.getNumLoops();
  auto iterators = generic.getIteratorTypesArray();
  if (loops < rows || loops > rows + 1 || !generic.hasPureTensorSemantics() ||
      llvm::any_of(ArrayRef(iterators).take_front(rows),
                   [](utils::IteratorType t) {
                     return t != utils::IteratorType::parallel;
                   }))
    return leaf(tensor);
  bool reduces =
      loops == rows + 1 && iterators.back() == utils::IteratorType::reduction;
  OpOperand *init = generic.getDpsInitOperand(result);
  RowOrder order = orderOf(tensor.getType());
  if (order == RowOrder::Other ||
      mapOrder(op, init->getOperandNumber()) != order ||
      (reduces && (order != RowOrder::Row || generic.getNumDpsInits() != 1)))
    return leaf(tensor);
  Block &body = generic.getRegion().front();
  BlockArgument accumulator = generic.getMatchingBlockArgument(init);
  if (reduces) {
    // A sum from zero: the fill of the init, and the body's yield adds one
    // value to the accumulator.
    auto fill = init->get().getDefiningOp<linalg::FillOp>();
    std::optional<double> zero =
        fill ? floatConstant(fill.getInputs()[0]) : std::nullopt;
    if (!zero || *zero != 0.0)
      return leaf(tensor);
  }
  llvm::DenseMap<Value, const RowExpr *> scalars;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    BlockArgument arg = generic.getMatchingBlockArgument(input);
    scalars[arg] = mapOrder(op, input->getOperandNumber()) == RowOrder::Other
                       ? leaf(input->get())
                       : read(input->get());
  }
  // An elementwise body seldom reads its outputs (their tensor.empty).
  if (!reduces)
    for (OpOperand &output : generic.getDpsInitsMutable()) {
      BlockArgument arg = generic.getMatchingBlockArgument(&output);
      if (!arg.use_empty())
        scalars[arg] =
            mapOrder(op, output.getOperandNumber()) == RowOrder::Other
                ? leaf(output.get())
                : read(output.get());
    }
  auto scalar = [&](Value v) -> const RowExpr * {
    if (const RowExpr *e = scalars.lookup(v))
      return e;
    if (std::optional<double> c = floatConstant(v))
      return constant(*c, v.getType());
    return nullptr;
  };
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value yielded = yield.getOperand(result);
  for (Operation &bodyOp : body.without_terminator()) {
    // A sum's add into the accumulator is read below.
    if (reduces && bodyOp.getNumResults() == 1 &&
        bodyOp.getResult(0) == yielded)
      continue;
    if (bodyOp.getNumResults() != 1 || bodyOp.getNumRegions() != 0)
      return leaf(tensor);
    Value out = bodyOp.getResult(0);
    if (isa<arith::ConstantOp>(bodyOp)) {
      if (std::optional<double> c = floatConstant(out))
        scalars[out] = constant(*c, out.getType());
      continue;
    }
    // Squares as torch writes them (pow(x, 2)).
    if (isa<math::FPowIOp, math::PowFOp>(bodyOp) &&
        isTwo(bodyOp.getOperand(1))) {
      const RowExpr *base = scalar(bodyOp.getOperand(0));
      if (!base)
        return leaf(tensor);
      RowExpr &e = storage.emplace_back();
      e.kind = RowExpr::Kind::Op;
      e.name = arith::MulFOp::getOperationName();
      e.operands = {base, base};
      e.order = base->order;
      e.type = out.getType();
      scalars[out] = &e;
      continue;
    }
    SmallVector<const RowExpr *, 2> operands;
    for (Value operand : bodyOp.getOperands()) {
      const RowExpr *e = scalar(operand);
      if (!e || (reduces && operand == accumulator))
        return leaf(tensor);
      operands.push_back(e);
    }
    // Casts of constants fold (an f64 epsilon truncated to f32).
    if (isa<arith::TruncFOp, arith::ExtFOp>(bodyOp) &&
        operands[0]->kind == RowExpr::Kind::Constant) {
      double value = operands[0]->value;
      if (out.getType().isF32())
        value = static_cast<double>(static_cast<float>(value));
      scalars[out] = constant(value, out.getType());
      continue;
    }
    RowExpr &e = storage.emplace_back();
    e.kind = RowExpr::Kind::Op;
    e.name = bodyOp.getName().getStringRef();
    e.operands = operands;
    e.order = RowOrder::Scalar;
    for (const RowExpr *operand : operands)
      e.order = joinOrders(e.order, operand->order);
    e.type = out.getType();
    scalars[out] = &e;
  }
  if (!reduces) {
    const RowExpr *e = scalar(yielded);
    return e ? e : leaf(tensor);
  }
  // The sum: yield (value + accumulator), the value not read from the
  // accumulator (the loop above refused any op reading it).
  auto add = yielded.getDefiningOp<arith::AddFOp>();
  if (!add)
    return leaf(tensor);
  Value summand = add.getLhs() == accumulator   ? add.getRhs()
                  : add.getRhs() == accumulator ? add.getLhs()
                                                : Value();
  const RowExpr *term = summand ? scalar(summand) : nullptr;
  if (!term || summand == accumulator)
    return leaf(tensor);
  RowExpr &e = storage.emplace_back();
  e.kind = RowExpr::Kind::RowSum;
  e.operands = {term};
  e.order = term->order == RowOrder::Other ? RowOrder::Other : RowOrder::Row;
  e.type = yielded.getType();
  return &e;
}

const RowExpr *RowExprReader::read(Value tensor) {
  if (const RowExpr *known = memo.lookup(tensor))
    return known;
  const RowExpr *e = nullptr;
  Operation *def = tensor.getDefiningOp();
  if (auto generic = dyn_cast_or_null<linalg::GenericOp>(def)) {
    e = readGeneric(def, cast<OpResult>(tensor).getResultNumber());
  } else if (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
                 def) &&
             orderOf(tensor.getType()) == RowOrder::Row &&
             orderOf(def->getOperand(0).getType()) == RowOrder::Row) {
    // [rows..., 1] <-> [rows...]: the same values.
    e = read(def->getOperand(0));
  } else if (auto splat = dyn_cast_or_null<arith::ConstantOp>(def);
             splat && orderOf(tensor.getType()) == RowOrder::Scalar &&
             isa<DenseFPElementsAttr>(splat.getValue()) &&
             cast<DenseFPElementsAttr>(splat.getValue()).isSplat()) {
    // A 0-D constant (ONNX's epsilon and 1): its value.
    auto value = cast<DenseFPElementsAttr>(splat.getValue());
    e = constant(value.getSplatValue<APFloat>().convertToDouble(),
                 value.getElementType());
  } else if (auto fill = dyn_cast_or_null<linalg::FillOp>(def)) {
    std::optional<double> c = floatConstant(fill.getInputs()[0]);
    e = c ? constant(*c, getElementTypeOrSelf(tensor.getType())) : leaf(tensor);
  } else {
    e = leaf(tensor);
  }
  memo[tensor] = e;
  tensors.try_emplace(e, tensor);
  return e;
}

bool mlir::norm::sameRowExpr(const RowExpr *a, const RowExpr *b) {
  if (a == b)
    return true;
  if (a->kind != b->kind || a->type != b->type)
    return false;
  switch (a->kind) {
  case RowExpr::Kind::Leaf:
    return a->leaf == b->leaf;
  case RowExpr::Kind::Constant:
    return a->value == b->value;
  case RowExpr::Kind::Op:
  case RowExpr::Kind::RowSum:
    if (a->name != b->name || a->operands.size() != b->operands.size())
      return false;
    for (auto [x, y] : llvm::zip(a->operands, b->operands))
      if (!sameRowExpr(x, y))
        return false;
    return true;
  }
  return false;
}
