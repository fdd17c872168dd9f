//===- NormRaise.cpp - linalg normalizations to norm's user ops -----------===//
//
// Implements --norm-raise (see Passes.td): each elementwise linalg.generic
// over rows of N elements is read as a row expression (RowExpr.h) and
// compared, by what it computes, with RMSNorm and LayerNorm; a match becomes
// norm.rms_norm / norm.layer_norm and the linalg ops only it used go. A
// computation that normalizes rows (an rsqrt or sqrt of a row sum) but is
// neither gets a remark saying what differs.
//
//===----------------------------------------------------------------------===//

#include "Level2Builder.h"
#include "RowExpr.h"

#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include <cmath>
#include <map>

namespace mlir::norm {
#define GEN_PASS_DEF_NORMRAISE
#include "NormDialect/Transforms/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

/// A normalization as norm's ops take it.
struct Normalization {
  bool layerNorm = false;
  /// x * rsqrt(sum(x^2) + epsilon): no row mean (Gated DeltaNet's q/k).
  bool l2 = false;
  Value x, weight, bias;
  double epsilon = 0, weightOffset = 0;
};

constexpr StringLiteral kMulF = "arith.mulf", kAddF = "arith.addf",
                        kSubF = "arith.subf", kDivF = "arith.divf",
                        kExtF = "arith.extf", kTruncF = "arith.truncf",
                        kRsqrt = "math.rsqrt", kSqrt = "math.sqrt";

/// The operands of `e`, a binary `name` op, with the one satisfying `first`
/// first (either order for commutative ops); false where neither does.
template <typename Pred>
bool operandsOf(const RowExpr *e, StringRef name, Pred first, const RowExpr *&a,
                const RowExpr *&b) {
  if (!e->isOp(name) || e->operands.size() != 2)
    return false;
  bool commutative = name == kMulF || name == kAddF;
  if (first(e->operands[0])) {
    a = e->operands[0];
    b = e->operands[1];
    return true;
  }
  if (commutative && first(e->operands[1])) {
    a = e->operands[1];
    b = e->operands[0];
    return true;
  }
  return false;
}

/// Whether `e` is v * v.
bool isSquareOf(const RowExpr *e, const RowExpr *v) {
  return e->isOp(kMulF) && e->operands.size() == 2 &&
         sameRowExpr(e->operands[0], v) && sameRowExpr(e->operands[1], v);
}

bool isConstant(const RowExpr *e) { return e->kind == RowExpr::Kind::Constant; }
bool isRow(const RowExpr *e) { return e->order == RowOrder::Row; }
bool isCol(const RowExpr *e) { return e->order == RowOrder::Col; }

/// A per-column vector (weight or bias) read from a tensor, possibly
/// extended to f32 first.
Value columnVector(const RowExpr *e) {
  if (e->isOp(kExtF))
    e = e->operands[0];
  return e->kind == RowExpr::Kind::Leaf && isCol(e) ? e->leaf : Value();
}

/// Decides whether a row expression is RMSNorm or LayerNorm, saying what
/// differs where it is not.
class Matcher {
public:
  Matcher(const RowExprReader &reader, int64_t n) : reader(reader), n(n) {}

  std::optional<Normalization> match(const RowExpr *root) {
    const RowExpr *e = root;
    // y rounded to its type at the end.
    if (e->isOp(kTruncF))
      e = e->operands[0];
    const RowExpr *a, *b;
    Normalization result;
    const RowExpr *bias = nullptr, *weight = nullptr;
    if (operandsOf(e, kAddF, isCol, a, b)) {
      bias = a;
      e = b;
    }
    if (operandsOf(e, kMulF, isCol, a, b)) {
      weight = a;
      e = b;
      // Hugging Face's RMSNorm multiplies the weight into y already
      // rounded to x's type.
      if (e->isOp(kTruncF))
        e = e->operands[0];
    }
    if (weight) {
      // Gemma's (1 + w), in f32.
      const RowExpr *one, *w;
      if (operandsOf(
              weight, kAddF,
              [](const RowExpr *o) { return isConstant(o) && o->value == 1.0; },
              one, w)) {
        result.weightOffset = 1.0;
        weight = w;
      }
      result.weight = columnVector(weight);
      if (!result.weight)
        return fail("the per-column factor is not a weight vector");
    }
    if (bias && !(result.bias = columnVector(bias)))
      return fail("the per-column term is not a bias vector");
    // LayerNorm first: it is an RMSNorm of the centered rows, which the
    // RMSNorm form would take with the centering left outside.
    if (layerNormCore(e, result)) {
      result.layerNorm = true;
      return finish(root, result);
    }
    std::string layerNormWhy = why;
    if (rmsCore(e, result))
      return bias ? fail("an RMSNorm with a bias") : finish(root, result);
    std::string rmsWhy = why;
    if (l2Core(e, result)) {
      if (bias || result.weightOffset != 0)
        return fail("an L2 norm with a bias or a weight offset");
      result.l2 = true;
      return finish(root, result);
    }
    why = rmsWhy;
    // The LayerNorm reason where the rows are centered first.
    if (e->isOp(kMulF) && llvm::any_of(e->operands, [](const RowExpr *o) {
          return o->isOp(kSubF);
        }))
      why = layerNormWhy;
    return std::nullopt;
  }

