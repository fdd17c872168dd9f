//===- ConvertNormToGPU.cpp - norm kernels to gpu.func --------------------===//
//
// Outlines bufferized norm.fused / norm.combine ops into gpu.func kernels and
// replaces them with gpu.launch_func. Each norm.fused op is lowered as its
// #norm.plan (from --norm-plan-kernels) says, by one of two code generators
// (GPUKernelBuilders.h): rows kept in
// registers (RowKernelBuilder.cpp) or, for statistics kernels over long rows,
// streamed (StreamingKernelBuilder.cpp). A norm.combine kernel sums the
// partial rows of a block's columns in a fixed order with one warp per row
// group (CombineKernelBuilder.cpp).
//
// Launch information for the kernel bundle is recorded on each gpu.func:
// `norm.block_size`, and either `norm.rows_per_block` (grid = ceil(M / r))
// or `norm.cols_per_block` (grid = ceil(N / c)).
//
//===----------------------------------------------------------------------===//

#include "BlockGroups.h"
#include "DivForm.h"
#include "ExpForm.h"
#include "Float8Form.h"
#include "GPUKernelBuilders.h"
#include "PtxBuilders.h"
#include "RsqrtForms.h"

#include "NormDialect/Conversion/Passes.h"
#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Tuning/Tuning.h"
#include "NormDialect/Utils/KernelBody.h"
#include "NormDialect/Utils/KernelPlanAttr.h"
#include "NormDialect/Utils/PassOptions.h"
#include "NormDialect/Utils/TargetDevice.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::norm {
#define GEN_PASS_DEF_CONVERTNORMTOGPU
#include "NormDialect/Conversion/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

/// Marks the float multiplies, adds and subtracts of the kernels in
/// `gpuModule` `contract`, so that the NVPTX backend fuses a product that
/// feeds a sum into one fma.rn.f32 (one rounding instead of two, one
/// instruction instead of two). nvcc does the same by default (--fmad=true),
/// and so does Triton (torch.compile's kernels). The LayerNorm forward at
/// N = 1024 executed no FMA at all before (ncu), ~10% of its instructions
/// being pairs that fuse.
static void allowContraction(gpu::GPUModuleOp gpuModule) {
  gpuModule.walk([](arith::ArithFastMathInterface op) {
    if (!isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op.getOperation()))
      return;
    arith::FastMathFlagsAttr flags = op.getFastMathFlagsAttr();
    arith::FastMathFlags value =
        (flags ? flags.getValue() : arith::FastMathFlags::none) |
        arith::FastMathFlags::contract;
    op->setAttr(op.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(op->getContext(), value));
  });
}

/// Makes `module`'s kernels ordinary launches for a chip without
/// programmatic dependent launch (before sm_90): the launches keep stream
/// order, so griddepcontrol.wait (which would return at once) and
/// launch_dependents (which would do nothing) go, as neither assembles
/// there, and so does the bundle's programmatic mark.
static void dropDependentLaunches(gpu::GPUModuleOp module) {
  module.walk([](Operation *op) {
    if (auto func = dyn_cast<gpu::GPUFuncOp>(op))
      func->removeAttr(kProgrammaticAttr);
    else if (auto ptx = dyn_cast<NVVM::InlinePtxOp>(op);
             ptx && ptx.getPtxCode().starts_with("griddepcontrol."))
      ptx->erase();
  });
}

