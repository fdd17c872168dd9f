//===- NormSplitReduction.cpp - split column reductions -------------------===//
//
// Implements --norm-split-reduction: a norm.fused kernel's column outputs
// become f32 partial sums (one row per `S` input rows) and a norm.combine
// sums the partials in a fixed order. Compared with upstream
// linalg::splitReduction, the split here is along the rows of a kernel that
// also carries row reductions, so it is expressed on norm.fused directly.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Transforms/Passes.h"
#include "NormDialect/Tuning/Tuning.h"
#include "NormDialect/Utils/KernelBody.h"
#include "NormDialect/Utils/KernelPlanAttr.h"
#include "NormDialect/Utils/PassOptions.h"
#include "NormDialect/Utils/TargetDevice.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMSPLITREDUCTION
#include "NormDialect/Transforms/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

struct NormSplitReductionPass
    : public mlir::norm::impl::NormSplitReductionBase<NormSplitReductionPass> {
  using Base::Base;

  /// The module's target (norm.target), read when the pass runs.
  DeviceInfo target;

  DeviceInfo device() const { return target; }

  /// The kernel's plan (norm-plan-kernels), if it has one with a kernel;
  /// failure where a plan written in the IR does not suit the kernel.
  FailureOr<std::optional<KernelPlan>> planFor(FusedOp op,
                                               const KernelShape &shape) {
    std::optional<KernelPlan> plan = planOf(op);
    if (!plan || plan->kind == KernelPlan::Kind::OffChip)
      return std::optional<KernelPlan>();
    if (std::string problem = validatePlan(shape, *plan, device());
        !problem.empty())
      return op.emitOpError("cannot be split as its norm.plan says: ")
             << problem;
    return plan;
  }

  /// min_partials for a kernel of `shape` with `plan` (0: none): the option,
  /// else the rule (which may decline). A static M gets the same as a
  /// dynamic one, so both run the same grid.
  int64_t minPartialsFor(const KernelShape &shape,
                         const std::optional<KernelPlan> &plan) {
    if (minPartials == 0)
      return 0;
    if (minPartials > 0)
      return minPartials;
    if (!plan)
      return 0;
    return chooseMinPartials(shape, *plan, device());
  }

  /// max_partials for a kernel of `shape` with `plan` and min_partials
  /// `fill` (0: none): the option, else the rule; none without `fill`.
  int64_t maxPartialsFor(const KernelShape &shape,
                         const std::optional<KernelPlan> &plan, int64_t fill) {
    if (fill <= 0 || maxPartials == 0)
      return 0;
    if (maxPartials > 0)
      return maxPartials;
    return plan && minPartials < 0 ? chooseMaxPartials(shape, *plan, device())
                                   : 0;
  }

  /// min_rows_per_partial for a kernel of `shape` with `plan`, min_partials
  /// `fill` and split `split` (0: none): the option, else the rule with the
  /// rule's min_partials; at most the split.
  int64_t minRowsPerPartialFor(const KernelShape &shape,
                               const std::optional<KernelPlan> &plan,
                               int64_t fill, int64_t split) {
    if (fill <= 0 || minRowsPerPartial == 0)
      return 0;
    int64_t rows = minRowsPerPartial;
    if (rows < 0)
      rows = plan && minPartials < 0
                 ? chooseMinRowsPerPartial(shape, *plan, device())
                 : 0;
    return std::min(rows, split);
  }

  /// The split size for `op` (of `shape`, with `plan`): its attribute, the
  /// pass option, the heuristic.
  FailureOr<int64_t> splitSizeFor(FusedOp op, const KernelShape &shape,
                                  const std::optional<KernelPlan> &plan,
                                  int64_t m, int64_t n, int64_t fill,
                                  int64_t cap) {
    if (Attribute attr =
            op->getAttr(NormDialect::SplitSizeAttrHelper::getNameStr())) {
      auto integer = dyn_cast<IntegerAttr>(attr);
      if (!integer)
        return op.emitOpError("'norm.split_size' must be an integer");
      std::string problem = validateSplitSize(integer.getInt());
      if (!problem.empty())
        return op.emitOpError("'norm.split_size': ") << problem;
      return integer.getInt();
    }
    if (splitSize != 0)
      return splitSize.getValue();
    // One wave of clusters (chooseMinPartials): rows per partial ceil(M /
    // F) whatever M, so no cap (with the rule's fill only).
    if (plan && minPartials < 0 && splitsIntoOneWave(shape, *plan))
      return kUncappedSplit;
    bool overCluster = plan && plan->kind == KernelPlan::Kind::Cluster;
    return chooseSplitSize(ShapedType::isDynamic(m) ? std::nullopt
                                                    : std::optional(m),
                           n, device(), overCluster, fill, cap);
  }

  LogicalResult split(IRRewriter &rewriter, FusedOp op) {
    auto source = cast<RankedTensorType>(op.getShapeSource().getType());
    int64_t m = source.getDimSize(0), n = source.getDimSize(1);
    KernelShape shape = describeKernel(op);
    FailureOr<std::optional<KernelPlan>> planned = planFor(op, shape);
    if (failed(planned))
      return failure();
    std::optional<KernelPlan> plan = *planned;
    int64_t fill = minPartialsFor(shape, plan);
    int64_t cap = maxPartialsFor(shape, plan, fill);
    if (cap > 0 && cap < fill)
      return op.emitOpError("max-partials (")
             << cap << ") must be at least min_partials (" << fill << ")";
    FailureOr<int64_t> s = splitSizeFor(op, shape, plan, m, n, fill, cap);
    if (failed(s))
      return failure();
    int64_t floor = minRowsPerPartialFor(shape, plan, fill, *s);
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    // Partial rows: ceil(M / R), R = S or, with min_partials F, spread over
    // whole waves of F, at least min_rows_per_partial
    // (FusedOp::getRowsPerPartialFor).
    int64_t partials = ShapedType::kDynamic;
    SmallVector<Value> partialDims;
    if (!ShapedType::isDynamic(m)) {
      int64_t rows = FusedOp::getRowsPerPartialFor(m, *s, fill, floor, cap);
      partials = (m + rows - 1) / rows;
    } else {
      Value rows = tensor::DimOp::create(rewriter, loc, op.getShapeSource(), 0);
      Value perPartial = FusedOp::buildRowsPerPartial(rewriter, loc, rows, *s,
                                                      fill, floor, cap);
      partialDims.push_back(
          arith::CeilDivUIOp::create(rewriter, loc, rows, perPartial));
    }
    SmallVector<Value> outputs(op.getOutputs());
    for (auto [i, output] : llvm::enumerate(op.getOutputs())) {
      if (op.getOutputRole(i) != Role::col)
        continue;
      SmallVector<Value> dims = partialDims;
      auto outType = cast<RankedTensorType>(output.getType());
      if (outType.isDynamicDim(0))
        dims.push_back(tensor::DimOp::create(rewriter, loc, output, 0));
      auto type = RankedTensorType::get({partials, outType.getDimSize(0)},
                                        rewriter.getF32Type());
      outputs[i] = tensor::EmptyOp::create(rewriter, loc, type, dims);
    }
    auto splitOp = FusedOp::create(
        rewriter, loc, TypeRange(ValueRange(outputs)), op.getInputs(),
        op.getRoles(), outputs, op.getOutputRoles(),
        rewriter.getI64IntegerAttr(*s),
        fill > 0 ? rewriter.getI64IntegerAttr(fill) : IntegerAttr(),
        floor > 0 ? rewriter.getI64IntegerAttr(floor) : IntegerAttr(),
        cap > 0 ? rewriter.getI64IntegerAttr(cap) : IntegerAttr(),
        op.getGroupSizeAttr());
    // The split kernel is the kernel that was planned.
    if (PlanAttr planned = planAttrOf(op))
      splitOp->setAttr(NormDialect::PlanAttrHelper::getNameStr(), planned);
    rewriter.inlineRegionBefore(op.getBody(), splitOp.getBody(),
                                splitOp.getBody().end());
    SmallVector<Value> replacements;
    for (auto [i, result] : llvm::enumerate(splitOp.getResults())) {
      if (op.getOutputRole(i) != Role::col) {
        replacements.push_back(result);
        continue;
      }
      Value init = op.getOutputs()[i];
      replacements.push_back(CombineOp::create(rewriter, loc,
                                               TypeRange{init.getType()},
                                               result, init)
                                 .getResult()[0]);
    }
    rewriter.replaceOp(op, replacements);
    return success();
  }

  /// Options are checked once, before the pass sees any IR
  /// (reportOptionError).
  LogicalResult initialize(MLIRContext *context) override {
    std::string error = validateMinPartials(minPartials);
    if (error.empty() && splitSize < 0)
      error = validateSplitSize(splitSize);
    if (error.empty())
      error = validateMinRowsPerPartial(minRowsPerPartial);
    if (error.empty())
      error = validateMaxPartials(maxPartials);
    return reportOptionError(context, getArgument(), error);
  }

  void runOnOperation() override {
    target = targetDevice(getOperation());
    SmallVector<FusedOp> candidates;
    getOperation()->walk([&](FusedOp op) {
      // Kernels summing whole columns (norm-short-rows) stay unsplit.
      if (op.hasColumnOutputs() && !op.getRowsPerPartial() &&
          !op->hasAttr(FusedOp::getWholeColumnsAttrName()) &&
          isa<RankedTensorType>(op.getShapeSource().getType()))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (FusedOp op : candidates)
      if (failed(split(rewriter, op)))
        return signalPassFailure();
  }
};

} // namespace