  /// Why the last match failed.
  std::string why;
  /// The per-row factor of the rows (the norm's rsqrt) where the last match
  /// found the rows scaled by one, else null: a failure with it is a near
  /// miss of a norm, one without it a computation of another shape.
  const RowExpr *scale = nullptr;

private:
  std::nullopt_t fail(const std::string &reason) {
    why = reason;
    return std::nullopt;
  }

  /// y's type must be x's or f32 (the user ops' results).
  std::optional<Normalization> finish(const RowExpr *root,
                                      const Normalization &found) {
    Type xType = getElementTypeOrSelf(found.x.getType());
    if (root->type != xType && !root->type.isF32())
      return fail("y is rounded to another type than x's or f32");
    return found;
  }

  /// x as the rows are read: a full tensor (an argument, or the result of
  /// the residual add before the norm), possibly extended to f32.
  Value rows(const RowExpr *e) {
    if (e->isOp(kExtF))
      e = e->operands[0];
    if (e->order != RowOrder::Full)
      return Value();
    return e->kind == RowExpr::Kind::Leaf ? e->leaf : reader.tensorOf(e);
  }

  /// The row sum s of `e` = s / N or s * (1 / N).
  const RowExpr *rowMean(const RowExpr *e) {
    const RowExpr *c, *s;
    if (operandsOf(
            e, kDivF, [](const RowExpr *) { return true; }, s, c) &&
        isConstant(c)) {
      if (c->value != static_cast<double>(n))
        return failed("the row sum is divided by " + str(c->value) +
                      ", not by the row's " + std::to_string(n) + " elements");
    } else if (operandsOf(e, kMulF, isConstant, c, s)) {
      if (std::abs(c->value * static_cast<double>(n) - 1.0) > 1e-6)
        return failed("the row sum is multiplied by " + str(c->value) +
                      ", not by 1/" + std::to_string(n));
    } else {
      return failed("no row mean (a row sum divided by the row length)");
    }
    if (s->kind != RowExpr::Kind::RowSum)
      return failed("the row mean is not of a sum over the row");
    return s->operands[0];
  }

  /// m of rsqrt(m + epsilon) or 1 / sqrt(m + epsilon); sets epsilon.
  const RowExpr *inverseRoot(const RowExpr *e, double &epsilon) {
    const RowExpr *arg = nullptr, *one, *root;
    if (dividing) {
      if (e->isOp(kSqrt))
        arg = e->operands[0];
      else
        return failed("the rows are not divided by the square root of a row "
                      "statistic plus epsilon");
    } else if (e->isOp(kRsqrt)) {
      arg = e->operands[0];
    } else if (operandsOf(e, kDivF, isConstant, one, root) &&
               one->value == 1.0 && root->isOp(kSqrt)) {
      arg = root->operands[0];
    }
    if (!arg)
      return failed("the rows are not scaled by rsqrt of a row statistic");
    const RowExpr *eps, *m;
    if (!operandsOf(arg, kAddF, isConstant, eps, m))
      return failed("no epsilon is added to the row statistic");
    epsilon = eps->value;
    return m;
  }

