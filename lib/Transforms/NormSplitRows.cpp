//===- NormSplitRows.cpp - row statistics out of long-row kernels ---------===//
//
// Implements --norm-split-rows: a norm.fused kernel with norm.row_reduce ops
// over rows too long for registers becomes a statistics kernel (the row
// reductions, as row outputs) and the original kernel reading them as row
// inputs. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Transforms/Passes.h"
#include "NormDialect/Tuning/Tuning.h"
#include "NormDialect/Utils/KernelBody.h"
#include "NormDialect/Utils/PassOptions.h"
#include "NormDialect/Utils/TargetDevice.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMSPLITROWS
#include "NormDialect/Transforms/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

struct NormSplitRowsPass
    : public mlir::norm::impl::NormSplitRowsBase<NormSplitRowsPass> {
  using Base::Base;

  /// Whether `op`'s rows are too long for the row-resident GPU layout.
  bool needsSplit(FusedOp op) {
    if (always)
      return true;
    KernelShape traits = describeKernel(op);
    if (ShapedType::isDynamic(traits.n))
      return false;
    return !rowsFitOnChip(traits, targetDevice(op), sharedStages);
  }

  void split(IRRewriter &rewriter, FusedOp op) {
    Block &body = op.getBody().front();
    SmallVector<RowReduceOp> reduces(body.getOps<RowReduceOp>());
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);

    // The statistics kernel: inputs its reductions read, one row output each.
    SmallVector<Value> targets;
    for (RowReduceOp r : reduces)
      targets.push_back(r.getResult());
    // argumentsUsedBy stops at mapped values; map nothing so the slice goes
    // through the reductions down to the arguments.
    IRMapping none;
    llvm::SetVector<unsigned> used;
    for (RowReduceOp r : reduces)
      for (BlockArgument arg : argumentsUsedBy(body, {r.getValue()}, none))
        used.insert(arg.getArgNumber());
    SmallVector<Value> statInputs;
    SmallVector<Attribute> statRoles;
    SmallVector<Type> argTypes;
    SmallVector<Location> argLocs;
    for (unsigned i : used) {
      statInputs.push_back(op.getInputs()[i]);
      statRoles.push_back(op.getRoles()[i]);
      argTypes.push_back(body.getArgument(i).getType());
      argLocs.push_back(loc);
    }
    Value source = op.getShapeSource();
    SmallVector<Value> dynamicRows;
    auto sourceType = cast<RankedTensorType>(source.getType());
    if (sourceType.isDynamicDim(0))
      dynamicRows.push_back(tensor::DimOp::create(rewriter, loc, source, 0));
    SmallVector<Value> statOutputs;
    SmallVector<Attribute> statOutputRoles;
    auto rowType = RankedTensorType::get({sourceType.getDimSize(0)},
                                         rewriter.getF32Type());
    for (size_t k = 0; k < reduces.size(); ++k) {
      statOutputs.push_back(
          tensor::EmptyOp::create(rewriter, loc, rowType, dynamicRows));
      statOutputRoles.push_back(RoleAttr::get(op.getContext(), Role::row));
    }
    auto stats = FusedOp::create(
        rewriter, loc, TypeRange(ValueRange(statOutputs)), statInputs,
        rewriter.getArrayAttr(statRoles), statOutputs,
        rewriter.getArrayAttr(statOutputRoles), /*rows_per_partial=*/nullptr,
        /*min_partials=*/nullptr, /*min_rows_per_partial=*/nullptr,
        /*max_partials=*/nullptr, /*group_size=*/nullptr);
    Block *statBody =
        rewriter.createBlock(&stats.getBody(), {}, argTypes, argLocs);
    IRMapping statMap;
    for (auto [k, i] : llvm::enumerate(used))
      statMap.map(body.getArgument(i), statBody->getArgument(k));
    for (Operation &bodyOp : body.without_terminator()) {
      bool needed = llvm::all_of(bodyOp.getOperands(), [&](Value v) {
        return statMap.contains(v) ||
               !op.getBody().isAncestor(v.getParentRegion());
      });
      if (needed)
        rewriter.clone(bodyOp, statMap);
    }
    SmallVector<Value> statYields;
    for (RowReduceOp r : reduces)
      statYields.push_back(statMap.lookup(r.getResult()));
    YieldOp::create(rewriter, loc, statYields);

    // The original kernel, reading the statistics instead of reducing.
    rewriter.setInsertionPoint(op);
    SmallVector<Value> inputs(op.getInputs());
    SmallVector<Attribute> roles(op.getRoles().begin(), op.getRoles().end());
    for (Value s : stats.getResults()) {
      inputs.push_back(s);
      roles.push_back(RoleAttr::get(op.getContext(), Role::row));
    }
    auto rest =
        FusedOp::create(rewriter, loc, op.getResultTypes(), inputs,
                        rewriter.getArrayAttr(roles), op.getOutputs(),
                        op.getOutputRoles(), op.getRowsPerPartialAttr(),
                        op.getMinPartialsAttr(), op.getMinRowsPerPartialAttr(),
                        op.getMaxPartialsAttr(), op.getGroupSizeAttr());
    rest->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.inlineRegionBefore(op.getBody(), rest.getBody(),
                                rest.getBody().end());
    Block &restBody = rest.getBody().front();
    for (RowReduceOp r : reduces) {
      BlockArgument arg = restBody.addArgument(rewriter.getF32Type(), loc);
      rewriter.replaceAllUsesWith(r.getResult(), arg);
      rewriter.eraseOp(r);
    }
    rewriter.replaceOp(op, rest.getResults());
  }

  /// Options are checked once, before the pass sees any IR
  /// (reportOptionError).
  LogicalResult initialize(MLIRContext *context) override {
    return reportOptionError(context, getArgument(),
                             validateSharedStages(sharedStages));
  }

  void runOnOperation() override {
    SmallVector<FusedOp> candidates;
    getOperation()->walk([&](FusedOp op) {
      // Group reductions are not split: such rows stay off chip, which the
      // GPU lowering refuses with the row length it cannot hold.
      if (!op.getBody().front().getOps<RowReduceOp>().empty() &&
          !op.getGroupSize() &&
          isa<RankedTensorType>(op.getShapeSource().getType()) &&
          // A kernel that only reduces (all row outputs) is already the
          // statistics kernel.
          llvm::any_of(op.getOutputRoles(),
                       [](Attribute r) {
                         return cast<RoleAttr>(r).getValue() != Role::row;
                       }) &&
          needsSplit(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (FusedOp op : candidates)
      split(rewriter, op);
  }
};

} // namespace