namespace {

struct ConvertNormToGPUPass
    : public mlir::norm::impl::ConvertNormToGPUBase<ConvertNormToGPUPass> {
  using Base::Base;

  /// The gpu.modules this pass created, one per kernel.
  SmallVector<gpu::GPUModuleOp> kernelModules;

  /// A kernel in a gpu.module of its own, both named `baseName` (made unique
  /// in `module`): the GPU lowering works on the modules in parallel, and so
  /// does norm-serialize-kernels (the bundle links their PTX into one).
  gpu::GPUFuncOp createKernel(ModuleOp module, Operation *op,
                              StringRef baseName, ValueRange operands,
                              int64_t blockSize, TypeRange extraTypes = {}) {
    OpBuilder b(module.getContext());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    // Created detached, then inserted at the end under a unique name.
    auto gpuModule = gpu::GPUModuleOp::create(b, op->getLoc(), baseName);
    SymbolTable(module).insert(gpuModule);
    kernelModules.push_back(gpuModule);
    SmallVector<Type> types(operands.getTypes());
    types.append(extraTypes.begin(), extraTypes.end());
    b.setInsertionPointToEnd(gpuModule.getBody());
    auto func = gpu::GPUFuncOp::create(b, op->getLoc(), gpuModule.getName(),
                                       b.getFunctionType(types, {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(blockSize), 1, 1}));
    func->setAttr(NormDialect::BlockSizeAttrHelper::getNameStr(),
                  b.getI64IntegerAttr(blockSize));
    return func;
  }

  void launch(Operation *op, gpu::GPUFuncOp func, Value gridX,
              int64_t blockSize, ValueRange operands, Value gridY = Value()) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value one = indexConst(b, loc, 1);
    // Rows staged in shared memory live in dynamic shared memory, whose
    // size the launch provides.
    Value dynamicShared;
    if (auto bytes = func->getAttrOfType<IntegerAttr>(kDynamicSharedBytesAttr))
      dynamicShared = arith::ConstantOp::create(
          b, loc, b.getI32IntegerAttr(static_cast<int32_t>(bytes.getInt())));
    gpu::LaunchFuncOp::create(
        b, loc, func, gpu::KernelDim3{gridX, gridY ? gridY : one, one},
        gpu::KernelDim3{indexConst(b, loc, blockSize), one, one}, dynamicShared,
        operands);
    op->erase();
  }

  /// Kernels followed by a whole-column kernel that runs beside them
  /// (findSideBySide), each to that kernel, and those whole-column kernels.
  llvm::SmallDenseMap<Operation *, FusedOp, 4> leadsSideBySide;
  llvm::SmallPtrSet<Operation *, 4> runsSideBySide;

  /// Records the pairs of kernels that run side by side
  /// (columnKernelBeside).
  void findSideBySide(ModuleOp module) {
    module.walk([&](FusedOp op) {
      if (FusedOp beside = columnKernelBeside(op)) {
        leadsSideBySide[op] = beside;
        runsSideBySide.insert(beside);
      }
    });
  }

  /// The operands the kernels index: a static N, contiguous memrefs.
  static LogicalResult checkOperands(FusedOp op) {
    auto source = cast<MemRefType>(op.getShapeSource().getType());
    if (ShapedType::isDynamic(source.getDimSize(1)))
      return op.emitOpError("the GPU lowering needs a static normalized "
                            "dimension N (rows M may be dynamic)");
    for (Value v : llvm::concat<Value>(op.getInputs(), op.getOutputs())) {
      auto type = cast<MemRefType>(v.getType());
      if (!type.getLayout().isIdentity())
        return op.emitOpError("the GPU lowering needs contiguous (identity "
                              "layout) memrefs; bufferize with "
                              "function-boundary-type-conversion="
                              "identity-layout-map");
    }
    return success();
  }