  /// e = other * scale or other / scale with a per-row scale; `dividing`
  /// says which.
  bool scaledByRow(const RowExpr *e, const RowExpr *&scale,
                   const RowExpr *&other) {
    dividing = false;
    if (operandsOf(e, kMulF, isRow, scale, other))
      return true;
    if (!e->isOp(kDivF) || !isRow(e->operands[1]) || isRow(e->operands[0]))
      return false;
    other = e->operands[0];
    scale = e->operands[1];
    dividing = true;
    return true;
  }

  /// x * rsqrt(mean(x * x) + epsilon) (or x / sqrt(...)).
  bool rmsCore(const RowExpr *e, Normalization &found) {
    const RowExpr *scale, *xe;
    if (!scaledByRow(e, scale, xe) || !(found.x = rows(xe)))
      return failed("not the rows scaled by a per-row factor"), false;
    this->scale = scale;
    const RowExpr *mean = inverseRoot(scale, found.epsilon);
    const RowExpr *square = mean ? rowMean(mean) : nullptr;
    if (!square)
      return false;
    if (!isSquareOf(square, xe))
      return failed("the row sum is not of the squares of the scaled rows"),
             false;
    return true;
  }

  /// x * rsqrt(sum(x * x) + epsilon), no mean.
  bool l2Core(const RowExpr *e, Normalization &found) {
    const RowExpr *scale, *xe;
    if (!scaledByRow(e, scale, xe) || !(found.x = rows(xe)))
      return false;
    const RowExpr *sum = inverseRoot(scale, found.epsilon);
    if (!sum || sum->kind != RowExpr::Kind::RowSum)
      return false;
    return isSquareOf(sum->operands[0], xe);
  }

  /// (x - mean(x)) * rsqrt(mean((x - mean(x))^2) + epsilon).
  bool layerNormCore(const RowExpr *e, Normalization &found) {
    const RowExpr *scale, *centered;
    if (!scaledByRow(e, scale, centered) || !centered->isOp(kSubF))
      return failed("not the centered rows scaled by a per-row factor"), false;
    this->scale = scale;
    const RowExpr *xe = centered->operands[0];
    if (!(found.x = rows(xe)))
      return failed("the centered values are not the rows"), false;
    const RowExpr *mean = rowMean(centered->operands[1]);
    if (!mean)
      return false;
    if (!sameRowExpr(mean, xe))
      return failed("the subtracted mean is not the rows' mean"), false;
    const RowExpr *variance = inverseRoot(scale, found.epsilon);
    const RowExpr *square = variance ? rowMean(variance) : nullptr;
    if (!square)
      return false;
    if (!isSquareOf(square, centered))
      return failed("the variance is not the mean square of the centered "
                    "rows"),
             false;
    return true;
  }

  std::nullptr_t failed(const std::string &reason) {
    why = reason;
    return nullptr;
  }

  static std::string str(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.')
      s.pop_back();
    return s;
  }

