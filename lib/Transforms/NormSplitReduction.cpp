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

  /// The split size for `op`: its attribute, the pass option, the heuristic.
  FailureOr<int64_t> splitSizeFor(FusedOp op, int64_t m, int64_t n) {
    if (Attribute attr = op->getAttr("norm.split_size")) {
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
    DeviceInfo device;
    device.numSMs = numSMs;
    device.registerBudget = registerBudget;
    device.maxClusterSize = maxClusterSize;
    KernelShape shape = describeKernel(op);
    bool overCluster = !ShapedType::isDynamic(shape.n) &&
                       planKernel(shape, device, /*table=*/nullptr).kind ==
                           KernelPlan::Kind::Cluster;
    return chooseSplitSize(ShapedType::isDynamic(m) ? std::nullopt
                                                    : std::optional(m),
                           n, device, overCluster);
  }

  LogicalResult split(IRRewriter &rewriter, FusedOp op) {
    auto source = cast<RankedTensorType>(op.getShapeSource().getType());
    int64_t m = source.getDimSize(0), n = source.getDimSize(1);
    FailureOr<int64_t> s = splitSizeFor(op, m, n);
    if (failed(s))
      return failure();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    // Partial rows: ceil(M / S).
    int64_t partials = ShapedType::kDynamic;
    SmallVector<Value> partialDims;
    if (!ShapedType::isDynamic(m)) {
      partials = (m + *s - 1) / *s;
    } else {
      Value rows = tensor::DimOp::create(rewriter, loc, op.getShapeSource(), 0);
      Value sValue = arith::ConstantIndexOp::create(rewriter, loc, *s);
      partialDims.push_back(
          arith::CeilDivUIOp::create(rewriter, loc, rows, sValue));
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
    auto splitOp =
        FusedOp::create(rewriter, loc, TypeRange(ValueRange(outputs)),
                        op.getInputs(), op.getRoles(), outputs,
                        op.getOutputRoles(), rewriter.getI64IntegerAttr(*s));
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

  void runOnOperation() override {
    if (splitSize < 0) {
      getOperation()->emitError("norm-split-reduction: ")
          << validateSplitSize(splitSize);
      return signalPassFailure();
    }
    if (numSMs <= 0) {
      getOperation()->emitError(
          "norm-split-reduction: num-sms must be positive, got ")
          << static_cast<int64_t>(numSMs);
      return signalPassFailure();
    }
    if (registerBudget <= 0) {
      getOperation()->emitError(
          "norm-split-reduction: register-budget must be positive, got ")
          << static_cast<int64_t>(registerBudget);
      return signalPassFailure();
    }
    if (std::string error = validateClusterSize(maxClusterSize);
        !error.empty()) {
      getOperation()->emitError("norm-split-reduction: ") << error;
      return signalPassFailure();
    }
    SmallVector<FusedOp> candidates;
    getOperation()->walk([&](FusedOp op) {
      if (op.hasColumnOutputs() && !op.getRowsPerPartial() &&
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