  /// Checks that `op`'s body has a GPU lowering and copies the constants it
  /// captures (1/N) into it.
  static LogicalResult importBody(FusedOp op) {
    // Bodies evaluate with arith ops, math.rsqrt and math.exp (both emitted
    // without libdevice: RsqrtForms.h, ExpForm.h) and row reductions;
    // anything else would need a device library or has no GPU lowering
    // here, so it is rejected with its location.
    for (Operation &bodyOp : op.getBody().front().without_terminator())
      if (!isa<arith::ArithDialect>(bodyOp.getDialect()) &&
          !isa<math::RsqrtOp, math::ExpOp, RowReduceOp, GroupReduceOp>(bodyOp))
        return bodyOp.emitOpError("is not supported in a norm.fused body by "
                                  "the GPU lowering (arith ops, math.rsqrt, "
                                  "math.exp, norm.row_reduce and "
                                  "norm.group_reduce are)");
    std::string why;
    for (Operation &bodyOp : op.getBody().front().without_terminator())
      if (isUnsupportedFloat8Conversion(&bodyOp, why))
        return bodyOp.emitOpError(why);
    // Captured values (1/N) must be rematerialized inside the kernel.
    for (Operation &bodyOp : op.getBody().front())
      for (Value operand : bodyOp.getOperands())
        if (!op.getBody().isAncestor(operand.getParentRegion()) &&
            !operand.getDefiningOp<arith::ConstantOp>())
          return bodyOp.emitOpError("reads a value defined outside the kernel "
                                    "that is not a constant (dynamic N?): not "
                                    "supported by the GPU lowering");
    // Into the body itself, not the kernel's entry: the builders map every
    // body value per element, and an op reading only captured values (what
    // canonicalization leaves of math.rsqrt of a constant) would otherwise
    // read a value no mapping holds.
    IRMapping constants;
    Block &body = op.getBody().front();
    OpBuilder kb = OpBuilder::atBlockBegin(&body);
    for (Operation &bodyOp : body)
      for (OpOperand &operand : bodyOp.getOpOperands())
        if (auto cst = operand.get().getDefiningOp<arith::ConstantOp>())
          if (!op.getBody().isAncestor(cst->getParentRegion()) &&
              !constants.contains(cst.getResult()))
            constants.map(cst.getResult(), kb.clone(*cst)->getResult(0));
    for (Operation &bodyOp : op.getBody().front())
      for (OpOperand &operand : bodyOp.getOpOperands())
        if (Value mapped = constants.lookupOrNull(operand.get()))
          operand.set(mapped);
    return success();
  }

  /// A whole-column kernel (norm.whole_columns): blocks across the columns,
  /// each summing every row (ColumnKernelBuilder.cpp).
  LogicalResult convertWholeColumns(ModuleOp module, FusedOp op,
                                    const DeviceInfo &device) {
    if (failed(checkOperands(op)))
      return failure();
    KernelShape shape = describeKernel(op);
    CombineLayout layout = chooseColumnKernelLayout(shape, device);
    SmallVector<Value> operands(op.getInputs());
    operands.append(op.getOutputs().begin(), op.getOutputs().end());
    auto func =
        createKernel(module, op, "norm_columns", operands, layout.threads);
    func->setAttr(NormDialect::ColsPerBlockAttrHelper::getNameStr(),
                  OpBuilder(op).getI64IntegerAttr(layout.blockColumns()));
    bool beside = runsSideBySide.contains(op);
    if (beside)
      func->setAttr(kProgrammaticAttr, UnitAttr::get(func.getContext()));
    // A column kernel has no row reductions to lower.
    auto reduces = op.getBody().getOps<RowReduceOp>();
    if (!reduces.empty())
      return (*reduces.begin())
          .emitOpError("has no lowering in a whole-column kernel (its rows "
                       "are not reduced)");
    if (failed(importBody(op)) ||
        failed(buildColumnKernel(op, layout, beside, func)))
      return failure();
    OpBuilder b(op);
    Value grid = indexConst(b, op.getLoc(), columnKernelBlocks(shape, device));
    launch(op, func, grid, layout.threads, operands);
    return success();
  }