  const RowExprReader &reader;
  int64_t n;
  /// Whether the rows are divided by their scale (x / sqrt(...)) rather
  /// than multiplied (x * rsqrt(...)).
  bool dividing = false;
};

/// Whether `pred` holds for a node of `root`'s expression reached through
/// nodes for which `descend` holds, each node tried once.
template <typename Pred, typename Descend>
bool anyRowExpr(const RowExpr *root, Pred pred, Descend descend) {
  SmallVector<const RowExpr *> worklist{root};
  llvm::SmallPtrSet<const RowExpr *, 16> seen;
  while (!worklist.empty()) {
    const RowExpr *e = worklist.pop_back_val();
    if (!seen.insert(e).second)
      continue;
    if (pred(e))
      return true;
    if (descend(e))
      worklist.append(e->operands.begin(), e->operands.end());
  }
  return false;
}

/// Whether `e` scales by an rsqrt or sqrt of a row statistic computed from
/// a sum over the row: what a normalization does.
bool normalizesRows(const RowExpr *e) {
  auto hasRowSum = [](const RowExpr *x) {
    return anyRowExpr(
        x, [](const RowExpr *y) { return y->kind == RowExpr::Kind::RowSum; },
        [](const RowExpr *) { return true; });
  };
  // A root as rsqrt, sqrt or a power of 1/2 or -1/2 (torch's normalize
  // writes pow(sum, 0.5)), reached through elementwise ops.
  return anyRowExpr(
      e,
      [&](const RowExpr *x) {
        bool root = x->isOp(kRsqrt) || x->isOp(kSqrt) ||
                    (x->isOp("math.powf") && isConstant(x->operands[1]) &&
                     std::abs(x->operands[1]->value) == 0.5);
        return root && isRow(x) && hasRowSum(x);
      },
      [](const RowExpr *x) { return x->kind == RowExpr::Kind::Op; });
}

/// The order-typed ops of an L2 norm (norm has no user op for it), as
/// norm_mlir's l2_fwd program writes them, over x's rows collapsed to M x N:
/// norm.reduce <row> of x^2 in f32, norm.map <row> to rsqrt(sum + epsilon),
/// norm.map <full> to x * rstd (* w), in y's type, expanded back. `ops`
/// gets the ops built, in order.
static Value buildL2(OpBuilder &b, Location loc, RankedTensorType yType,
                     const Normalization &found,
                     SmallVectorImpl<Operation *> &ops) {
  Block *block = b.getInsertionBlock();
  Block::iterator before = b.getInsertionPoint();
  bool atStart = before == block->begin();
  Operation *previous = atStart ? nullptr : &*std::prev(before);
  Level2Builder rows(b, loc, found.x);
  Type f32 = b.getF32Type();
  Value sum = rows.reduce(Order::row, f32, {{rows.x2d, Role::full}},
                          [](OpBuilder &ob, Location l, ValueRange e) -> Value {
                            Value x = Level2Builder::toF32(ob, l, e[0]);
                            return arith::MulFOp::create(ob, l, x, x);
                          });
  Value rstd = rows.map(Role::row, f32, {{sum, Role::row}},
                        [&](OpBuilder &ob, Location l, ValueRange e) -> Value {
                          Value eps =
                              Level2Builder::constant(ob, l, found.epsilon);
                          return math::RsqrtOp::create(
                              ob, l, arith::AddFOp::create(ob, l, e[0], eps));
                        });
  SmallVector<Input> inputs{{rows.x2d, Role::full}, {rstd, Role::row}};
  if (found.weight)
    inputs.push_back({found.weight, Role::col});
  Type yElement = yType.getElementType();
  Value y = rows.map(Role::full, yElement, inputs,
                     [&](OpBuilder &ob, Location l, ValueRange e) -> Value {
                       Value v = arith::MulFOp::create(
                           ob, l, Level2Builder::toF32(ob, l, e[0]), e[1]);
                       if (found.weight)
                         v = arith::MulFOp::create(
                             ob, l, v, Level2Builder::toF32(ob, l, e[2]));
                       return Level2Builder::fromF32(ob, l, v, yElement);
                     });
  Value result = rows.activationFromRows(y);
  // What the builder inserted, reshapes and sizes included, less what
  // nothing reads (its 1/N).
  Block::iterator first =
      atStart ? block->begin() : std::next(previous->getIterator());
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(first, b.getInsertionPoint()))) {
    if (op.use_empty() && result.getDefiningOp() != &op &&
        isOpTriviallyDead(&op))
      op.erase();
    else
      ops.push_back(&op);
  }
  return result;
}

/// The user op computing `found` in place of `root`'s result: y of
/// `root`'s type, per-row statistics in f32. Null (and `root` kept) where
/// the op's verifier refuses it; `why` says why.
Value buildUserOp(OpBuilder &b, linalg::GenericOp root,
                  const Normalization &found, std::string &why) {
  auto yType = cast<RankedTensorType>(root.getResult(0).getType());
  auto statsType =
      RankedTensorType::get(yType.getShape().drop_back(), b.getF32Type());
  Location loc = root.getLoc();
  // A verifier's message is the remark's reason.
  ScopedDiagnosticHandler capture(b.getContext(), [&](Diagnostic &d) {
    why = d.str();
    return success();
  });
  if (found.l2) {
    SmallVector<Operation *> ops;
    Value y = buildL2(b, loc, yType, found, ops);
    if (llvm::all_of(ops, [](Operation *op) { return succeeded(verify(op)); }))
      return y;
    for (Operation *op : llvm::reverse(ops))
      op->erase();
    return Value();
  }
  Operation *op;
  Value y;
  if (found.layerNorm) {
    auto ln = LayerNormOp::create(b, loc, yType, statsType, statsType, found.x,
                                  found.weight, found.bias,
                                  b.getF64FloatAttr(found.epsilon),
                                  b.getF64FloatAttr(found.weightOffset));
    op = ln;
    y = ln.getY();
  } else {
    auto rms = RMSNormOp::create(b, loc, yType, statsType, found.x,
                                 found.weight, b.getF64FloatAttr(found.epsilon),
                                 b.getF64FloatAttr(found.weightOffset));
    op = rms;
    y = rms.getY();
  }
  if (failed(verify(op))) {
    op->erase();
    return Value();
  }
  return y;
}

