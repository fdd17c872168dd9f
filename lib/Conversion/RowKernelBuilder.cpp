//===- RowKernelBuilder.cpp - row-resident norm.fused kernels -------------===//
//
// A norm.fused kernel spreads one row over a thread block (or, for short
// rows, over one warp of it): thread t owns vector chunks c of VW contiguous
// elements at columns (c * T + t) * VW, loads them with 16-byte vector loads
// (when N allows) and keeps them in registers while the body is evaluated for
// every element it owns. norm.row_reduce becomes a per-thread combine, a
// warp shuffle butterfly and, with several warps per row, one exchange of
// warp totals through shared memory (one barrier; RowReductions.cpp); so the
// row's reductions and the elementwise work that needs them share one read
// of the row. Rows too long for one block are spread over a thread block
// cluster: block y of the cluster owns column slice y, and the block totals
// are pushed to every block of the cluster through distributed shared
// memory (st.async completing on an mbarrier); on targets without clusters
// over a block group, which exchanges them through global memory
// (BlockGroups.cpp). A block walks
// `rowsPerBlock` consecutive rows (the split of column partials) and keeps
// the column outputs' partial sums in f32 registers across them, writing one
// partial row at the end: the mixed-order fusion with a deterministic split
// (with min_partials, the rows per partial follow M, as the host's grid
// does). Short rows share a warp (row groups); with column outputs the
// groups take the block's rows in turn and add their sums before the
// partial row is written. Rows staged in shared memory (RowStaging.cpp) are
// read from there; with layout.rereadStaged they are read again after each row
// reduction, with the column inputs copied to shared memory once, instead of
// being held in registers across it. With layout.bulkStores the full outputs go
// through shared memory too, a row at a time by one bulk copy each.
// Without row reductions, rows can be cut into column slices (grid y).
// norm.group_reduce is a per-chunk combine and a shuffle butterfly over the
// group's lanes (GroupReductions.cpp); group inputs are read and group
// outputs written once per chunk, by the group's first lane.
//
//===----------------------------------------------------------------------===//

#include "BlockGroups.h"
#include "GPUKernelBuilders.h"
#include "GroupReductions.h"
#include "PtxBuilders.h"
#include "RowReductions.h"
#include "RowStaging.h"
#include "RsqrtForms.h"

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>
#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::norm;

namespace {

/// Code generation of one norm.fused kernel body.
class FusedKernelBuilder {
public:
  FusedKernelBuilder(FusedOp op, RowLayout layout, int64_t n,
                     const RowSplit &split, bool persistent)
      : op(op), body(op.getBody().front()), layout(layout), n(n),
        rowsPerBlock(split.rowsPerBlock), split(split), persistent(persistent) {
  }

  /// Emits the kernel into `func` whose arguments are the op's inputs then
  /// outputs.
  LogicalResult build(gpu::GPUFuncOp func) {
    OpBuilder b = OpBuilder::atBlockEnd(&func.getBody().front());
    Location loc = op.getLoc();
    unsigned numInputs = op.getInputs().size();
    auto args = func.getArguments();
    inputs = SmallVector<Value>(args.take_front(numInputs));
    outputs = SmallVector<Value>(args.drop_front(numInputs));
    // A block group's workspace follows the outputs.
    if (layout.globalExchange)
      workspace = outputs.pop_back_val();
    for (unsigned i = 0; i < numInputs; ++i)
      if (op.getInputRole(i) == Role::full)
        fullInputs.push_back(inputs[i]);
    // The full and column inputs' global addresses, once: their loads are
    // predicated ld.global (emitGlobalLoad), which take global addresses.
    for (unsigned i = 0; i < numInputs; ++i)
      if (op.getInputRole(i) == Role::full || op.getInputRole(i) == Role::col)
        globalBases[inputs[i]] = emitGlobalBase(b, loc, inputs[i]);
    alwaysTrue = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);

