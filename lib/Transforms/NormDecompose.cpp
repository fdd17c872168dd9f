//===- NormDecompose.cpp - user ops to order-typed reductions -------------===//
//
// Implements --norm-decompose: each user-level op becomes norm.reduce ops
// (row order for statistics and the dx terms, col order for dW/dB) and
// norm.map ops for the elementwise parts, on a 2-D M x N view of the data.
// The formulas are the ones in docs/math.md; every region computes in f32.
//
//===----------------------------------------------------------------------===//

#include "Level2Builder.h"

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

/// (w + offset) in f32 from an element of the weight.
static Value offsetWeight(OpBuilder &b, Location l, Value w, double offset) {
  Value wf = Level2Builder::toF32(b, l, w);
  if (offset == 0.0)
    return wf;
  return arith::AddFOp::create(b, l, wf, Level2Builder::constant(b, l, offset));
}

struct DecomposeRMSNorm : OpRewritePattern<RMSNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RMSNormOp op,
                                PatternRewriter &rewriter) const override {
    Level2Builder d(rewriter, op.getLoc(), op.getX());
    // x's element type, or f32 (verifyForwardActivations).
    Type elem = op.getY().getType().getElementType();
    double offset = op.getWeightOffset().convertToDouble();
    Value sumSq = d.reduce(Order::row, d.f32, {{d.x2d, Role::full}},
                           [&](OpBuilder &b, Location l, ValueRange e) {
                             Value xf = Level2Builder::toF32(b, l, e[0]);
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
                      Value xf = Level2Builder::toF32(b, l, e[0]);
                      Value v = arith::MulFOp::create(b, l, xf, e[1]);
                      if (hasWeight)
                        v = arith::MulFOp::create(
                            b, l, v, offsetWeight(b, l, e[2], offset));
                      return Level2Builder::fromF32(b, l, v, elem);
                    });
    rewriter.replaceOp(op, {d.activationFromRows(y), d.statsFromRows(rstd)});
    return success();
  }
};

struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Level2Builder d(rewriter, op.getLoc(), op.getX());
    // x's element type, or f32 (verifyForwardActivations).
    Type elem = op.getY().getType().getElementType();
    double offset = op.getWeightOffset().convertToDouble();
    Value sum = d.reduce(Order::row, d.f32, {{d.x2d, Role::full}},
                         [&](OpBuilder &b, Location l, ValueRange e) {
                           return Level2Builder::toF32(b, l, e[0]);
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
                       b, l, Level2Builder::toF32(b, l, e[0]), e[1]);
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
    Value y = d.map(
        Role::full, elem, inputs, [&](OpBuilder &b, Location l, ValueRange e) {
          Value dev = arith::SubFOp::create(
              b, l, Level2Builder::toF32(b, l, e[0]), e[1]);
          Value v = arith::MulFOp::create(b, l, dev, e[2]);
          if (weightIdx >= 0)
            v = arith::MulFOp::create(b, l, v,
                                      offsetWeight(b, l, e[weightIdx], offset));
          if (biasIdx >= 0)
            v = arith::AddFOp::create(b, l, v,
                                      Level2Builder::toF32(b, l, e[biasIdx]));
          return Level2Builder::fromF32(b, l, v, elem);
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
    Level2Builder d(rewriter, op.getLoc(), op.getX());
    // x's element type, or f32 (verifyGradActivations).
    Type elem = op.getDx().getType().getElementType();
    double offset = op.getWeightOffset().convertToDouble();
    // Inputs shared by the row reduction and dx: dy, x, rstd[, w].
    Level2Builder::GradInputs in =
        d.gradInputs(op, op.getDy(), {op.getRstd()}, op.getWeight());
    Value dy = in.dy, rstd = in.stats[0], weight = in.weight;
    SmallVector<Input> common = in.common;
    // g = dy * (w + o), xhat = x * rstd (in f32).
    auto gAndXhat = [&](OpBuilder &b, Location l, ValueRange e) {
      Value g = Level2Builder::toF32(b, l, e[0]);
      if (weight)
        g = arith::MulFOp::create(b, l, g, offsetWeight(b, l, e[3], offset));
      Value xhat =
          arith::MulFOp::create(b, l, Level2Builder::toF32(b, l, e[1]), e[2]);
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
                       return Level2Builder::fromF32(b, l, v, elem);
                     });
    SmallVector<Value> results = {d.activationFromRows(dx)};
    if (weight) {
      Type wElem = cast<ShapedType>(weight.getType()).getElementType();
      Value dw =
          d.reduce(Order::col, wElem,
                   {{dy, Role::full}, {d.x2d, Role::full}, {rstd, Role::row}},
                   [&](OpBuilder &b, Location l, ValueRange e) {
                     Value xhat = arith::MulFOp::create(
                         b, l, Level2Builder::toF32(b, l, e[1]), e[2]);
                     return arith::MulFOp::create(
                                b, l, Level2Builder::toF32(b, l, e[0]), xhat)
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
    Level2Builder d(rewriter, op.getLoc(), op.getX());
    // x's element type, or f32 (verifyGradActivations).
    Type elem = op.getDx().getType().getElementType();
    Level2Builder::GradInputs in = d.gradInputs(
        op, op.getDy(), {op.getMean(), op.getRstd()}, op.getWeight());
    Value dy = in.dy, weight = in.weight;
    SmallVector<Input> common = in.common;
    double offset = op.getWeightOffset().convertToDouble();
    auto g = [&](OpBuilder &b, Location l, ValueRange e) -> Value {
      Value v = Level2Builder::toF32(b, l, e[0]);
      if (weight)
        v = arith::MulFOp::create(b, l, v, offsetWeight(b, l, e[4], offset));
      return v;
    };
    auto xhat = [&](OpBuilder &b, Location l, ValueRange e) -> Value {
      Value dev =
          arith::SubFOp::create(b, l, Level2Builder::toF32(b, l, e[1]), e[2]);
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
                       return Level2Builder::fromF32(b, l, v, elem);
                     });
    SmallVector<Value> results = {d.activationFromRows(dx)};
    SmallVector<Input> colInputs(common.begin(), common.begin() + 4);
    if (weight) {
      Type wElem = cast<ShapedType>(weight.getType()).getElementType();
      results.push_back(d.reduce(
          Order::col, wElem, colInputs,
          [&](OpBuilder &b, Location l, ValueRange e) {
            return arith::MulFOp::create(b, l, Level2Builder::toF32(b, l, e[0]),
                                         xhat(b, l, e))
                .getResult();
          }));
    }
    if (op.getDb()) {
      Type bElem =
          cast<ShapedType>(op.getDb().getType()).getElementType();
      results.push_back(d.reduce(Order::col, bElem, {{dy, Role::full}},
                                 [&](OpBuilder &b, Location l, ValueRange e) {
                                   return Level2Builder::toF32(b, l, e[0]);
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