/// Erases `op` and the ops only it used, where nothing else reads them,
/// adding each to `erased`.
void eraseDead(Operation *op, llvm::SmallPtrSetImpl<Operation *> &erased) {
  SmallVector<Operation *> worklist{op};
  while (!worklist.empty()) {
    Operation *o = worklist.pop_back_val();
    if (erased.contains(o) || !o->use_empty() || !isOpTriviallyDead(o))
      continue;
    // Its operands and the constants its body captures.
    llvm::SetVector<Value> read(o->getOperands().begin(),
                                o->getOperands().end());
    for (Region &region : o->getRegions())
      getUsedValuesDefinedAbove(region, read);
    for (Value operand : read)
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
    erased.insert(o);
    o->erase();
  }
}

struct NormRaisePass : public mlir::norm::impl::NormRaiseBase<NormRaisePass> {
  using Base::Base;

  void runOnOperation() override {
    // Roots: elementwise generics over rows of more than one element.
    SmallVector<linalg::GenericOp> roots;
    getOperation()->walk([&](linalg::GenericOp generic) {
      auto type =
          generic.getNumResults() == 1
              ? dyn_cast<RankedTensorType>(generic.getResult(0).getType())
              : RankedTensorType();
      if (type && type.getRank() >= 2 &&
          !type.isDynamicDim(type.getRank() - 1) &&
          type.getShape().back() > 1 && generic.getNumReductionLoops() == 0)
        roots.push_back(generic);
    });
    llvm::SmallPtrSet<Operation *, 32> erased;
    // Last first, so that the widest computation (with its weight, bias
    // and final cast) is matched before the parts it contains.
    forEachNormalizingRoot(
        roots, erased,
        [&](linalg::GenericOp root, Matcher &matcher, const RowExpr *expr) {
          std::optional<Normalization> found = matcher.match(expr);
          std::string why;
          OpBuilder b(root);
          Value y = found ? buildUserOp(b, root, *found, why) : Value();
          if (!y)
            return false;
          root.getResult(0).replaceAllUsesWith(y);
          eraseDead(root, erased);
          return true;
        });
    // What normalizes rows and is left: one remark per near miss (a
    // computation scaling the rows by a per-row factor, named at its
    // outermost root).
    llvm::SmallPtrSet<const RowExpr *, 8> reported;
    forEachNormalizingRoot(
        roots, erased,
        [&](linalg::GenericOp root, Matcher &matcher, const RowExpr *expr) {
          if (!matcher.match(expr) && matcher.scale &&
              reported.insert(matcher.scale).second)
            root.emitRemark("norm-raise: rows normalized here are not raised: ")
                << matcher.why;
          return false;
        });
  }

  /// Calls `visit(root, matcher, expression)` for each root not in
  /// `erased`, last first, whose expression normalizes rows; a visit that
  /// changed the IR returns true, and the roots after it are read anew.
  template <typename Visit>
  void forEachNormalizingRoot(ArrayRef<linalg::GenericOp> roots,
                              const llvm::SmallPtrSetImpl<Operation *> &erased,
                              Visit visit) {
    // One reader per row space, so each value is read once.
    std::map<SmallVector<int64_t>, std::unique_ptr<RowExprReader>> readers;
    for (linalg::GenericOp root : llvm::reverse(roots)) {
      if (erased.contains(root))
        continue;
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(root.getResult(0).getType()).getShape();
      auto &reader = readers[SmallVector<int64_t>(shape.drop_back())];
      if (!reader)
        reader =
            std::make_unique<RowExprReader>(shape.drop_back(), shape.back());
      const RowExpr *expr = reader->read(root.getResult(0));
      if (expr->order != RowOrder::Full || !normalizesRows(expr))
        continue;
      Matcher matcher(*reader, shape.back());
      if (visit(root, matcher, expr))
        readers.clear();
    }
  }
};

} // namespace
