//===- RsqrtForms.cpp - the PTX forms of an f32 rsqrt ---------------------===//

#include "RsqrtForms.h"

#include "NormDialect/IR/NormOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::norm;

/// How many defining ops the sign and denormal rules follow: a
/// normalization's operand is three or four levels from its squares.
constexpr int kMaxDepth = 8;

static std::optional<APFloat> constantFloat(Value value) {
  APFloat result(0.0f);
  if (matchPattern(value, m_ConstantFloat(&result)))
    return result;
  return std::nullopt;
}

static bool neverNegative(Value value, int depth) {
  if (depth > kMaxDepth)
    return false;
  if (std::optional<APFloat> c = constantFloat(value))
    return !c->isNegative();
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  auto both = [&](Value a, Value b) {
    return neverNegative(a, depth + 1) && neverNegative(b, depth + 1);
  };
  if (auto mul = dyn_cast<arith::MulFOp>(def))
    return mul.getLhs() == mul.getRhs() || both(mul.getLhs(), mul.getRhs());
  if (auto add = dyn_cast<arith::AddFOp>(def))
    return both(add.getLhs(), add.getRhs());
  if (isa<math::AbsFOp>(def))
    return true;
  if (isa<arith::ExtFOp, math::SqrtOp>(def))
    return neverNegative(def->getOperand(0), depth + 1);
  // maximumf orders -0 below +0 (maxnumf may return either).
  if (isa<arith::MaximumFOp>(def))
    return neverNegative(def->getOperand(0), depth + 1) ||
           neverNegative(def->getOperand(1), depth + 1);
  // A sum over the row starts from 0 and a maximum from its first value,
  // so either stays >= 0 when every value it combines is.
  if (auto reduce = dyn_cast<RowReduceOp>(def))
    return neverNegative(reduce.getValue(), depth + 1);
  return false;
}

/// Whether `value` is a constant of at least the smallest normal float.
static bool atLeastSmallestNormal(Value value) {
  std::optional<APFloat> c = constantFloat(value);
  if (!c || c->isNaN())
    return false;
  APFloat smallest = APFloat::getSmallestNormalized(c->getSemantics());
  return c->compare(smallest) != APFloat::cmpLessThan;
}

bool mlir::norm::isNeverNegative(Value value) {
  return neverNegative(value, 0);
}

bool mlir::norm::isNeverDenormal(Value value) {
  if (std::optional<APFloat> c = constantFloat(value))
    return !c->isDenormal();
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  // x + c >= c >= FLT_MIN for x >= 0 (or NaN): rounding is monotonic.
  if (auto add = dyn_cast<arith::AddFOp>(def))
    return (atLeastSmallestNormal(add.getRhs()) &&
            isNeverNegative(add.getLhs())) ||
           (atLeastSmallestNormal(add.getLhs()) &&
            isNeverNegative(add.getRhs()));
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(def))
    return atLeastSmallestNormal(def->getOperand(0)) ||
           atLeastSmallestNormal(def->getOperand(1));
  return false;
}

void mlir::norm::markFlushExactRsqrts(FusedOp op) {
  op.getBody().walk([](math::RsqrtOp rsqrt) {
    if (rsqrt.getType().isF32() && isNeverDenormal(rsqrt.getOperand()))
      rsqrt->setAttr(kFlushExactAttr, UnitAttr::get(rsqrt.getContext()));
  });
}

StringRef mlir::norm::rsqrtPtx(Operation *op) {
  return op->hasAttr(kFlushExactAttr) ? "rsqrt.approx.ftz.f32 $0, $1;"
                                      : "rsqrt.approx.f32 $0, $1;";
}

void mlir::norm::lowerRsqrtApprox(gpu::GPUFuncOp func) {
  SmallVector<math::RsqrtOp> ops;
  func.walk([&](math::RsqrtOp op) {
    if (op.getType().isF32())
      ops.push_back(op);
  });
  for (math::RsqrtOp op : ops) {
    OpBuilder b(op);
    StringRef intrinsic = op->hasAttr(kFlushExactAttr)
                              ? "llvm.nvvm.rsqrt.approx.ftz.f"
                              : "llvm.nvvm.rsqrt.approx.f";
    auto call = LLVM::CallIntrinsicOp::create(b, op.getLoc(), op.getType(),
                                              b.getStringAttr(intrinsic),
                                              ValueRange{op.getOperand()});
    op.replaceAllUsesWith(call.getResult(0));
    op.erase();
  }
}
