//===- NormPlanKernels.cpp - decide each kernel's plan --------------------===//
//
// Implements --norm-plan-kernels: the one place a norm.fused kernel's plan
// (NormDialect/Tuning/KernelPlan.h) is decided. It reads what the IR asks
// for (the op's shape and its norm-short-rows attributes), the module's
// norm.target, the tuning table and the pass options, and writes the
// decision as a declared #norm.plan that norm-split-reduction and
// convert-norm-to-gpu read. Compared with IREE's lowering_config, which a
// strategy pass attaches and the codegen passes read, the plan here holds
// the whole kernel decision, including its grid.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Transforms/Passes.h"
#include "NormDialect/Tuning/Tuning.h"
#include "NormDialect/Utils/KernelBody.h"
#include "NormDialect/Utils/KernelPlanAttr.h"
#include "NormDialect/Utils/PassOptions.h"
#include "NormDialect/Utils/TargetDevice.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMPLANKERNELS
#include "NormDialect/Transforms/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

struct NormPlanKernelsPass
    : public mlir::norm::impl::NormPlanKernelsBase<NormPlanKernelsPass> {
  using Base::Base;

  TuningTable table;

  /// What `op` asks of its plan: the pass options, overridden by the
  /// attributes norm-short-rows (or the user) set on it.
  PlanRequest requestFor(FusedOp op) {
    bool wholeColumns = op->hasAttr(FusedOp::getWholeColumnsAttrName());
    auto rowsPerBlockAttr =
        op->getAttrOfType<IntegerAttr>(FusedOp::getRowsPerBlockAttrName());
    // A warp-rows block of fewer rows than the layout's warps has a warp
    // per row (one warp for one row): the plan needs its rows.
    int64_t warpRowsPerBlock = rowsPerBlockAttr   ? rowsPerBlockAttr.getInt()
                               : rowsPerBlock > 0 ? rowsPerBlock.getValue()
                                                  : 0;
    std::optional<KernelShape> besideColumns;
    if (FusedOp beside = columnKernelBeside(op))
      besideColumns = describeKernel(beside);
    auto rowsBelow =
        op->getAttrOfType<IntegerAttr>(FusedOp::getRowsBelowAttrName());
    auto vectorWidth =
        op->getAttrOfType<IntegerAttr>(FusedOp::getVectorWidthAttrName());
    auto space = cast<ShapedType>(op.getShapeSource().getType());
    return PlanRequest()
        .setSharedStages(sharedStages)
        .setStreamRows(streamRows ||
                       op->hasAttr(FusedOp::getStreamRowsAttrName()))
        .setPersistent(persistent && !wholeColumns)
        .setSingleBlock(wholeColumns)
        .setOneRow(space.getDimSize(0) == 1)
        .setL2PrefetchRows(l2PrefetchRows)
        .setBulkStores(bulkStores)
        .setWarpRows(op->hasAttr(FusedOp::getWarpRowsAttrName()),
                     warpRowsPerBlock)
        .setBesideColumns(besideColumns)
        .setRowsBelow(rowsBelow ? rowsBelow.getInt() : 0)
        .setVectorWidth(vectorWidth ? vectorWidth.getInt() : 0);
  }

  /// The plan of `op` (static N), or failure with an error on `op` where
  /// its attributes ask for what its kernel cannot do.
  FailureOr<KernelPlan> plan(FusedOp op, const DeviceInfo &device) {
    KernelPlan plan =
        planKernel(describeKernel(op), device, &table, requestFor(op));
    if (plan.kind == KernelPlan::Kind::OffChip)
      return plan;
    bool streaming = plan.kind == KernelPlan::Kind::Streaming;
    const RowLayout &layout = plan.layout;
    if (op->hasAttr(FusedOp::getWarpRowsAttrName()) &&
        (!streaming || !layout.warpRows))
      return op.emitOpError(
          "norm.warp_rows needs a streamed forward whose block holds its row "
          "in registers, one vector a thread");
    auto vectorWidth =
        op->getAttrOfType<IntegerAttr>(FusedOp::getVectorWidthAttrName());
    if (vectorWidth &&
        (!streaming || layout.vectorWidth != vectorWidth.getInt()))
      return op.emitOpError("norm.vector_width needs a streamed forward");
    // Rows a block walks where the kernel has no split: the kernel's
    // norm.rows_per_block, the option, or the tuning's (which alone spreads
    // a short M over plan.minBlocks blocks). A persistent grid walks rows
    // strided by the grid; a streamed kernel takes several rows only where
    // it holds them in registers (one that re-reads its row from L2 takes
    // one).
    auto rowsPerBlockAttr =
        op->getAttrOfType<IntegerAttr>(FusedOp::getRowsPerBlockAttrName());
    if (plan.persistent || (streaming && !layout.holdsRow && !rowsPerBlockAttr))
      plan.rowsPerBlock = 1, plan.minBlocks = 0;
    else if (rowsPerBlockAttr)
      plan.rowsPerBlock = rowsPerBlockAttr.getInt(), plan.minBlocks = 0;
    else if (rowsPerBlock > 0)
      plan.rowsPerBlock = rowsPerBlock, plan.minBlocks = 0;
    if (plan.rowsPerBlock <= 0)
      return op.emitOpError("rows per block must be positive, got ")
             << plan.rowsPerBlock;
    // A warp-rows block's rows are shared out among its warps.
    if (layout.warpRows && plan.rowsPerBlock % layout.rowGroups != 0)
      return op.emitOpError("norm.rows_per_block must be a multiple of the ")
             << layout.rowGroups << " warps that share a warp-rows block, got "
             << plan.rowsPerBlock;
    // Blocks per SM the registers must allow: the option, else the
    // kernel's norm.min_blocks_per_sm, else the table's or rule's.
    if (minBlocksPerSM > 0)
      plan.minBlocksPerSM = minBlocksPerSM;
    else if (auto attr = op->getAttrOfType<IntegerAttr>(
                 FusedOp::getMinBlocksPerSMAttrName()))
      plan.minBlocksPerSM = attr.getInt();
    return plan;
  }

  /// Options are checked once, before the pass sees any IR
  /// (reportOptionError); the tuning table is read here too.
  LogicalResult initialize(MLIRContext *context) override {
    std::string error;
    if (minBlocksPerSM < 0 || minBlocksPerSM > 32)
      error = "min-blocks-per-sm must be 0 (no limit) to 32, got " +
              std::to_string(static_cast<int64_t>(minBlocksPerSM));
    else if (rowsPerBlock < 0 || rowsPerBlock > kMaxRowCountOption)
      // Past the bound the rows a block's row groups walk overflow.
      error = "rows-per-block must be 0 (the tuning) or positive up to " +
              std::to_string(kMaxRowCountOption) + ", got " +
              std::to_string(static_cast<int64_t>(rowsPerBlock));
    else
      error = validateSharedStages(sharedStages);
    if (error.empty())
      error = validateL2PrefetchRows(l2PrefetchRows);
    if (error.empty())
      error = validateBulkStores(bulkStores);
    if (error.empty() && !tuningTable.empty())
      table.load(tuningTable, error);
    return reportOptionError(context, getArgument(), error);
  }

  void runOnOperation() override {
    DeviceInfo device = targetDevice(getOperation());
    SmallVector<FusedOp> kernels;
    getOperation()->walk([&](FusedOp op) {
      auto space = cast<ShapedType>(op.getShapeSource().getType());
      bool columnKernel = op->hasAttr(FusedOp::getWholeColumnsAttrName()) &&
                          op.hasOnlyColumnOutputs();
      if (!planAttrOf(op) && !columnKernel && !space.isDynamicDim(1))
        kernels.push_back(op);
    });
    for (FusedOp op : kernels) {
      FailureOr<KernelPlan> decided = plan(op, device);
      if (failed(decided))
        return signalPassFailure();
      setPlan(op, *decided);
    }
  }
};

} // namespace
