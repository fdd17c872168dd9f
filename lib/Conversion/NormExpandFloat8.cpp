//===- NormExpandFloat8.cpp - f32 -> f8E4M3FN as integer arithmetic -------===//
//
// Implements --norm-expand-float8 (see Passes.td): the CPU form of the
// rounding the GPU does with cvt.rn.satfinite.e4m3x2.f32 (Float8Form.h).
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Conversion/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMEXPANDFLOAT8
#include "NormDialect/Conversion/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

/// f8E4M3FN: 4 exponent bits of bias 7, 3 mantissa bits, no infinities;
/// 0x7e is 448 (the largest finite value), 0x7f NaN.
constexpr int64_t kMaxFinite = 0x7e;
constexpr int64_t kNaN = 0x7f;
/// f32's exponent bias less f8E4M3FN's, in the position of the f32
/// exponent after the shift below (3 mantissa bits).
constexpr int64_t kBiasDifference = (127 - 7) << 3;

struct ExpandTruncToFloat8 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<Float8E4M3FNType>(op.getType()) || !op.getIn().getType().isF32())
      return failure();
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    Type i32 = b.getI32Type();
    auto c32 = [&](int64_t v) {
      return arith::ConstantOp::create(b, b.getI32IntegerAttr(v)).getResult();
    };
    auto f32 = [&](float v) {
      return arith::ConstantOp::create(b, b.getF32FloatAttr(v)).getResult();
    };
    Value bits = arith::BitcastOp::create(b, i32, op.getIn());
    Value sign = arith::AndIOp::create(
        b, arith::ShRUIOp::create(b, bits, c32(24)), c32(0x80));
    Value absBits = arith::AndIOp::create(b, bits, c32(0x7fffffff));
    Value absF = arith::BitcastOp::create(b, b.getF32Type(), absBits);
    // Normal results: round the f32 mantissa to 3 bits, ties to even (a
    // carry moves into the exponent), then rebias the exponent.
    Value odd = arith::AndIOp::create(
        b, arith::ShRUIOp::create(b, absBits, c32(20)), c32(1));
    Value rounded = arith::AddIOp::create(
        b, absBits, arith::AddIOp::create(b, c32(0x7ffff), odd));
    Value normal = arith::SubIOp::create(
        b, arith::ShRUIOp::create(b, rounded, c32(20)), c32(kBiasDifference));
    normal = arith::MinSIOp::create(b, normal, c32(kMaxFinite));
    // Below the smallest normal (2^-6): multiples of 2^-9, ties to even;
    // 2^-6 itself comes out as code 8, the smallest normal.
    Value scaled = arith::MulFOp::create(b, absF, f32(512.0f));
    Value subnormal =
        arith::FPToSIOp::create(b, i32, math::RoundEvenOp::create(b, scaled));
    Value isSubnormal =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, absF, f32(0x1p-6f));
    Value code = arith::SelectOp::create(b, isSubnormal, subnormal, normal);
    Value isNaN =
        arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, absF, absF);
    code = arith::SelectOp::create(b, isNaN, c32(kNaN), code);
    Value byte = arith::TruncIOp::create(b, b.getI8Type(),
                                         arith::OrIOp::create(b, code, sign));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), byte);
    return success();
  }
};

struct ExpandFloat8 : norm::impl::NormExpandFloat8Base<ExpandFloat8> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandTruncToFloat8>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
