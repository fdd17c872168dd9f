//===- NormDecompose.cpp - user ops to order-typed reductions -------------===//
//
// Implements --norm-decompose: each user-level op becomes norm.reduce ops
// (row order for statistics and the dx terms, col order for dW/dB) and
// norm.map ops for the elementwise parts, on a 2-D M x N view of the data.
// The formulas are the ones in docs/math.md; every region computes in f32.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMDECOMPOSE
#include "NormDialect/Transforms/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

/// Builds the regions of norm.reduce / norm.map: arguments are the inputs'
/// elements, the callback computes the yielded value.
using BodyFn =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange elements)>;

/// One input of a level-2 op: a value and the role it is read with.
struct Input {
  Value value;
  Role role;
};

/// Helper holding the 2-D view of one user op and building level-2 ops on it.
class Decomposer {
public:
  Decomposer(PatternRewriter &rewriter, Location loc, Value x)
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
    SmallVector<ReassociationIndices> reassoc = {
        leading, {type.getRank() - 1}};
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

  /// Expands an M x N result back to the activation's shape.
  Value activationFromRows(Value value2d) {
    if (xType.getRank() == 2)
      return value2d;
    ReassociationIndices leading;
    for (int64_t d = 0; d + 1 < xType.getRank(); ++d)
      leading.push_back(d);
    SmallVector<ReassociationIndices> reassoc = {
        leading, {xType.getRank() - 1}};
    auto type = RankedTensorType::get(
        xType.getShape(),
        cast<RankedTensorType>(value2d.getType()).getElementType());
    return expandRows(value2d, type, reassoc, tensor::getMixedSizes(b, loc, x));
  }

  /// Expands an M-vector back to the statistics shape (leading dims of x).
  Value statsFromRows(Value value1d) {
    if (xType.getRank() == 2)
      return value1d;
    ReassociationIndices all;
    for (int64_t d = 0; d + 1 < xType.getRank(); ++d)
      all.push_back(d);
    auto type = RankedTensorType::get(xType.getShape().drop_back(), f32);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    sizes.pop_back();
    return expandRows(value1d, type, SmallVector<ReassociationIndices>{all},
                      sizes);
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
    Role resultRole = order == Order::row ? Role::row : Role::col;
    auto type = RankedTensorType::get(
        resultRole == Role::row ? ArrayRef<int64_t>{m} : ArrayRef<int64_t>{n},
        elementType);
    auto [values, roles] = split(inputs);
    auto op = ReduceOp::create(b, loc, type,
                               OrderAttr::get(b.getContext(), order),
                               CombinerAttr::get(b.getContext(), Combiner::add),
                               values, roles);
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
    auto op = MapOp::create(b, loc, type,
                            RoleAttr::get(b.getContext(), resultRole), values,
                            roles);
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

  PatternRewriter &b;
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

/// (w + offset) in f32 from an element of the weight.
static Value offsetWeight(OpBuilder &b, Location l, Value w, double offset) {
  Value wf = Decomposer::toF32(b, l, w);
  if (offset == 0.0)
    return wf;
  return arith::AddFOp::create(b, l, wf, Decomposer::constant(b, l, offset));
}

struct DecomposeRMSNorm : OpRewritePattern<RMSNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormOp op,
                                PatternRewriter &rewriter) const override {
    Decomposer d(rewriter, op.getLoc(), op.getX());
    // x's element type, or f32 (verifyForwardActivations).
    Type elem = op.getY().getType().getElementType();
    double offset = op.getWeightOffset().convertToDouble();
    Value sumSq = d.reduce(Order::row, d.f32, {{d.x2d, Role::full}},
                           [&](OpBuilder &b, Location l, ValueRange e) {
                             Value xf = Decomposer::toF32(b, l, e[0]);
                             return arith::MulFOp::create(b, l, xf, xf)
                                 .getResult();
                           });
    Value rstd = d.rstdFromSum(sumSq, op.getEpsilon().convertToDouble());
    SmallVector<Input> inputs = {{d.x2d, Role::full}, {rstd, Role::row}};
    if (op.getWeight())
      inputs.push_back({op.getWeight(), Role::col});
    bool hasWeight = static_cast<bool>(op.getWeight());
    Value y = d.map(Role::full, elem, inputs,
                    [&](OpBuilder &b, Location l, ValueRange e) {
                      Value xf = Decomposer::toF32(b, l, e[0]);
                      Value v = arith::MulFOp::create(b, l, xf, e[1]);
                      if (hasWeight)
                        v = arith::MulFOp::create(
                            b, l, v, offsetWeight(b, l, e[2], offset));
                      return Decomposer::fromF32(b, l, v, elem);
                    });
    rewriter.replaceOp(op, {d.activationFromRows(y), d.statsFromRows(rstd)});
    return success();
  }
};

struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Decomposer d(rewriter, op.getLoc(), op.getX());
    // x's element type, or f32 (verifyForwardActivations).
    Type elem = op.getY().getType().getElementType();
    Value sum = d.reduce(Order::row, d.f32, {{d.x2d, Role::full}},
                         [&](OpBuilder &b, Location l, ValueRange e) {
                           return Decomposer::toF32(b, l, e[0]);
                         });
    Value invN = d.invN;
    Value mean = d.map(Role::row, d.f32, {{sum, Role::row}},
                       [&](OpBuilder &b, Location l, ValueRange e) {
                         return arith::MulFOp::create(b, l, e[0], invN)
                             .getResult();
                       });
    // Two passes over the row (held on chip after fusion): E[(x - mean)^2],
    // not E[x^2] - mean^2, which loses precision.
    Value sumSqDev =
        d.reduce(Order::row, d.f32, {{d.x2d, Role::full}, {mean, Role::row}},
                 [&](OpBuilder &b, Location l, ValueRange e) {
                   Value dev = arith::SubFOp::create(
                       b, l, Decomposer::toF32(b, l, e[0]), e[1]);
                   return arith::MulFOp::create(b, l, dev, dev).getResult();
                 });
    Value rstd = d.rstdFromSum(sumSqDev, op.getEpsilon().convertToDouble());
    SmallVector<Input> inputs = {
        {d.x2d, Role::full}, {mean, Role::row}, {rstd, Role::row}};
    int weightIdx = -1, biasIdx = -1;
    if (op.getWeight()) {
      weightIdx = inputs.size();
      inputs.push_back({op.getWeight(), Role::col});
    }
    if (op.getBias()) {
      biasIdx = inputs.size();
      inputs.push_back({op.getBias(), Role::col});
    }
    Value y = d.map(Role::full, elem, inputs,
                    [&](OpBuilder &b, Location l, ValueRange e) {
                      Value dev = arith::SubFOp::create(
                          b, l, Decomposer::toF32(b, l, e[0]), e[1]);
                      Value v = arith::MulFOp::create(b, l, dev, e[2]);
                      if (weightIdx >= 0)
                        v = arith::MulFOp::create(
                            b, l, v, Decomposer::toF32(b, l, e[weightIdx]));
                      if (biasIdx >= 0)
                        v = arith::AddFOp::create(
                            b, l, v, Decomposer::toF32(b, l, e[biasIdx]));
                      return Decomposer::fromF32(b, l, v, elem);
                    });
    rewriter.replaceOp(op, {d.activationFromRows(y), d.statsFromRows(mean),
                            d.statsFromRows(rstd)});
    return success();
  }
};