  LogicalResult convertFused(ModuleOp module, FusedOp op,
                             const DeviceInfo &device) {
    if (op.getNumResults() != 0)
      return op.emitOpError("must be bufferized before convert-norm-to-gpu");
    // Whole columns: a column kernel, or with row work one block.
    bool wholeColumns = op->hasAttr(FusedOp::getWholeColumnsAttrName());
    if (wholeColumns && op.hasOnlyColumnOutputs())
      return convertWholeColumns(module, op, device);
    if (op.hasColumnOutputs() && !op.getRowsPerPartial() && !wholeColumns)
      return op.emitOpError(
          "column outputs need a split on the GPU: run "
          "--norm-split-reduction before convert-norm-to-gpu");
    if (failed(checkOperands(op)))
      return failure();
    // Before any builder clones the body: the marks travel with the clones.
    markFlushExactRsqrts(op);
    auto space = cast<MemRefType>(op.getShapeSource().getType());
    int64_t n = space.getDimSize(1);
    KernelShape shape = describeKernel(op);
    // The decision was made by norm-plan-kernels; it is lowered as written.
    std::optional<KernelPlan> planned = planOf(op);
    if (!planned)
      return op.emitOpError("has no norm.plan: run --norm-plan-kernels "
                            "before convert-norm-to-gpu (the norm-to-gpu "
                            "pipeline does)");
    const KernelPlan &plan = *planned;
    if (plan.kind == KernelPlan::Kind::OffChip && op.getGroupSize())
      return op.emitOpError("rows of ")
             << n << " elements with groups of " << *op.getGroupSize()
             << " columns fit no block's registers (kernels with groups are "
                "not split across blocks)";
    if (plan.kind == KernelPlan::Kind::OffChip)
      return op.emitOpError("rows of ")
             << n << " elements fit neither a block's registers nor a "
             << "thread block cluster: run --norm-split-rows before "
                "convert-norm-to-gpu (the norm-to-gpu pipeline does)";
    // A plan written by hand (or for another shape) is checked against
    // what the generators lower rather than trusted.
    std::string problem = validatePlan(shape, plan, device);
    if (problem.empty())
      problem = validateGroupPlan(shape, plan);
    if (!problem.empty())
      return op.emitOpError("cannot be lowered as its norm.plan says: ")
             << problem;
    const RowLayout &layout = plan.layout;
    bool streaming = plan.kind == KernelPlan::Kind::Streaming;
    if (plan.numStages > 0 &&
        !op->hasAttr(NormDialect::NumStagesAttrHelper::getNameStr()))
      op->setAttr(NormDialect::NumStagesAttrHelper::getNameStr(),
                  OpBuilder(op).getI64IntegerAttr(plan.numStages));
    SmallVector<Value> operands(op.getInputs());
    operands.append(op.getOutputs().begin(), op.getOutputs().end());
    // A block group's zeroed workspace (BlockGroups.h) is the last
    // argument, allocated at the launch.
    MemRefType workspaceType;
    SmallVector<Type> extraTypes;
    if (layout.globalExchange) {
      int64_t reductionsPerRow =
          llvm::range_size(op.getBody().front().getOps<RowReduceOp>());
      workspaceType = MemRefType::get(
          {ShapedType::kDynamic,
           blockGroupWorkspaceRow(layout.clusterSize, reductionsPerRow)},
          OpBuilder(op).getF32Type());
      extraTypes.push_back(workspaceType);
    }
    auto func = createKernel(module, op, "norm_fused", operands, layout.threads,
                             extraTypes);
    // Rows per block: the split of column partials, else the plan's.
    int64_t split = 1;
    // The plan's rows per block, which a short M spreads over
    // plan.minBlocks blocks.
    bool plannedSplit = false;
    if (plan.persistent)
      func->setAttr(NormDialect::PersistentAttrHelper::getNameStr(),
                    OpBuilder(op).getUnitAttr());
    else if (std::optional<int64_t> partial = op.getRowsPerPartial())
      split = *partial;
    else
      split = plan.rowsPerBlock, plannedSplit = true;
    // A warp-rows block's rows are shared out among its warps: from here on
    // the split counts a warp's rows, as for the row kernels' row groups.
    if (layout.warpRows)
      split /= layout.rowGroups;
    func->setAttr(NormDialect::RowsPerBlockAttrHelper::getNameStr(),
                  OpBuilder(op).getI64IntegerAttr(split));
    func->setAttr(NormDialect::VectorWidthAttrHelper::getNameStr(),
                  OpBuilder(op).getI64IntegerAttr(layout.vectorWidth));
    if (failed(importBody(op)))
      return failure();
    if (layout.rowGroups > 1)
      func->setAttr(NormDialect::RowsInParallelAttrHelper::getNameStr(),
                    OpBuilder(op).getI64IntegerAttr(layout.rowGroups));
    if (layout.columnSlices > 1)
      func->setAttr(NormDialect::ColumnSlicesAttrHelper::getNameStr(),
                    OpBuilder(op).getI64IntegerAttr(layout.columnSlices));
    if (layout.clusterSize > 1 && !layout.globalExchange) {
      // Grid y = the cluster's blocks: one cluster per row block, block y
      // owning column slice y (PTX .reqnctapercluster 1, C, 1).
      func.setKnownClusterSizeAttr(OpBuilder(op).getDenseI32ArrayAttr(
          {1, static_cast<int32_t>(layout.clusterSize), 1}));
      func->setAttr(NormDialect::ClusterSizeAttrHelper::getNameStr(),
                    OpBuilder(op).getI64IntegerAttr(layout.clusterSize));
    }
    // Blocks of a block group must be resident together: the runtimes
    // check the GPU holds that many (bundle "block_group").
    if (layout.globalExchange)
      func->setAttr(NormDialect::BlockGroupAttrHelper::getNameStr(),
                    OpBuilder(op).getI64IntegerAttr(layout.clusterSize));
    if (streaming)
      func->setAttr(NormDialect::StreamingAttrHelper::getNameStr(),
                    OpBuilder(op).getUnitAttr());
    if (layout.sharedStages > 0)
      func->setAttr(NormDialect::SharedStagesAttrHelper::getNameStr(),
                    OpBuilder(op).getI64IntegerAttr(layout.sharedStages));
    if (layout.bulkStores)
      func->setAttr(NormDialect::BulkStoresAttrHelper::getNameStr(),
                    OpBuilder(op).getUnitAttr());
    // Blocks per SM the registers must allow.
    if (plan.minBlocksPerSM > 0)
      func->setAttr("nvvm.minctasm",
                    OpBuilder(op).getI32IntegerAttr(
                        static_cast<int32_t>(plan.minBlocksPerSM)));
    RowSplit rowSplit;
    rowSplit.rowsPerBlock = split;
    rowSplit.minPartials = op.getMinPartials().value_or(0);
    rowSplit.minRowsPerPartial = op.getMinRowsPerPartial().value_or(0);
    rowSplit.maxPartials = op.getMaxPartials().value_or(0);
    if (plannedSplit && rowSplit.minPartials == 0)
      rowSplit.minBlocks = plan.minBlocks;
    // Row groups walk their block's rows in turn where the rows follow M
    // (chooseMinBlocks: the spread counts a block's rows, at least one a
    // group) and wherever groups share a warp: groups owning rows of their
    // own take different numbers of steps in the grid's last block, and the
    // lanes of a warp must reach its shuffles together.
    if (layout.rowGroups > 1 && !streaming && !op.hasColumnOutputs() &&
        (rowSplit.minBlocks > 0 || layout.rowGroupsShareWarps())) {
      rowSplit.groupsWalkBlockRows = true;
      rowSplit.rowsPerBlock = split * layout.rowGroups;
      rowSplit.minRowsPerBlock = layout.rowGroups;
    }
    // Whole blocks: every M the kernel runs at is a multiple of a block's
    // several rows (only a fixed split: minBlocks spreads them by M). Only
    // as norm.rows_multiple says, not from a static M: where the bounds go
    // is the tuning's choice (HeldRows::wholeBlocksVersion), and LayerNorm's
    // statistics forward lost without them. Otherwise a branch in the
    // kernel gives all blocks but the last the code without bounds, where
    // norm-short-rows asks for it (HeldRows::wholeBlocksBranch).
    // Row groups of a kernel with column outputs share their block's rows
    // (and partial row); otherwise each group has `split` rows of its own.
    int64_t groupsOwnRows = op.hasColumnOutputs() ? 1 : layout.rowGroups;
    int64_t blockRows = split * groupsOwnRows;
    bool fixedBlocks =
        rowSplit.minPartials == 0 && rowSplit.minBlocks == 0 && blockRows > 1;
    if (auto multiple =
            op->getAttrOfType<IntegerAttr>(FusedOp::getRowsMultipleAttrName()))
      rowSplit.wholeBlocks = fixedBlocks && multiple.getInt() % blockRows == 0;
    rowSplit.wholeBlocksBranch =
        fixedBlocks && !rowSplit.wholeBlocks &&
        op->hasAttr(FusedOp::getWholeBlocksBranchAttrName());
    if (wholeColumns) {
      // One block over all rows; no bound on them for shared buffers.
      rowSplit = RowSplit();
      rowSplit.rowsPerBlock = kUncappedSplit;
      rowSplit.allRows = true;
    }
    if (rowSplit.minPartials > 0 && groupsOwnRows != 1)
      return op.emitOpError("min_partials needs a block per partial row");
    if (failed(streaming
                   ? buildStreamingKernel(op, shape, layout, n, rowSplit, func)
                   : buildRowKernel(op, layout, n, rowSplit, plan.persistent,
                                    func)))
      return failure();
    lowerRsqrtApprox(func);
    // The whole-column kernel after this one may start at once
    // (findSideBySide): every block lets it.
    if (leadsSideBySide.contains(op)) {
      OpBuilder entry = OpBuilder::atBlockBegin(&func.getBody().front());
      emitInlinePtx(entry, op.getLoc(), {},
                    "griddepcontrol.launch_dependents;");
    }
    OpBuilder b(op);
    Value rows = memref::DimOp::create(b, op.getLoc(), op.getShapeSource(), 0);
    // One block per partial row of a split, else per the rows the kernel
    // computes (of each of its row groups, where they own their rows).
    Value rowsPerBlock = rowSplit.minPartials > 0 || rowSplit.minBlocks > 0
                             ? rowSplit.build(b, op.getLoc(), rows)
                             : indexConst(b, op.getLoc(), blockRows);
    // A block over all rows runs at M = 0 too: it writes sums of no rows.
    Value grid = wholeColumns ? indexConst(b, op.getLoc(), 1)
                              : arith::CeilDivUIOp::create(b, op.getLoc(), rows,
                                                           rowsPerBlock)
                                    .getResult();
    // A block group's blocks take their group and slice from the
    // workspace's ticket (BlockGroups::takeTicket), not from the grid:
    // the grid only counts them (groups x C).
    if (layout.globalExchange) {
      Location loc = op.getLoc();
      Value workspace =
          memref::AllocOp::create(b, loc, workspaceType, ValueRange{grid});
      gpu::MemsetOp::create(
          b, loc, /*asyncToken=*/TypeRange{},
          /*asyncDependencies=*/ValueRange{}, workspace,
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f)));
      operands.push_back(workspace);
    }
    launch(op, func, grid, layout.threads, operands,
           indexConst(b, op.getLoc(), layout.columnSlices));
    return success();
  }

  /// One kernel and one launch for `ops`, adjacent norm.combine ops (the
  /// finishing reductions of one split kernel's column outputs: dW and dB):
  /// a launch between two dependent kernels costs about as much as a small
  /// combine itself.
  LogicalResult convertCombines(ModuleOp module, ArrayRef<CombineOp> ops,
                                const DeviceInfo &device) {
    SmallVector<Value> operands;
    int64_t columns = 0;
    // 16-byte loads of the partials where every row is whole vectors of 4.
    int64_t vectorWidth = 4;
    for (CombineOp op : ops) {
      if (!op.getResult().empty())
        return op.emitOpError("must be bufferized before convert-norm-to-gpu");
      operands.append({op.getPartials(), op.getOutput()});
      auto partialsType = cast<MemRefType>(op.getPartials().getType());
      columns = partialsType.isDynamicDim(1) || columns < 0
                    ? -1
                    : columns + partialsType.getDimSize(1);
      if (partialsType.isDynamicDim(1) || partialsType.getDimSize(1) % 4 != 0)
        vectorWidth = 1;
    }
    // The grid is what the layout rule sizes blocks for: all combines'.
    CombineLayout layout = chooseCombineLayout(columns, vectorWidth, device,
                                               combineLanes, combineThreads);
    auto func = createKernel(module, ops.front(), "norm_combine", operands,
                             layout.threads);
    func->setAttr(
        NormDialect::ColsPerBlockAttrHelper::getNameStr(),
        OpBuilder(ops.front()).getI64IntegerAttr(layout.blockColumns()));
    // Launched as a programmatic dependent of the kernel before it (the
    // split kernel writing its partials; CombineKernelBuilder.cpp).
    func->setAttr(kProgrammaticAttr, UnitAttr::get(func.getContext()));
    if (failed(buildCombineKernel(ops, layout, func)))
      return failure();
    OpBuilder hb(ops.front());
    Location loc = CombineOp(ops.front()).getLoc();
    Value grid = indexConst(hb, loc, 0);
    for (CombineOp op : ops)
      grid = arith::AddIOp::create(
          hb, loc, grid,
          arith::CeilDivUIOp::create(
              hb, loc, memref::DimOp::create(hb, loc, op.getPartials(), 1),
              indexConst(hb, loc, layout.blockColumns())));
    for (CombineOp op : ops.drop_front())
      op->erase();
    launch(ops.front(), func, grid, layout.threads, operands);
    return success();
  }

  /// Whether `op` can join the launch of `group`: it follows the group's
  /// last combine directly and neither reads nor writes a buffer the group
  /// writes (so running them at once changes nothing).
  static bool joinsCombines(ArrayRef<Operation *> group, CombineOp op) {
    if (group.empty() || op->getPrevNode() != group.back())
      return false;
    return llvm::all_of(group, [&](Operation *member) {
      auto other = dyn_cast<CombineOp>(member);
      return other && other.getOutput() != op.getPartials() &&
             other.getOutput() != op.getOutput();
    });
  }

  /// Options are checked once, before the pass sees any IR
  /// (reportOptionError).
  LogicalResult initialize(MLIRContext *context) override {
    return reportOptionError(
        context, getArgument(),
        validateCombineLayout(combineLanes, combineThreads, DeviceInfo()));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    DeviceInfo device = targetDevice(module);
    // The last reader of the target: the lowered module must parse without
    // the norm dialect.
    if (auto *norm = getContext().getLoadedDialect<NormDialect>())
      module->removeAttr(norm->getTargetAttrHelper().getName());
    kernelModules.clear();
    leadsSideBySide.clear();
    runsSideBySide.clear();
    // Kernels in order; adjacent combines grouped into one launch.
    SmallVector<SmallVector<Operation *>> kernels;
    module.walk([&](Operation *op) {
      auto combine = dyn_cast<CombineOp>(op);
      if (combine && !kernels.empty() &&
          joinsCombines(kernels.back(), combine)) {
        kernels.back().push_back(op);
        return;
      }
      if (isa<FusedOp, CombineOp>(op))
        kernels.push_back({op});
    });
    if (kernels.empty())
      return;
    findSideBySide(module);
    for (ArrayRef<Operation *> group : kernels) {
      LogicalResult result =
          isa<FusedOp>(group.front())
              ? convertFused(module, cast<FusedOp>(group.front()), device)
              : convertCombines(
                    module,
                    llvm::map_to_vector(
                        group, [](Operation *o) { return cast<CombineOp>(o); }),
                    device);
      if (failed(result))
        return signalPassFailure();
    }
    for (gpu::GPUModuleOp gpuModule : kernelModules) {
      lowerExpApprox(gpuModule);
      lowerApproxDivisions(gpuModule);
      if (!device.hasDependentLaunch())
        dropDependentLaunches(gpuModule);
      // Older chips keep the truncation for norm-expand-float8's integer
      // rounding (the norm-to-ptx pipeline runs it on the kernels).
      if (device.hasFloat8Conversion())
        lowerFloat8Truncs(gpuModule);
      if (fpContract)
        allowContraction(gpuModule);
    }
  }
};

} // namespace