    if (failed(setUpThreads(b, func, loc)))
      return failure();
    setUpRows(b, loc, func.getArguments());
    setUpColumns(b, loc);
    setUpColumnInputsAndStaging(b, func, loc);
    FailureOr<scf::ForOp> loop = emitRowLoop(b, loc);
    if (failed(loop))
      return failure();
    finishKernel(b, func, loc, *loop);
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  /// The thread and (virtual) block indices, and the row reductions' shared
  /// memory.
  LogicalResult setUpThreads(OpBuilder &b, gpu::GPUFuncOp func, Location loc) {
    tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    // A block group's blocks take their group from a ticket instead.
    if (!layout.globalExchange)
      bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    reductionsPerRow = 0;
    for (auto reduce : body.getOps<RowReduceOp>()) {
      if (!reduce.getValue().getType().isF32())
        return reduce.emitOpError("the GPU lowering reduces f32 values only");
      ++reductionsPerRow;
    }
    reductions.emplace(layout, reductionsPerRow);
    reductions->allocate(func, op.getLoc());
    // A block group's blocks take their group (the rows) and rank (the
    // column slice) from a ticket, not from their block index.
    if (layout.globalExchange) {
      blockGroups.emplace(layout, reductionsPerRow);
      blockGroups->allocate(func, op.getLoc());
      std::tie(bid, groupRank) =
          blockGroups->takeTicket(b, loc, workspace, tid);
      reductions->setBlockGroups(&*blockGroups);
    }
    if (std::optional<int64_t> groupSize = op.getGroupSize()) {
      int64_t groupReductions = llvm::range_size(body.getOps<GroupReduceOp>());
      groupReductionCode.emplace(layout, *groupSize, groupReductions);
      groupReductionCode->allocate(func, op.getLoc());
    }
    // With row groups (short rows), each group of threadsPerRow() lanes (a
    // warp, or an aligned part of one) works on rows of its own: its thread
    // index is the lane within the group. Without column outputs a group is
    // a "virtual block" with rows of its own (its rows those of block bid *
    // groups + group), unless the groups walk their block's rows in turn
    // (groupsWalkBlockRows: with column outputs, whose partial row they
    // share, or where the block's rows follow M).
    if (layout.rowGroups > 1) {
      Value width = indexConst(b, loc, layout.threadsPerRow());
      group = arith::DivUIOp::create(b, loc, tid, width);
      tid = arith::RemUIOp::create(b, loc, tid, width);
      if (!groupsWalkBlockRows())
        bid = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, bid,
                                  indexConst(b, loc, layout.rowGroups)),
            group);
    }
    lane = arith::RemUIOp::create(b, loc, tid, indexConst(b, loc, 32));
    if (groupReductionCode)
      groupReductionCode->setThread(tid, lane);
    return success();
  }

  /// The row count and this (virtual) block's rows [rowBegin, rowEnd).
  void setUpRows(OpBuilder &b, Location loc, ValueRange arguments) {
    rows =
        memref::DimOp::create(b, loc, shapeSourceArgument(op, arguments), 0);
    // Rows of this block: its partial row's, or its share of the rows (the
    // host computes the grid from the same count, RowSplit::build).
    Value rowsHere = split.build(b, loc, rows);
    rowBegin = arith::MulIOp::create(b, loc, bid, rowsHere);
    rowEnd = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, rowBegin, rowsHere), rows);
  }

  /// Whether the row groups of a block share its rows and its partial row:
  /// a kernel with column outputs, whose partial rows count blocks.
  bool groupsSharePartial() {
    return layout.rowGroups > 1 && op.hasColumnOutputs();
  }

  /// Whether the row groups of a block take its rows in turn (its partial
  /// row's, or rows that follow M: RowSplit::groupsWalkBlockRows) rather
  /// than each owning rows of its own.
  bool groupsWalkBlockRows() {
    return groupsSharePartial() || split.groupsWalkBlockRows;
  }

  /// Column offsets and bounds of this thread's chunks. With column slices
  /// (no row reductions left), block y owns columns [y * W, (y + 1) * W).
  void setUpColumns(OpBuilder &b, Location loc) {
    if (layout.columnSlices > 1) {
      sliceY =
          groupRank
              ? groupRank
              : gpu::BlockIdOp::create(b, loc, gpu::Dimension::y).getResult();
      sliceBase = arith::MulIOp::create(
          b, loc, sliceY, indexConst(b, loc, layout.sliceWidth()));
    }
    bool slicesExact = n % layout.sliceWidth() == 0;
    int64_t rowThreads = layout.threadsPerRow();
    for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
      Value chunk = arith::AddIOp::create(
          b, loc, indexConst(b, loc, c * rowThreads), tid);
      Value col = arith::MulIOp::create(b, loc, chunk,
                                        indexConst(b, loc, layout.vectorWidth));
      if (sliceBase)
        col = arith::AddIOp::create(b, loc, sliceBase, col);
      columns.push_back(col);
      // Chunks that every thread owns inside the row need no guard.
      bool alwaysInside = layout.columnSlices > 1
                              ? slicesExact
                              : (c + 1) * rowThreads * layout.vectorWidth <= n;
      inBounds.push_back(alwaysInside ? Value()
                                      : arith::CmpIOp::create(
                                            b, loc, arith::CmpIPredicate::ult,
                                            col, indexConst(b, loc, n))
                                            .getResult());
    }
  }

  /// Column inputs (weights), the reductions' thread state, and the ring of
  /// staged rows with its first stages issued.
  void setUpColumnInputsAndStaging(OpBuilder &b, gpu::GPUFuncOp func,
                                   Location loc) {
    // Column inputs are the same for every row: load them once, into
    // registers, or with staged rows into shared memory, from where each
    // row reads them again (registers then hold a few elements at a time).
    elementValues.assign(inputs.size(), {});
    for (unsigned i = 0; i < inputs.size(); ++i)
      if (op.getInputRole(i) == Role::col)
        elementValues[i] = loadRow(b, loc, inputs[i], /*row=*/Value());
    reductions->setThread(tid, lane, sliceY);
    if (layout.clusterSize > 1 && !layout.globalExchange &&
        reductionsPerRow > 0)
      reductions->initClusterBarriers(b, loc);
    if (layout.sharedStages > 0) {
      // Rows staged in shared memory: the first stages - 1 rows are issued
      // before the loop, each iteration issues one more (RowStaging.cpp).
      SmallVector<Value> column;
      for (unsigned i = 0; i < inputs.size(); ++i)
        if (op.getInputRole(i) == Role::col && layout.rereadStaged)
          column.push_back(inputs[i]);
      // The L2 prefetch of a split kernel (one wave, long walks) stays in
      // its own rows; a forward's reaches the rows of the blocks after it.
      staging.emplace(layout, n, layout.sharedStages, sliceBase,
                      op.hasColumnOutputs() ? rowEnd : rows);
      SmallVector<Value> fullOutputs;
      for (unsigned k = 0; k < outputs.size(); ++k)
        if (op.getOutputRole(k) == Role::full)
          fullOutputs.push_back(outputs[k]);
      staging->allocate(b, func, loc, fullInputs, column, fullOutputs);
      unsigned columnIndex = 0;
      for (unsigned i = 0; i < inputs.size() && layout.rereadStaged; ++i)
        if (op.getInputRole(i) == Role::col) {
          storeColumnCopy(b, loc, staging->columnBuffer(columnIndex++),
                          elementValues[i]);
          elementValues[i].clear();
        }
      staging->init(b, loc, tid);
      for (int64_t k = 0; k + 1 < layout.sharedStages; ++k) {
        Value local = indexConst(b, loc, k);
        staging->issue(b, loc, tid,
                       arith::AddIOp::create(b, loc, rowBegin, local), local,
                       rowEnd);
      }
      stagingRowEnd = rowEnd;
      if (!persistent && layout.rowGroups == 1 &&
          rowsPerBlock <= kMaxStagedRowInputRows)
        stageRowInputs(b, func, loc, tid, rowEnd);
    }
  }

  /// The loop over this block's rows, carrying the column accumulators.
  FailureOr<scf::ForOp> emitRowLoop(OpBuilder &b, Location loc) {
    // Column accumulators, flattened [output][chunk][lane].
    SmallVector<Value> initAccs;
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    for (unsigned k = 0; k < outputs.size(); ++k)
      if (op.getOutputRole(k) == Role::col)
        initAccs.append(layout.elementsPerThread(), zero);

    LogicalResult status = success();
    // A persistent block walks its rows by a local index k (row bid + k *
    // grid) with a constant step, which scf::pipelineForLoop needs; the
    // reductions alternate their buffers with k.
    Value loopBegin = rowBegin, loopEnd = rowEnd;
    if (persistent) {
      walkStep = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
      Value hasRow =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, bid, rows);
      loopBegin = indexConst(b, loc, 0);
      loopEnd = arith::SelectOp::create(
          b, loc, hasRow,
          arith::CeilDivUIOp::create(
              b, loc, arith::SubIOp::create(b, loc, rows, bid), walkStep),
          loopBegin);
    }
    // Row groups walking their block's rows take them in turn (group g:
    // rows rowBegin + g + k * groups), and every group of the block takes
    // the same number of steps, so that the lanes of a warp reach their
    // shuffles together: a step past the block's rows reads its last row
    // again and neither stores nor adds it (rowValid).
    Value groupFirst;
    if (groupsWalkBlockRows()) {
      walkStep = indexConst(b, loc, layout.rowGroups);
      Value blockRows = arith::SubIOp::create(
          b, loc, rowEnd, arith::MinUIOp::create(b, loc, rowBegin, rowEnd));
      loopBegin = indexConst(b, loc, 0);
      loopEnd = arith::CeilDivUIOp::create(b, loc, blockRows, walkStep);
      groupFirst = arith::AddIOp::create(b, loc, rowBegin, group);
    }
    auto loop = scf::ForOp::create(
        b, loc, loopBegin, loopEnd, indexConst(b, loc, 1), initAccs,
        [&](OpBuilder &lb, Location l, Value index, ValueRange accs) {
          SmallVector<Value> next;
          Value row = index, local = index, first = rowBegin;
          if (persistent) {
            row = arith::AddIOp::create(
                lb, l, bid, arith::MulIOp::create(lb, l, index, walkStep));
            first = loopBegin;
          } else if (groupFirst) {
            Value turn = arith::AddIOp::create(
                lb, l, groupFirst,
                arith::MulIOp::create(lb, l, index, walkStep));
            rowValid = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ult,
                                             turn, rowEnd);
            row = arith::MinUIOp::create(
                lb, l, turn,
                arith::SubIOp::create(lb, l, rowEnd, indexConst(lb, l, 1)));
            first = loopBegin;
          }
          if (failed(emitRow(lb, l, row, local, first, tid, accs, next)))
            status = failure();
          rowValid = Value();
          scf::YieldOp::create(lb, l, next);
        });
    if (failed(status))
      return failure();
    return loop;
  }

  /// After the last row: the cluster's end, the combines' early launch, the
  /// loop's pipelining attributes and the column partial rows.
  void finishKernel(OpBuilder &b, gpu::GPUFuncOp func, Location loc,
                    scf::ForOp loop) {
    reductions->finishCluster(b, loc);
    if (staging && staging->storesOutputs()) {
      // The last row's outputs: every thread's writes precede the barrier,
      // and the copies must have read their slots before the block exits
      // (RowStaging::storesOutputs).
      gpu::BarrierOp::create(b, loc);
      Value last = arith::SubIOp::create(b, loc, rowEnd, indexConst(b, loc, 1));
      Value hasRows = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            rowBegin, rowEnd);
      staging->storeOutputRow(b, loc, tid, last,
                              arith::SubIOp::create(b, loc, last, rowBegin),
                              hasRows);
      staging->waitOutputSlotsRead(b, loc, tid);
    }
    // The combines after a split kernel are its programmatic dependents
    // (CombineKernelBuilder.cpp): their launch may begin once every block
    // has signalled here; they still wait for this grid to complete.
    if (op.hasColumnOutputs())
      emitInlinePtx(b, loc, {}, "griddepcontrol.launch_dependents;");
    // --norm-pipeline prefetches a row's loads into registers stages - 1
    // rows ahead. Staged rows are already pipelined (RowStaging's ring of
    // stages), so there the early loads are only the row inputs (LayerNorm
    // backward's mean and rstd) that stageRowInputs did not copy (kernels
    // over clusters): issued after the stage wait, their latency from HBM
    // was exposed once a row (ncu source counters, LN bwd 512x131072: 5% of
    // the warp stall samples). A predicated epilogue keeps one copy of the
    // (large) row body, hence the compile time.
    loop->setAttr(kRowLoopAttr, b.getUnitAttr());
    if (staging)
      loop->setAttr(kPredicateEpilogueAttr, b.getUnitAttr());
    if (Attribute stages =
            op->getAttr(NormDialect::NumStagesAttrHelper::getNameStr()))
      loop->setAttr(NormDialect::NumStagesAttrHelper::getNameStr(), stages);

    // One partial row per block for every column output. A block over all
    // rows (RowSplit::allRows) writes the outputs themselves, rounded, also
    // at M = 0 (sums of no rows).
    Value hasRows = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          rowBegin, rows);
    if (split.allRows)
      hasRows = arith::OrIOp::create(
          b, loc, hasRows,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bid,
                                indexConst(b, loc, 0)));
    // Row groups sharing the partial row add theirs together first, and the
    // first group stores the total.
    SmallVector<Value> accs(loop.getResults());
    if (groupsSharePartial()) {
      accs = combineGroups(b, func, loc, accs);
      hasRows = arith::AndIOp::create(
          b, loc, hasRows,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group,
                                indexConst(b, loc, 0)));
    }
    auto storePartials = scf::IfOp::create(b, loc, hasRows,
                                           /*withElseRegion=*/false);
    OpBuilder pb = OpBuilder::atBlockBegin(storePartials.thenBlock());
    unsigned accIndex = 0;
    for (unsigned k = 0; k < outputs.size(); ++k) {
      if (op.getOutputRole(k) != Role::col)
        continue;
      SmallVector<Value> lanes(accs.begin() + accIndex,
                               accs.begin() + accIndex +
                                   layout.elementsPerThread());
      accIndex += layout.elementsPerThread();
      storeRow(pb, loc, outputs[k], bid, lanes);
    }
  }

  /// The sums over the block's row groups of each thread's column
  /// accumulators `accs`, in the threads of the first group (the others get
  /// partial sums): an xor butterfly over the groups of a warp, then the
  /// warps' sums through shared memory, added in warp order. The order is
  /// fixed, so the partial rows are the same from run to run.
  SmallVector<Value> combineGroups(OpBuilder &b, gpu::GPUFuncOp func,
                                   Location loc, ArrayRef<Value> accs) {
    int64_t width = layout.threadsPerRow();
    SmallVector<Value> sums;
    for (Value v : accs) {
      for (int64_t offset = width; offset < 32; offset *= 2)
        v = arith::AddFOp::create(
            b, loc, v,
            gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
                .getShuffleResult());
      sums.push_back(v);
    }
    int64_t warps = layout.threads / 32;
    if (warps == 1)
      return sums;
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    int64_t count = static_cast<int64_t>(sums.size());
    Value buffer = addWorkgroupBuffer(func,
                                      MemRefType::get({warps, count, width},
                                                      b.getF32Type(),
                                                      AffineMap(), workgroup),
                                      loc);
    // The first group of each warp publishes its warp's sums.
    Value groupsPerWarp = indexConst(b, loc, 32 / width);
    Value warp = arith::DivUIOp::create(b, loc, group, groupsPerWarp);
    Value leads = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, group, groupsPerWarp),
        indexConst(b, loc, 0));
    scf::IfOp::create(b, loc, leads, [&](OpBuilder &tb, Location l) {
      for (int64_t i = 0; i < count; ++i)
        memref::StoreOp::create(tb, l, sums[i], buffer,
                                ValueRange{warp, indexConst(tb, l, i), tid});
      scf::YieldOp::create(tb, l);
    });
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> totals;
    for (int64_t i = 0; i < count; ++i) {
      Value total;
      for (int64_t w = 0; w < warps; ++w) {
        Value v = memref::LoadOp::create(
            b, loc, buffer,
            ValueRange{indexConst(b, loc, w), indexConst(b, loc, i), tid});
        total = total ? arith::AddFOp::create(b, loc, total, v).getResult() : v;
      }
      totals.push_back(total);
    }
    return totals;
  }

  /// Copies the row inputs (a backward's mean and rstd) of this block's rows
  /// [rowBegin, rowEnd) into shared memory, where each row reads its own;
  /// a staged row would otherwise load them from global memory after its
  /// stage wait. Only for a bounded split (rowsPerBlock <=
  /// kMaxStagedRowInputRows); kernels over clusters walk one wave, an
  /// unbounded split, and keep the register prefetch. That prefetch alone
  /// did not hide the load everywhere: the value is the same in every
  /// thread, and ptxas moves it into a uniform register right after the
  /// load (R2UR), which waits for it there (ncu, LN bwd 4097x7168: 14% of
  /// the stall samples). Emitted after the first stages are issued, so the
  /// copy overlaps them; one barrier before the first row.
  void stageRowInputs(OpBuilder &b, gpu::GPUFuncOp func, Location loc,
                      Value tid, Value rowEnd) {
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    int64_t threads = layout.threads;
    for (unsigned i = 0; i < inputs.size(); ++i) {
      if (op.getInputRole(i) != Role::row)
        continue;
      Type element = cast<MemRefType>(inputs[i].getType()).getElementType();
      Value buffer = addWorkgroupBuffer(
          func,
          MemRefType::get({rowsPerBlock}, element, AffineMap(), workgroup),
          loc);
      for (int64_t first = 0; first < rowsPerBlock; first += threads) {
        Value local =
            arith::AddIOp::create(b, loc, tid, indexConst(b, loc, first));
        Value row = arith::AddIOp::create(b, loc, rowBegin, local);
        // rowEnd - rowBegin <= rowsPerBlock (FusedOp::buildRowsPerPartial),
        // so the row bound keeps `local` inside the buffer too.
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             row, rowEnd);
        emitWhere(b, loc, inside, [&](OpBuilder &tb, Location l) {
          Value v = memref::LoadOp::create(tb, l, inputs[i], ValueRange{row});
          memref::StoreOp::create(tb, l, v, buffer, ValueRange{local});
        });
      }
      rowInputBuffers[i] = buffer;
    }
    if (!rowInputBuffers.empty())
      gpu::BarrierOp::create(b, loc);
  }

  /// Loads this thread's chunks of `memref` at `row` (a full value) or of a
  /// column value (row == null) and returns one scalar per element.
  SmallVector<Value> loadRow(OpBuilder &b, Location loc, Value memref,
                             Value row) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    auto vecType = VectorType::get({layout.vectorWidth}, element);
    SmallVector<Value> scalars;
    for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
      Value address =
          globalElementAddress(b, loc, globalBases.lookup(memref), row,
                               columns[c], n, elementBytes(memref));
      // A row's loads are predicated even where always inside: the
      // pipeline's prologue predicates them on the row existing.
      Value inside = inBounds[c];
      if (!inside && row)
        inside = alwaysTrue;
      Value vec = emitGlobalLoad(b, loc, address, vecType, inside);
      // Loads of a row's data are what --norm-pipeline issues early.
      if (row)
        markPrefetched(vec);
      llvm::append_range(scalars, vectorLanes(b, loc, vec));
    }
    return scalars;
  }

  static int64_t elementBytes(Value memref) {
    return cast<MemRefType>(memref.getType()).getElementTypeBitWidth() / 8;
  }

  /// Marks the loads behind `value` (emitGlobalLoad's, one per 16-byte
  /// piece, seen through their unpacking) as ones --norm-pipeline issues
  /// early: the row's data.
  static void markPrefetched(Value value) {
    SmallVector<Operation *> worklist = {value.getDefiningOp()};
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val();
      if (!def)
        continue;
      if (def->hasAttr(kPredicateOperandAttr)) {
        def->setAttr(kPrefetchAttr, UnitAttr::get(def->getContext()));
        continue;
      }
      // The unpacking is vector ops over the loads' results.
      for (Value operand : def->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && (isa<NVVM::InlinePtxOp>(producer) ||
                         isa<vector::VectorDialect>(producer->getDialect())))
          worklist.push_back(producer);
    }
  }

  /// Reads this thread's chunks of a staged row from shared memory (stage
  /// `stage` of `buffer`, a memref of VW-vectors; without `stage`, of a
  /// column input's copy).
  SmallVector<Value> loadStaged(OpBuilder &b, Location loc, Value buffer,
                                Value stage) {
    auto vecType =
        cast<VectorType>(cast<MemRefType>(buffer.getType()).getElementType());
    SmallVector<Value> scalars;
    for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
      Value vector = staging->vectorIndex(b, loc, columns[c]);
      auto load = [&](OpBuilder &lb, Location l) -> Value {
        if (!stage)
          return memref::LoadOp::create(lb, l, buffer, ValueRange{vector});
        return memref::LoadOp::create(lb, l, buffer, ValueRange{stage, vector});
      };
      Value vec = loadOrZero(b, loc, inBounds[c], vecType, load);
      llvm::append_range(scalars, vectorLanes(b, loc, vec));
    }
    return scalars;
  }

  /// Writes this thread's elements `scalars` of a column input into its
  /// shared-memory copy `buffer` (RowStaging::columnBuffer).
  void storeColumnCopy(OpBuilder &b, Location loc, Value buffer,
                       ArrayRef<Value> scalars) {
    auto vecType =
        cast<VectorType>(cast<MemRefType>(buffer.getType()).getElementType());
    for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
      Value vec = vector::FromElementsOp::create(
          b, loc, vecType,
          scalars.slice(c * layout.vectorWidth, layout.vectorWidth));
      Value index = staging->vectorIndex(b, loc, columns[c]);
      emitWhere(b, loc, inBounds[c], [&](OpBuilder &sb, Location l) {
        memref::StoreOp::create(sb, l, vec, buffer, index);
      });
    }
  }

  /// This thread's elements of input `index`, a column input: kept in
  /// registers, or read from its shared-memory copy.
  SmallVector<Value> columnValues(OpBuilder &b, Location loc, unsigned index) {
    if (!elementValues[index].empty())
      return elementValues[index];
    unsigned columnIndex = 0;
    for (unsigned i = 0; i < index; ++i)
      if (op.getInputRole(i) == Role::col)
        ++columnIndex;
    return loadStaged(b, loc, staging->columnBuffer(columnIndex), Value());
  }

  /// A register-prefetching kernel's thread 0 asks L2 for this block's part
  /// (its column slice) of the full inputs' row layout.l2PrefetchRows steps
  /// ahead in the block's walk: the register prefetch holds only the next
  /// row (chooseL2PrefetchRows).
  void prefetchWalkAhead(OpBuilder &b, Location loc, Value row, Value tid) {
    Value step = walkStep ? walkStep : indexConst(b, loc, 1);
    Value ahead = arith::AddIOp::create(
        b, loc, row,
        arith::MulIOp::create(b, loc, step,
                              indexConst(b, loc, layout.l2PrefetchRows)));
    emitRowPrefetchL2(b, loc, fullInputs, ahead, rows, n, sliceBase,
                      std::min(n, layout.sliceWidth()), tid);
  }

  /// Stores one value per owned element into row `row` of `memref`.
  void storeRow(OpBuilder &b, Location loc, Value memref, Value row,
                ArrayRef<Value> lanes) {
    // A rank-1 memref is a column output itself (RowSplit::allRows).
    bool isRow = cast<MemRefType>(memref.getType()).getRank() == 1;
    for (int64_t c = 0; c < layout.chunksPerThread; ++c)
      storeAlignedVector(
          b, loc, memref,
          isRow ? ValueRange{columns[c]} : ValueRange{row, columns[c]},
          lanes.slice(c * layout.vectorWidth, layout.vectorWidth),
          isRow ? inBounds[c] : andRowValid(b, loc, inBounds[c]));
  }

  /// `inside` (null: always) and, on a step of a row group past its
  /// block's rows, false.
  Value andRowValid(OpBuilder &b, Location loc, Value inside) {
    if (!rowValid)
      return inside;
    return inside ? arith::AndIOp::create(b, loc, inside, rowValid).getResult()
                  : rowValid;
  }

  /// Writes this thread's chunks `lanes` of an output row into slot `slot`
  /// of `buffer` (RowStaging::outputBuffer).
  void storeSlot(OpBuilder &b, Location loc, Value buffer, Value slot,
                 ArrayRef<Value> lanes) {
    auto vecType =
        cast<VectorType>(cast<MemRefType>(buffer.getType()).getElementType());
    for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
      SmallVector<Value> elements;
      for (Value lane : lanes.slice(c * layout.vectorWidth, layout.vectorWidth))
        elements.push_back(roundTo(b, loc, lane, vecType.getElementType()));
      Value vec = vector::FromElementsOp::create(b, loc, vecType, elements);
      Value index = staging->vectorIndex(b, loc, columns[c]);
      emitWhere(b, loc, inBounds[c], [&](OpBuilder &sb, Location l) {
        memref::StoreOp::create(sb, l, vec, buffer, ValueRange{slot, index});
      });
    }
  }

  /// Emits `bodyOp` once per mapping (one mapping per owned element).
  void emitElementwise(OpBuilder &b, Location loc, Operation &bodyOp,
                       std::vector<IRMapping> &mappings) {
    if (auto rsqrt = dyn_cast<math::RsqrtOp>(bodyOp)) {
      // PTX rsqrt.approx.f32 (relative error below 2^-22, what CUDA's
      // rsqrtf and PyTorch's kernels use), not sqrt.rn + rcp.rn: the IEEE
      // pair costs ~25 instructions and two slow-path branches per row and
      // thread, a measurable share of short rows (N = 1024: ~220 per row).
      // Its ftz form where that is exact (rsqrtPtx). Inline PTX because the
      // NVVM lowering turns math.rsqrt into a libdevice call, which would
      // make the PTX depend on libdevice being found at compile time (other
      // kernels get the same instruction through its intrinsic:
      // lowerRsqrtApprox).
      for (IRMapping &m : mappings) {
        Value x = m.lookup(rsqrt.getOperand());
        m.map(rsqrt.getResult(),
              NVVM::InlinePtxOp::create(b, loc, TypeRange{x.getType()},
                                        ValueRange{x}, ValueRange{},
                                        rsqrtPtx(rsqrt), Value())
                  .getResult(0));
      }
      return;
    }
    for (IRMapping &m : mappings)
      b.clone(bodyOp, m);
  }

  /// Replaces `mappings` after a row reduction of a staged row
  /// (layout.rereadStaged): the staged inputs and the column inputs' copies
  /// are read again from shared memory, and only values that are the same
  /// for every element (row-uniform, such as earlier totals) carry over.
  /// Per-element values from before the reduction are recomputed from the new
  /// reads where later ops need them (rematerialize), so no element of the row
  /// stays live in registers across the reduction's barrier (and a cluster's
  /// wait for its peers): a few shared-memory loads and elementwise ops per
  /// element buy the registers that would otherwise hold the whole row.
  void rereadStaged(OpBuilder &b, Location loc, Value stage,
                    std::vector<IRMapping> &mappings) {
    std::vector<IRMapping> fresh(mappings.size());
    unsigned fullIndex = 0;
    for (unsigned i = 0; i < inputs.size(); ++i) {
      BlockArgument arg = body.getArgument(i);
      if (op.getInputRole(i) == Role::col) {
        SmallVector<Value> scalars = columnValues(b, loc, i);
        for (auto [now, scalar] : llvm::zip(fresh, scalars))
          now.map(arg, scalar);
        continue;
      }
      if (op.getInputRole(i) != Role::full) {
        for (auto [old, now] : llvm::zip(mappings, fresh))
          now.map(arg, old.lookup(arg));
        continue;
      }
      SmallVector<Value> scalars =
          loadStaged(b, loc, staging->buffer(fullIndex++), stage);
      for (auto [now, scalar] : llvm::zip(fresh, scalars))
        now.map(arg, scalar);
    }
    for (Operation &bodyOp : body.without_terminator())
      for (Value result : bodyOp.getResults()) {
        Value first = mappings[0].lookupOrNull(result);
        if (!first || !llvm::all_of(mappings, [&](IRMapping &m) {
              return m.lookupOrNull(result) == first;
            }))
          continue;
        for (IRMapping &now : fresh)
          now.map(result, first);
      }
    mappings = std::move(fresh);
  }

  /// Emits, in every mapping, the body ops computing whichever of `values`
  /// the mappings lack (per-element values dropped by rereadStaged), after
  /// what they need in turn.
  void rematerialize(OpBuilder &b, Location loc, ValueRange values,
                     std::vector<IRMapping> &mappings) {
    for (Value v : values) {
      Operation *def = v.getDefiningOp();
      // Values from above the body are used as they are.
      if (mappings[0].contains(v) || !def || def->getBlock() != &body)
        continue;
      rematerialize(b, loc, def->getOperands(), mappings);
      emitElementwise(b, loc, *def, mappings);
    }
  }

  /// The body for one row: loads, evaluation per owned element with block
  /// reductions at norm.row_reduce, stores and column accumulation.
  ///
  /// `local` - `first` is the row's index in this block's walk (the row and
  /// the block's first row, or a persistent block's step and 0).
  LogicalResult emitRow(OpBuilder &b, Location loc, Value row, Value local,
                        Value first, Value tid, ValueRange accs,
                        SmallVector<Value> &nextAccs) {
    int64_t elements = layout.elementsPerThread();
    std::vector<IRMapping> mappings(elements);
    // Staged rows: issue the row stages - 1 ahead into the stage the
    // previous row was read from, then wait for this row's stage.
    // A row that is read again after each reduction (rereadStaged) is
    // issued after the row's first reduction barrier instead: the reads of
    // row i - 1 end before it.
    if (!staging && layout.l2PrefetchRows > 0)
      prefetchWalkAhead(b, loc, row, tid);
    Value stage, outputSlot;
    // What runs after the row's first reduction barrier, in order.
    SmallVector<std::function<void()>, 2> afterFirstBarrier;
    if (staging) {
      // The row's index in this block's rows (its stage is this modulo the
      // stages).
      Value inBlock = arith::SubIOp::create(b, loc, row, rowBegin);
      Value ahead = indexConst(b, loc, layout.sharedStages - 1);
      auto issueNext = [&, inBlock, ahead] {
        staging->issue(b, loc, tid, arith::AddIOp::create(b, loc, row, ahead),
                       arith::AddIOp::create(b, loc, inBlock, ahead),
                       stagingRowEnd);
      };
      if (layout.rereadStaged)
        afterFirstBarrier.push_back(issueNext);
      else
        issueNext();
      if (staging->storesOutputs()) {
        // The previous row's outputs are stored after this row's first
        // reduction barrier; the slot this row writes must have been read.
        // (Staged blocks walk contiguous rows: the previous one is row - 1.)
        staging->waitOutputSlotsRead(b, loc, tid);
        outputSlot = staging->outputSlot(b, loc, inBlock);
        Value one = indexConst(b, loc, 1);
        Value hasPrevious = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ugt, inBlock, indexConst(b, loc, 0));
        afterFirstBarrier.push_back([&, inBlock, one, hasPrevious] {
          staging->storeOutputRow(
              b, loc, tid, arith::SubIOp::create(b, loc, row, one),
              arith::SubIOp::create(b, loc, inBlock, one), hasPrevious);
        });
      }
      stage = staging->wait(b, loc, inBlock);
    }
    mapRowInputs(b, loc, row, stage, mappings);
    evaluateBody(b, loc, stage, local, first, afterFirstBarrier, mappings);
    storeRowOutputs(b, loc, row, tid, outputSlot, mappings, accs, nextAccs);
    return success();
  }

  /// Maps the body's arguments to this thread's values of the row: a row
  /// input's scalar, a column input's elements, a full input's elements
  /// (from its stage, or loaded).
  void mapRowInputs(OpBuilder &b, Location loc, Value row, Value stage,
                    std::vector<IRMapping> &mappings) {
    int64_t elements = layout.elementsPerThread();
    unsigned fullIndex = 0;
    for (unsigned i = 0; i < inputs.size(); ++i) {
      Role role = op.getInputRole(i);
      BlockArgument arg = body.getArgument(i);
      if (role == Role::row) {
        Value scalar;
        if (Value buffer = rowInputBuffers.lookup(i)) {
          Value local = arith::SubIOp::create(b, loc, row, rowBegin);
          scalar = memref::LoadOp::create(b, loc, buffer, ValueRange{local});
        } else {
          // One scalar load: ptxas predicates the branch the pipeline's
          // prologue puts around it by itself (SASS of rms_bwd_bf16_1000);
          // as a predicated load (emitGlobalLoad) it cost the LayerNorm
          // backward at N = 131072, at 128 registers, 4 bytes of spills.
          scalar = memref::LoadOp::create(b, loc, inputs[i], row);
          scalar.getDefiningOp()->setAttr(kPrefetchAttr, b.getUnitAttr());
        }
        for (IRMapping &m : mappings)
          m.map(arg, scalar);
        continue;
      }
      if (role == Role::group) {
        // One value a chunk: its group's, at (row, column / group size);
        // a chunk outside the row reads the row's first group instead.
        for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
          Value index = groupIndex(b, loc, c);
          if (inBounds[c])
            index = arith::SelectOp::create(b, loc, inBounds[c], index,
                                            indexConst(b, loc, 0));
          Value scalar =
              memref::LoadOp::create(b, loc, inputs[i], ValueRange{row, index});
          for (int64_t e = 0; e < layout.vectorWidth; ++e)
            mappings[c * layout.vectorWidth + e].map(arg, scalar);
        }
        continue;
      }
      SmallVector<Value> scalars =
          role == Role::col ? columnValues(b, loc, i)
          : staging ? loadStaged(b, loc, staging->buffer(fullIndex++), stage)
                    : loadRow(b, loc, inputs[i], row);
      for (int64_t e = 0; e < elements; ++e)
        mappings[e].map(arg, scalars[e]);
    }
  }

  /// Evaluates the body for every owned element, level by level, with the
  /// row reductions of each level between them; emits `afterFirstBarrier`
  /// after the first reduction: the next staged row of a kernel that reads
  /// its row again, the bulk store of the previous row's outputs.
  void evaluateBody(OpBuilder &b, Location loc, Value stage, Value local,
                    Value first,
                    ArrayRef<std::function<void()>> afterFirstBarrier,
                    std::vector<IRMapping> &mappings) {
    // Reductions that do not depend on each other (LayerNorm backward's two
    // sums) share one exchange: ops are emitted by level (the number of
    // reductions on their longest dependency chain), and the reductions of
    // a level are reduced together after the elementwise ops of that level.
    DenseMap<Operation *, int64_t> levels;
    int64_t maxLevel = 0;
    for (Operation &bodyOp : body.without_terminator()) {
      int64_t level = 0;
      for (Value v : bodyOp.getOperands())
        if (Operation *def = v.getDefiningOp(); def && levels.count(def))
          level = std::max(level,
                           levels[def] +
                               (isa<RowReduceOp, GroupReduceOp>(def) ? 1 : 0));
      levels[&bodyOp] = level;
      maxLevel = std::max(maxLevel, level);
    }
    int64_t elements = layout.elementsPerThread();
    int64_t reductionIndex = 0;
    for (int64_t level = 0; level <= maxLevel; ++level) {
      SmallVector<RowReduceOp> batch;
      SmallVector<GroupReduceOp> groupBatch;
      for (Operation &bodyOp : body.without_terminator()) {
        if (levels[&bodyOp] != level)
          continue;
        if (auto reduce = dyn_cast<RowReduceOp>(bodyOp)) {
          batch.push_back(reduce);
          continue;
        }
        if (auto reduce = dyn_cast<GroupReduceOp>(bodyOp)) {
          groupBatch.push_back(reduce);
          continue;
        }
        rematerialize(b, loc, bodyOp.getOperands(), mappings);
        // An op whose operands are the same for every owned element (it is
        // row-uniform, like rstd from a row sum) is emitted once.
        bool uniform = llvm::all_of(bodyOp.getOperands(), [&](Value v) {
          Value first = mappings[0].lookupOrDefault(v);
          return llvm::all_of(mappings, [&](IRMapping &m) {
            return m.lookupOrDefault(v) == first;
          });
        });
        if (uniform) {
          std::vector<IRMapping> one(1, mappings[0]);
          emitElementwise(b, loc, bodyOp, one);
          for (IRMapping &m : llvm::drop_begin(mappings))
            for (Value result : bodyOp.getResults())
              m.map(result, one[0].lookup(result));
          mappings[0] = std::move(one[0]);
          continue;
        }
        emitElementwise(b, loc, bodyOp, mappings);
      }
      for (GroupReduceOp reduce : groupBatch)
        reduceGroups(b, loc, reduce, local, first, mappings);
      if (batch.empty())
        continue;
      SmallVector<Combiner> combiners;
      SmallVector<Value> partials;
      SmallVector<int64_t> indices;
      for (RowReduceOp reduce : batch) {
        rematerialize(b, loc, reduce.getValue(), mappings);
        Combiner combiner = reduce.getCombiner();
        Value identity = combinerIdentity(b, loc, combiner);
        // A chain from the identity holds fewer values live at once; built
        // for latency, the partial is a tree of the elements instead.
        bool tree = layout.latencyBoundReductions;
        Value partial = identity;
        SmallVector<Value> values;
        for (int64_t e = 0; e < elements; ++e) {
          Value v = mappings[e].lookup(reduce.getValue());
          if (Value inside = inBounds[e / layout.vectorWidth])
            v = arith::SelectOp::create(b, loc, inside, v, identity);
          if (tree)
            values.push_back(v);
          else
            partial = combine(b, loc, combiner, partial, v);
        }
        if (tree)
          partial = treeCombine(b, loc, combiner, std::move(values));
        combiners.push_back(combiner);
        partials.push_back(partial);
        indices.push_back(reductionIndex++);
      }
      SmallVector<Value> totals = reductions->reduce(
          b, loc, combiners, partials, indices, local, first);
      for (const std::function<void()> &step : afterFirstBarrier)
        step();
      afterFirstBarrier = {};
      if (staging && layout.rereadStaged)
        rereadStaged(b, loc, stage, mappings);
      for (auto [reduce, total] : llvm::zip(batch, totals))
        for (IRMapping &m : mappings)
          m.map(reduce.getResult(), total);
    }
  }

  /// The group of chunk `c` of this thread: its first column over the
  /// group size.
  Value groupIndex(OpBuilder &b, Location loc, int64_t c) {
    return arith::DivUIOp::create(b, loc, columns[c],
                                  indexConst(b, loc, *op.getGroupSize()));
  }

  /// norm.group_reduce `reduce`: each chunk's vector combined (elements
  /// outside the row as the identity), then its group's lanes
  /// (GroupReductions); every element of a chunk gets its group's total.
  void reduceGroups(OpBuilder &b, Location loc, GroupReduceOp reduce,
                    Value local, Value first,
                    std::vector<IRMapping> &mappings) {
    rematerialize(b, loc, reduce.getValue(), mappings);
    Combiner combiner = reduce.getCombiner();
    Value identity = combinerIdentity(b, loc, combiner);
    SmallVector<Value> partials;
    for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
      SmallVector<Value> values;
      for (int64_t e = 0; e < layout.vectorWidth; ++e) {
        Value v =
            mappings[c * layout.vectorWidth + e].lookup(reduce.getValue());
        if (Value inside = inBounds[c])
          v = arith::SelectOp::create(b, loc, inside, v, identity);
        values.push_back(v);
      }
      partials.push_back(treeCombine(b, loc, combiner, std::move(values)));
    }
    int64_t index = 0;
    for (auto other : body.getOps<GroupReduceOp>()) {
      if (other == reduce)
        break;
      ++index;
    }
    SmallVector<Value> totals = groupReductionCode->reduce(
        b, loc, combiner, partials, index, local, first);
    for (int64_t c = 0; c < layout.chunksPerThread; ++c)
      for (int64_t e = 0; e < layout.vectorWidth; ++e)
        mappings[c * layout.vectorWidth + e].map(reduce.getResult(), totals[c]);
  }

  /// Stores the row's yielded values by role (full: the thread's chunks, or
  /// with bulk stores its chunks of output slot `outputSlot`; row: one
  /// thread; col: added to the accumulators, `nextAccs`; group: each
  /// chunk's group by its first lane).
  void storeRowOutputs(OpBuilder &b, Location loc, Value row, Value tid,
                       Value outputSlot, std::vector<IRMapping> &mappings,
                       ValueRange accs, SmallVector<Value> &nextAccs) {
    int64_t elements = layout.elementsPerThread();
    auto yield = cast<YieldOp>(body.getTerminator());
    rematerialize(b, loc, yield.getValues(), mappings);
    unsigned accIndex = 0, fullIndex = 0;
    for (auto [k, value] : llvm::enumerate(yield.getValues())) {
      SmallVector<Value> lanes;
      for (IRMapping &m : mappings)
        lanes.push_back(m.lookup(value));
      switch (op.getOutputRole(k)) {
      case Role::full:
        if (outputSlot)
          storeSlot(b, loc, staging->outputBuffer(fullIndex++), outputSlot,
                    lanes);
        else
          storeRow(b, loc, outputs[k], row, lanes);
        break;
      case Role::row: {
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            tid, indexConst(b, loc, 0));
        if (sliceY) // Only the first column slice writes row outputs.
          first = arith::AndIOp::create(
              b, loc, first,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, sliceY,
                                    indexConst(b, loc, 0)));
        first = andRowValid(b, loc, first);
        scf::IfOp::create(b, loc, first, [&](OpBuilder &tb, Location l) {
          memref::StoreOp::create(tb, l, lanes[0], outputs[k], row);
          scf::YieldOp::create(tb, l);
        });
        break;
      }
      case Role::group: {
        Value leader = groupReductionCode->isGroupLeader(b, loc);
        for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
          Value store = leader;
          if (inBounds[c])
            store = arith::AndIOp::create(b, loc, store, inBounds[c]);
          store = andRowValid(b, loc, store);
          Value index = groupIndex(b, loc, c);
          Value value = lanes[c * layout.vectorWidth];
          scf::IfOp::create(b, loc, store, [&](OpBuilder &tb, Location l) {
            memref::StoreOp::create(tb, l, value, outputs[k],
                                    ValueRange{row, index});
            scf::YieldOp::create(tb, l);
          });
        }
        break;
      }
      case Role::col:
        for (int64_t e = 0; e < elements; ++e) {
          Value sum =
              arith::AddFOp::create(b, loc, accs[accIndex + e], lanes[e]);
          if (rowValid)
            sum = arith::SelectOp::create(b, loc, rowValid, sum,
                                          accs[accIndex + e]);
          nextAccs.push_back(sum);
        }
        accIndex += elements;
        break;
      }
    }
    if (outputSlot)
      staging->fenceOutputWrites(b, loc);
  }

  FusedOp op;
  Block &body;
  RowLayout layout;
  int64_t n;
  /// The most rows a block walks, and how the rows follow M.
  int64_t rowsPerBlock;
  RowSplit split;
  /// Rows strided by the grid (KernelPlan::persistent).
  bool persistent;
  SmallVector<Value> inputs, outputs, columns, inBounds;
  /// Each full and column input's global address (emitGlobalBase), and the
  /// predicate of loads that are always inside the row.
  DenseMap<Value, Value> globalBases;
  Value alwaysTrue;
  /// The inputs with a value per element (Role::full), in input order.
  SmallVector<Value> fullInputs;
  Value sliceY;
  /// A block group's workspace argument, its code and this block's rank in
  /// its group (RowLayout::globalExchange; null otherwise).
  Value workspace;
  std::optional<BlockGroups> blockGroups;
  Value groupRank;
  /// The row reductions' code and shared memory.
  std::optional<RowReductions> reductions;
  /// The group reductions' (a kernel with groups).
  std::optional<GroupReductions> groupReductionCode;
  /// Rows staged in shared memory (layout.sharedStages > 0), and the end of
  /// this block's rows.
  std::optional<RowStaging> staging;
  Value stagingRowEnd;
  /// The distance between the rows of a block's walk (null: 1; a
  /// persistent block's: the grid).
  Value walkStep;
  /// First column of this block's slice (null: the whole row).
  Value sliceBase;
  /// Shared-memory copies of the row inputs of this block's rows, by input
  /// index (stageRowInputs).
  DenseMap<unsigned, Value> rowInputBuffers;
  /// This thread's index in its row and its lane; the (virtual) block; the
  /// row group (null: one a block).
  Value tid, lane, bid, group;
  /// Within a row group's step: whether its row is one of its block's
  /// (null: every row is).
  Value rowValid;
  /// Rows of the kernel; this (virtual) block's rows are [rowBegin, rowEnd).
  Value rows, rowBegin, rowEnd;
  int64_t reductionsPerRow = 0;
  std::vector<SmallVector<Value>> elementValues;
};

} // namespace

LogicalResult mlir::norm::buildRowKernel(FusedOp op, const RowLayout &layout,
                                         int64_t n, const RowSplit &split,
                                         bool persistent, gpu::GPUFuncOp func) {
  return FusedKernelBuilder(op, layout, n, split, persistent).build(func);
}
