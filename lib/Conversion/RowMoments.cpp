//===- RowMoments.cpp - a row's mean and variance in one pass -------------===//

#include "RowMoments.h"

#include "GPUKernelBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::norm;

/// Whether `a` and `b` compute the same value: the same SSA value, or the
/// same op on the same operands (the bodies norm-fuse-mixed-order merges
/// keep one arith.extf of x per reduction they came from).
static bool sameValue(Value a, Value b) {
  if (a == b)
    return true;
  Operation *opA = a.getDefiningOp(), *opB = b.getDefiningOp();
  return opA && opB && isMemoryEffectFree(opA) &&
         OperationEquivalence::isEquivalentTo(
             opA, opB, OperationEquivalence::IgnoreLocations);
}

/// The f32 constant `v` is, if it is one.
static std::optional<double> constantOf(Value v) {
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto attr = dyn_cast<FloatAttr>(constant.getValue());
  if (!attr)
    return std::nullopt;
  return attr.getValueAsDouble();
}

/// Whether `m` is `total` / n: a multiplication by the f32 nearest 1 / n,
/// or a division by n.
static bool isMeanOf(Value m, Value total, int64_t n) {
  auto near = [](std::optional<double> c, double want) {
    return c && std::fabs(*c - want) <= 1e-6 * std::fabs(want);
  };
  if (auto mul = m.getDefiningOp<arith::MulFOp>()) {
    if (mul.getLhs() == total)
      return near(constantOf(mul.getRhs()), 1.0 / n);
    if (mul.getRhs() == total)
      return near(constantOf(mul.getLhs()), 1.0 / n);
    return false;
  }
  if (auto div = m.getDefiningOp<arith::DivFOp>())
    return div.getLhs() == total && near(constantOf(div.getRhs()), n);
  return false;
}

std::optional<MeanVariancePair> mlir::norm::matchMeanVariance(Block &body,
                                                              int64_t n) {
  SmallVector<RowReduceOp> reduces(body.getOps<RowReduceOp>());
  if (reduces.size() != 2 || n <= 0)
    return std::nullopt;
  RowReduceOp sum = reduces[0], squares = reduces[1];
  if (sum.getCombiner() != Combiner::add ||
      squares.getCombiner() != Combiner::add ||
      !sum.getValue().getType().isF32())
    return std::nullopt;
  auto square = squares.getValue().getDefiningOp<arith::MulFOp>();
  if (!square || square.getLhs() != square.getRhs())
    return std::nullopt;
  auto deviation = square.getLhs().getDefiningOp<arith::SubFOp>();
  if (!deviation || !sameValue(deviation.getLhs(), sum.getValue()) ||
      !isMeanOf(deviation.getRhs(), sum.getResult(), n))
    return std::nullopt;
  return MeanVariancePair{sum, squares};
}

static Value f32Const(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc,
                                   b.getF32FloatAttr(static_cast<float>(v)));
}

Moments mlir::norm::emptyMoments(OpBuilder &b, Location loc) {
  Value zero = f32Const(b, loc, 0);
  return {zero, zero, zero};
}

Moments mlir::norm::momentsOf(OpBuilder &b, Location loc,
                              ArrayRef<Value> values) {
  double count = static_cast<double>(values.size());
  Value mean = arith::MulFOp::create(
      b, loc, treeCombine(b, loc, Combiner::add, SmallVector<Value>(values)),
      f32Const(b, loc, 1 / count));
  SmallVector<Value> squares;
  for (Value v : values) {
    Value d = arith::SubFOp::create(b, loc, v, mean);
    squares.push_back(arith::MulFOp::create(b, loc, d, d));
  }
  return {f32Const(b, loc, count), mean,
          treeCombine(b, loc, Combiner::add, std::move(squares))};
}

Moments mlir::norm::mergeValues(OpBuilder &b, Location loc, const Moments &acc,
                                ArrayRef<Value> values) {
  // The vector's own mean and M2, from its values in registers.
  double width = static_cast<double>(values.size());
  Moments own = momentsOf(b, loc, values);
  Value mean = own.mean, m2 = own.m2;
  // The pairwise update: with n = count + width and delta = mean - acc.mean,
  // mean' = acc.mean + delta * width / n and
  // M2' = acc.m2 + m2 + delta^2 * count * width / n.
  Value widthValue = f32Const(b, loc, width);
  Value count = arith::AddFOp::create(b, loc, acc.count, widthValue);
  Value share = arith::DivFOp::create(b, loc, widthValue, count);
  Value delta = arith::SubFOp::create(b, loc, mean, acc.mean);
  Value newMean = arith::AddFOp::create(
      b, loc, acc.mean, arith::MulFOp::create(b, loc, delta, share));
  Value spread = arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, delta, delta),
      arith::MulFOp::create(b, loc, acc.count, share));
  Value newM2 = arith::AddFOp::create(
      b, loc, arith::AddFOp::create(b, loc, acc.m2, m2), spread);
  return {count, newMean, newM2};
}

std::pair<Value, Value>
mlir::norm::mergeEqualCounts(OpBuilder &b, Location loc, Value meanA,
                             Value m2A, Value meanB, Value m2B,
                             double countEach) {
  // Equal counts c: mean = (meanA + meanB) / 2 and
  // M2 = M2A + M2B + (meanB - meanA)^2 * c / 2; every operation takes its
  // operands in an order both lanes agree on.
  Value mean = arith::MulFOp::create(
      b, loc, arith::AddFOp::create(b, loc, meanA, meanB), f32Const(b, loc, 0.5));
  Value delta = arith::SubFOp::create(b, loc, meanA, meanB);
  Value spread = arith::MulFOp::create(
      b, loc, arith::MulFOp::create(b, loc, delta, delta),
      f32Const(b, loc, countEach / 2));
  Value m2 = arith::AddFOp::create(
      b, loc, arith::AddFOp::create(b, loc, m2A, m2B), spread);
  return {mean, m2};
}