struct DecomposeRMSNormGrad : OpRewritePattern<RMSNormGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormGradOp op,
                                PatternRewriter &rewriter) const override {
    Decomposer d(rewriter, op.getLoc(), op.getX());
    // x's element type, or f32 (verifyGradActivations).
    Type elem = op.getDx().getType().getElementType();
    double offset = op.getWeightOffset().convertToDouble();
    // Inputs shared by the row reduction and dx: dy, x, rstd[, w].
    Decomposer::GradInputs in =
        d.gradInputs(op, op.getDy(), {op.getRstd()}, op.getWeight());
    Value dy = in.dy, rstd = in.stats[0], weight = in.weight;
    SmallVector<Input> common = in.common;
    // g = dy * (w + o), xhat = x * rstd (in f32).
    auto gAndXhat = [&](OpBuilder &b, Location l, ValueRange e) {
      Value g = Decomposer::toF32(b, l, e[0]);
      if (weight)
        g = arith::MulFOp::create(b, l, g, offsetWeight(b, l, e[3], offset));
      Value xhat =
          arith::MulFOp::create(b, l, Decomposer::toF32(b, l, e[1]), e[2]);
      return std::make_pair(g, xhat);
    };
    Value sumGXhat = d.reduce(Order::row, d.f32, common,
                              [&](OpBuilder &b, Location l, ValueRange e) {
                                auto [g, xhat] = gAndXhat(b, l, e);
                                return arith::MulFOp::create(b, l, g, xhat)
                                    .getResult();
                              });
    SmallVector<Input> dxInputs = common;
    unsigned sumIdx = dxInputs.size();
    dxInputs.push_back({sumGXhat, Role::row});
    Value invN = d.invN;
    Value dx = d.map(Role::full, elem, dxInputs,
                     [&](OpBuilder &b, Location l, ValueRange e) {
                       auto [g, xhat] = gAndXhat(b, l, e);
                       Value c = arith::MulFOp::create(b, l, e[sumIdx], invN);
                       Value xc = arith::MulFOp::create(b, l, xhat, c);
                       Value diff = arith::SubFOp::create(b, l, g, xc);
                       Value v = arith::MulFOp::create(b, l, e[2], diff);
                       return Decomposer::fromF32(b, l, v, elem);
                     });
    SmallVector<Value> results = {d.activationFromRows(dx)};
    if (weight) {
      Type wElem = cast<ShapedType>(weight.getType()).getElementType();
      Value dw = d.reduce(
          Order::col, wElem,
          {{dy, Role::full}, {d.x2d, Role::full}, {rstd, Role::row}},
          [&](OpBuilder &b, Location l, ValueRange e) {
            Value xhat = arith::MulFOp::create(
                b, l, Decomposer::toF32(b, l, e[1]), e[2]);
            return arith::MulFOp::create(b, l, Decomposer::toF32(b, l, e[0]),
                                         xhat)
                .getResult();
          });
      results.push_back(dw);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct DecomposeLayerNormGrad : OpRewritePattern<LayerNormGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormGradOp op,
                                PatternRewriter &rewriter) const override {
    Decomposer d(rewriter, op.getLoc(), op.getX());
    // x's element type, or f32 (verifyGradActivations).
    Type elem = op.getDx().getType().getElementType();
    Decomposer::GradInputs in = d.gradInputs(
        op, op.getDy(), {op.getMean(), op.getRstd()}, op.getWeight());
    Value dy = in.dy, weight = in.weight;
    SmallVector<Input> common = in.common;
    auto g = [&](OpBuilder &b, Location l, ValueRange e) -> Value {
      Value v = Decomposer::toF32(b, l, e[0]);
      if (weight)
        v = arith::MulFOp::create(b, l, v, Decomposer::toF32(b, l, e[4]));
      return v;
    };
    auto xhat = [&](OpBuilder &b, Location l, ValueRange e) -> Value {
      Value dev =
          arith::SubFOp::create(b, l, Decomposer::toF32(b, l, e[1]), e[2]);
      return arith::MulFOp::create(b, l, dev, e[3]);
    };
    Value sumG = d.reduce(Order::row, d.f32, common, g);
    Value sumGXhat = d.reduce(Order::row, d.f32, common,
                              [&](OpBuilder &b, Location l, ValueRange e) {
                                return arith::MulFOp::create(b, l, g(b, l, e),
                                                             xhat(b, l, e))
                                    .getResult();
                              });
    SmallVector<Input> dxInputs = common;
    unsigned aIdx = dxInputs.size();
    dxInputs.push_back({sumG, Role::row});
    dxInputs.push_back({sumGXhat, Role::row});
    Value invN = d.invN;
    Value dx = d.map(Role::full, elem, dxInputs,
                     [&](OpBuilder &b, Location l, ValueRange e) {
                       Value a = arith::MulFOp::create(b, l, e[aIdx], invN);
                       Value c =
                           arith::MulFOp::create(b, l, e[aIdx + 1], invN);
                       Value xc = arith::MulFOp::create(b, l, xhat(b, l, e), c);
                       Value diff = arith::SubFOp::create(b, l, g(b, l, e), a);
                       diff = arith::SubFOp::create(b, l, diff, xc);
                       Value v = arith::MulFOp::create(b, l, e[3], diff);
                       return Decomposer::fromF32(b, l, v, elem);
                     });
    SmallVector<Value> results = {d.activationFromRows(dx)};
    SmallVector<Input> colInputs(common.begin(), common.begin() + 4);
    if (weight) {
      Type wElem = cast<ShapedType>(weight.getType()).getElementType();
      results.push_back(
          d.reduce(Order::col, wElem, colInputs,
                   [&](OpBuilder &b, Location l, ValueRange e) {
                     return arith::MulFOp::create(
                                b, l, Decomposer::toF32(b, l, e[0]),
                                xhat(b, l, e))
                         .getResult();
                   }));
    }
    if (op.getDb()) {
      Type bElem =
          cast<ShapedType>(op.getDb().getType()).getElementType();
      results.push_back(d.reduce(Order::col, bElem, {{dy, Role::full}},
                                 [&](OpBuilder &b, Location l, ValueRange e) {
                                   return Decomposer::toF32(b, l, e[0]);
                                 }));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct NormDecomposePass
    : public mlir::norm::impl::NormDecomposeBase<NormDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeRMSNorm, DecomposeLayerNorm, DecomposeRMSNormGrad,
                 DecomposeLayerNormGrad>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
