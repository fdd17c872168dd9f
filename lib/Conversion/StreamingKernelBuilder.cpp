//===- StreamingKernelBuilder.cpp - statistics kernels over long rows -----===//

#include "GPUKernelBuilders.h"
#include "PtxBuilders.h"
#include "RowMoments.h"
#include "RowReductions.h"

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::norm;

namespace {

/// Code generation of a streaming kernel: a row per block (or a few rows it
/// holds in registers, see below), each reduction
/// streams the row in vector chunks (a second reduction that depends on the
/// first reads the row again, mostly from L2), then row outputs are written
/// by thread 0 and full outputs by one more pass over the row. Used for
/// statistics-only kernels over rows too long to keep on chip, and for
/// forwards when asked (--stream-rows): the row is re-read from L2 instead
/// of held in registers or shared memory, so blocks need few registers.
/// Loads of a pass after which the row is read again ask L2 to keep it
/// (evict_last), the last pass's loads let it go first (evict_first), as
/// Inductor's looped reductions do: without them, the rows streaming through
/// L2 from the other blocks evict a long row between its passes.
/// A row the layout holds (RowLayout::holdsRow: one vector a thread, the
/// short forwards of norm-short-rows) is not re-read: it is loaded once,
/// before the first pass, and the passes reuse those registers. The re-read
/// would be a round trip to L2 after the reduction, on the critical path of a
/// block that does nothing else. A block that holds its rows may hold
/// several (`split`, RowSplit; norm-short-rows marks such versions
/// norm.rows_per_block, chooseHeldRows): consecutive rows, all loaded before
/// the first pass, every pass's reductions of all of them in one exchange,
/// so each thread has a 16-byte load of each row in flight at once and the
/// block pays one barrier per reduction for all of them. With warp rows
/// (RowLayout::rowGroups > 1, norm.warp_rows) each warp holds rows of its
/// own, several vectors a thread, and reduces them by shuffles alone: no
/// shared memory and no barrier.
/// A streamed row's full outputs computed from its elements alone (the
/// residual add's h = x + residual, which the norm then reduces) are stored
/// by the first pass, and the later passes read them back instead of the
/// inputs they are computed from (earlyOutputs): a row's later passes find
/// half the bytes in L2, as Inductor's looped reductions read back h.
/// Asked to (RowSplit::wholeBlocksBranch), it builds the rows' code twice,
/// under a branch on whether the block's rows all exist (in every block but
/// the grid's last): once without bounds, once with them.
class StreamingKernelBuilder {
public:
  StreamingKernelBuilder(FusedOp op, const KernelShape &shape, RowLayout layout,
                         int64_t n, RowSplit split)
      : op(op), body(op.getBody().front()), shape(shape), layout(layout), n(n),
        elementBytes(shape.elementBytes),
        fullOperands(std::max<int64_t>(1, shape.fullOperands)), split(split),
        columnsPreloaded(
            rowInRegisters() &&
            (norm::preloadsColumns(shape, layout, split.rowsPerBlock) ||
             op->hasAttr(FusedOp::getPreloadColumnsAttrName()))) {
    if (rowABlockReducesForLatency(layout, split.rowsPerBlock,
                                   columnsPreloaded))
      this->layout.latencyBoundReductions = true;
    bool oneRow =
        cast<MemRefType>(op.getShapeSource().getType()).getDimSize(0) == 1;
    prefetchColumns = columnsPreloaded && prefetchesColumnsToL1(shape, oneRow);
  }

  LogicalResult build(gpu::GPUFuncOp func) {
    if ((split.rowsPerBlock > 1 || layout.rowGroups > 1) && !rowInRegisters())
      return op.emitOpError("a streaming kernel that re-reads its row from "
                            "L2 takes one row per block, got ")
             << split.rowsPerBlock * layout.rowGroups;
    // Every held row stays in registers until the last pass: past a
    // thread's registers the rows would spill, and the unrolled rows'
    // code grows with them (1024 rows took 14 s and 1.8 GB to compile).
    if (int64_t most = maxHeldRows(layout, fullOperands);
        split.rowsPerBlock > most)
      return op.emitOpError("a streaming kernel holding its rows in "
                            "registers holds at most ")
             << most << " rows a " << (layout.rowGroups > 1 ? "warp" : "block")
             << " here (" << layout.elementsPerThread() * fullOperands
             << " elements a thread each), got " << split.rowsPerBlock;
    OpBuilder b = OpBuilder::atBlockEnd(&func.getBody().front());
    Location loc = op.getLoc();
    unsigned numInputs = op.getInputs().size();
    auto args = func.getArguments();
    SmallVector<Value> inputs(args.take_front(numInputs));
    SmallVector<Value> outputs(args.drop_front(numInputs));
    // The argument M is read from (before allocate adds arguments).
    Value rowsSource = shapeSourceArgument(op, args);
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value lane = arith::RemUIOp::create(b, loc, tid, indexConst(b, loc, 32));
    // With warp rows a warp is the row's "block": from here on `tid` is the
    // thread's index within its row.
    Value warp;
    if (layout.rowGroups > 1) {
      warp = arith::DivUIOp::create(b, loc, tid, indexConst(b, loc, 32));
      tid = lane;
    }
    int64_t rowsHeld = split.rowsPerBlock;
    int64_t reductionsPerRow = llvm::range_size(body.getOps<RowReduceOp>());
    // The row kernels' reductions: one barrier each where gpu.all_reduce
    // takes two, and a third before its buffer is used again. Measured on
    // the H200 (bf16, kernel time, inference forwards): RMSNorm
    // 1.03-1.18x at M = 16-5120 (N = 1000-4096), LayerNorm 1.11-1.22x at
    // 512-3072 x 1024; the long streamed rows (N = 7168-32768) level.
    // Reduction `index` of held row k takes slot index * rowsHeld + k.
    RowReductions reductions(layout, reductionsPerRow * rowsHeld);
    reductions.allocate(func, loc);
    reductions.setThread(tid, lane, Value());

    // Cache policies of the hinted loads and the inputs' global addresses
    // (the loads are predicated ld.global, emitGlobalLoad), once.
    evictFirstPolicy = emitCachePolicy(b, loc, EvictionPriority::evictFirst);
    evictLastPolicy = emitCachePolicy(b, loc, EvictionPriority::evictLast);
    for (unsigned i = 0; i < numInputs; ++i)
      globalBases.push_back(op.getInputRole(i) != Role::row
                                ? emitGlobalBase(b, loc, inputs[i])
                                : Value());
    // Likewise the full outputs that storeVector stores with st.global, and
    // the early outputs, stored and read back at their global addresses.
    if (layout.storesEarlyOutputs)
      earlyOutputIndexes = earlyOutputIndices(op);
    for (auto [k, output] : llvm::enumerate(outputs))
      if (op.getOutputRole(k) == Role::full &&
          (storesInline(output) ||
           llvm::is_contained(earlyOutputIndexes, static_cast<unsigned>(k))))
        outputBases[output] = emitGlobalBase(b, loc, output);

    if (!split.wholeBlocksBranch) {
      if (failed(buildRows(b, loc, inputs, outputs, rowsSource, tid, block,
                           warp, reductions)))
        return failure();
      gpu::ReturnOp::create(b, loc);
      return success();
    }
    // Every block but the grid's last has all its rows: those blocks take
    // a copy of the rows' code without bounds (what a version with
    // norm.rows_multiple runs), the last the bounded copy. The branch is
    // uniform over the block, and only one of the copies runs, so the two
    // share the reductions' buffers.
    kernelRows = memref::DimOp::create(b, loc, rowsSource, 0);
    int64_t blockRows = split.rowsPerBlock * layout.rowGroups;
    Value end = arith::MulIOp::create(
        b, loc, arith::AddIOp::create(b, loc, block, indexConst(b, loc, 1)),
        indexConst(b, loc, blockRows));
    Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end,
                                        kernelRows);
    LogicalResult status = success();
    auto rowsIn = [&](bool wholeBlocks) {
      return [&, wholeBlocks](OpBuilder &rb, Location l) {
        split.wholeBlocks = wholeBlocks;
        if (failed(buildRows(rb, l, inputs, outputs, rowsSource, tid, block,
                             warp, reductions)))
          status = failure();
        scf::YieldOp::create(rb, l);
      };
    };
    scf::IfOp::create(b, loc, whole, rowsIn(true), rowsIn(false));
    if (failed(status))
      return failure();
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  /// This block's rows from setUpRows on: their loads, every pass, and
  /// their stores, at `b`'s insertion point; the state of an earlier
  /// call (the other side of the whole-blocks branch) is dropped first.
  LogicalResult buildRows(OpBuilder &b, Location loc, ArrayRef<Value> inputs,
                          ArrayRef<Value> outputs, Value rowsSource, Value tid,
                          Value block, Value warp, RowReductions &reductions) {
    heldRows.clear();
    chunkColumns.clear();
    columnChunkLanes.clear();
    earlyOutputs.clear();
    storedEarly = false;
    earlyStatus = success();
    unsigned numInputs = inputs.size();
    int64_t rowsHeld = split.rowsPerBlock;
    int64_t reductionsPerRow = llvm::range_size(body.getOps<RowReduceOp>());
    setUpRows(b, loc, rowsSource, block, warp);
    if (layout.l2PrefetchRows > 0)
      for (HeldRow &held : heldRows)
        prefetchRowAhead(b, loc, inputs, held.row, tid);

    for (HeldRow &held : heldRows)
      for (unsigned i = 0; i < numInputs; ++i)
        if (op.getInputRole(i) == Role::row)
          held.mapping.map(
              body.getArgument(i),
              memref::LoadOp::create(b, loc, inputs[i], held.clampedRow));
    if (rowInRegisters())
      preloadRows(b, loc, inputs, tid);

    // Passes: one per reduction, then one for the full outputs, if any.
    auto yield = cast<YieldOp>(body.getTerminator());
    bool hasFullOutputs = llvm::any_of(
        llvm::seq<unsigned>(0, yield.getValues().size()),
        [&](unsigned k) { return op.getOutputRole(k) == Role::full; });
    int64_t passes = reductionsPerRow + (hasFullOutputs ? 1 : 0);
    int64_t pass = 0;
    // The first pass's loads are the last of the inputs where the later
    // passes read the early outputs instead (inputsReadOnce).
    bool inputsReadOnce = false;
    auto priorityOfPass = [&] {
      ++pass;
      return pass == passes || (pass == 1 && inputsReadOnce)
                 ? EvictionPriority::evictFirst
                 : EvictionPriority::evictLast;
    };
    // A mean and variance pair (LayerNorm) in one pass and one exchange
    // (RowMoments.h) where the tuning says so (fusesRowMoments).
    std::optional<MeanVariancePair> moments;
    if (fusesRowMoments(layout, n, elementBytes, rowsHeld))
      moments = matchMeanVariance(body, n);
    inputsReadOnce = collectEarlyOutputs(outputs, moments);
    if (moments) {
      --passes;
      if (failed(reduceMoments(b, loc, reductions, *moments, inputs, tid, block,
                               priorityOfPass())))
        return op.emitOpError("mean reads a value the streaming lowering "
                              "does not provide");
    }
    for (auto [index, reduce] : llvm::enumerate(body.getOps<RowReduceOp>())) {
      if (moments && (reduce == moments->sum || reduce == moments->squares))
        continue;
      Combiner combiner = reduce.getCombiner();
      Value identity = combinerIdentity(b, loc, combiner);
      SmallVector<BlockArgument> used = passArguments({reduce.getValue()});
      LogicalResult status = success();
      // Built for latency (RowLayout::latencyBoundReductions), a chunk's
      // lanes combine as a tree, then into the row's sum, which for rows in
      // registers (no loop) starts as the first chunk's (null until then)
      // rather than as the identity.
      bool tree = layout.latencyBoundReductions;
      Value init = tree && rowInRegisters() ? Value() : identity;
      SmallVector<SmallVector<Value>> sums = streamRows(
          b, loc, inputs, tid, used, priorityOfPass(), {init},
          [&](OpBuilder &lb, Location l, const HeldRow &, Value, Value inside,
              std::vector<IRMapping> &lanes, SmallVector<Value> &acc) {
            SmallVector<Value> values;
            for (IRMapping &lane : lanes) {
              if (failed(cloneBodySlice(lb, body, {reduce.getValue()}, lane)))
                status = failure();
              Value x = lane.lookup(reduce.getValue());
              if (inside)
                x = arith::SelectOp::create(lb, l, inside, x, identity);
              if (tree)
                values.push_back(x);
              else
                acc[0] = combine(lb, l, combiner, acc[0], x);
            }
            if (!tree)
              return;
            Value chunk = treeCombine(lb, l, combiner, std::move(values));
            acc[0] = acc[0] ? combine(lb, l, combiner, acc[0], chunk) : chunk;
          });
      if (failed(status))
        return op.emitOpError("statistics kernel reads a value the streaming "
                              "lowering does not provide");
      // The held rows' totals in one exchange. Every slot of the
      // reductions' buffer is written once per block, so the block's index
      // stands for the row whose parity picks the buffer.
      SmallVector<Combiner> combiners(rowsHeld, combiner);
      SmallVector<Value> partials;
      SmallVector<int64_t> slots;
      for (int64_t k = 0; k < rowsHeld; ++k) {
        partials.push_back(sums[k].front());
        slots.push_back(int64_t(index) * rowsHeld + k);
      }
      SmallVector<Value> totals =
          reductions.reduce(b, loc, combiners, partials, slots, block, block);
      for (auto [held, total] : llvm::zip(heldRows, totals))
        held.mapping.map(reduce.getResult(), total);
    }
    if (failed(earlyStatus))
      return op.emitOpError("an output the first pass stores reads a value "
                            "the streaming lowering does not provide");
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                        indexConst(b, loc, 0));
    // Full outputs: one more pass over the row, computing and storing them a
    // vector chunk at a time.
    SmallVector<Value> fullValues;
    SmallVector<Value> fullOutputs;
    for (auto [k, value] : llvm::enumerate(yield.getValues()))
      if (op.getOutputRole(k) == Role::full) {
        if (isEarlyOutput(value, outputs[k]))
          continue;
        fullValues.push_back(value);
        fullOutputs.push_back(outputs[k]);
      } else if (op.getOutputRole(k) == Role::col) {
        return op.emitOpError("the streaming lowering has no column outputs");
      }
    if (!fullValues.empty()) {
      LogicalResult status = success();
      streamRows(b, loc, inputs, tid, passArguments(fullValues),
                 priorityOfPass(), {},
                 [&](OpBuilder &lb, Location l, const HeldRow &held, Value col,
                     Value inside, std::vector<IRMapping> &lanes,
                     SmallVector<Value> &) {
                   for (IRMapping &lane : lanes)
                     if (failed(cloneBodySlice(lb, body, fullValues, lane)))
                       status = failure();
                   Value where = both(lb, l, inside, held.exists);
                   for (auto [value, out] : llvm::zip(fullValues, fullOutputs))
                     storeVector(lb, l, out, held.row, col, lanes, value,
                                 where);
                 });
      if (failed(status))
        return op.emitOpError("full output reads a value the streaming "
                              "lowering does not provide");
    }
    for (auto [k, value] : llvm::enumerate(yield.getValues())) {
      if (op.getOutputRole(k) != Role::row)
        continue;
      Value out = outputs[k];
      for (HeldRow &held : heldRows) {
        if (failed(cloneBodySlice(b, body, {value}, held.mapping)))
          return op.emitOpError("row output reads a per-element value");
        Value result = held.mapping.lookupOrDefault(value);
        scf::IfOp::create(b, loc, both(b, loc, first, held.exists),
                          [&](OpBuilder &tb, Location l) {
                            memref::StoreOp::create(tb, l, result, out,
                                                    held.row);
                            scf::YieldOp::create(tb, l);
                          });
      }
    }
    return success();
  }

  /// A row of this block: its index, whether it exists (null: always), the
  /// index its row inputs are read at (itself, or where it does not exist
  /// the block's first row), the body's values of it computed so far, and
  /// (rowInRegisters) this thread's vectors of it, one mapping per vector
  /// lane for each chunk of chunkColumns.
  struct HeldRow {
    Value row, exists, clampedRow;
    IRMapping mapping;
    SmallVector<std::vector<IRMapping>> chunkLanes;
  };

  /// This block's rows: its index, or with several rows a block R =
  /// split.rowsPerBlock (static: streamed kernels get no spread over M)
  /// rows b * R + k, k < R, each existing where it is below M (the grid is
  /// ceil(M / R)), or always where M is a multiple of the block's rows
  /// (split.wholeBlocks). With warp rows (G = rowGroups warps, `warp` the
  /// thread's) the block's G x R rows interleave: warp w holds rows
  /// (b * R + k) * G + w, so that each of its loads and those of the other
  /// warps cover consecutive rows; the grid is ceil(M / (G x R)).
  void setUpRows(OpBuilder &b, Location loc, Value rowsSource, Value block,
                 Value warp) {
    int64_t groups = layout.rowGroups;
    if (split.rowsPerBlock == 1 && groups == 1) {
      HeldRow &held = heldRows.emplace_back();
      held.row = held.clampedRow = block;
      // The preloaded column inputs' predicate (preloadRows) compares the
      // row with M.
      if (columnsPreloaded)
        kernelRows = memref::DimOp::create(b, loc, rowsSource, 0);
      return;
    }
    assert(split.minBlocks == 0 && split.minPartials == 0 && !split.allRows &&
           "held rows take a static number of rows a block");
    // Before a whole-blocks branch (build), M is read once above it.
    if (!kernelRows)
      kernelRows = memref::DimOp::create(b, loc, rowsSource, 0);
    Value firstRow = arith::MulIOp::create(
        b, loc, block, indexConst(b, loc, split.rowsPerBlock * groups));
    for (int64_t k = 0; k < split.rowsPerBlock; ++k) {
      HeldRow &held = heldRows.emplace_back();
      if (k == 0 && groups == 1) {
        // The grid is ceil(M / R): a block's first row always exists.
        held.row = held.clampedRow = firstRow;
        continue;
      }
      held.row = arith::AddIOp::create(b, loc, firstRow,
                                       indexConst(b, loc, k * groups));
      if (groups > 1)
        held.row = arith::AddIOp::create(b, loc, held.row, warp);
      // M a multiple of the block's rows: the row exists.
      if (split.wholeBlocks) {
        held.clampedRow = held.row;
        continue;
      }
      held.exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          held.row, kernelRows);
      held.clampedRow =
          arith::SelectOp::create(b, loc, held.exists, held.row, firstRow);
    }
  }

  /// `inside` (null: always) and `exists` (null: always) together.
  static Value both(OpBuilder &b, Location loc, Value inside, Value exists) {
    if (!inside)
      return exists;
    if (!exists)
      return inside;
    return arith::AndIOp::create(b, loc, inside, exists);
  }

  /// Whether the passes share one load of the row (preloadRows), as the
  /// tuning chose (RowLayout::holdsRow) where one sweep of the block
  /// covers the row.
  bool rowInRegisters() const {
    return layout.holdsRow && layout.sliceWidth() >= n;
  }

  /// The first column of this thread's vector `chunk` in the sweep starting
  /// at column `base`, and its bounds check (null when always inside).
  std::pair<Value, Value> chunkColumn(OpBuilder &b, Location loc, Value base,
                                      int64_t chunk, Value tid) {
    Value index = arith::AddIOp::create(
        b, loc, indexConst(b, loc, chunk * layout.threadsPerRow()), tid);
    Value col = arith::AddIOp::create(
        b, loc, base,
        arith::MulIOp::create(b, loc, index,
                              indexConst(b, loc, layout.vectorWidth)));
    if (n % layout.sliceWidth() == 0)
      return {col, Value()};
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col,
                                         indexConst(b, loc, n));
    return {col, inside};
  }

  /// Maps the `used` arguments in `lanes` (one mapping per vector lane) to
  /// this thread's vector at `col` of them (full: row `row`; column: the
  /// same columns). Full inputs are loaded with L2 eviction priority
  /// `priority`; column inputs, read by every row, with evict_last.
  void loadLanes(OpBuilder &b, Location loc, ArrayRef<Value> inputs, Value row,
                 Value col, Value inside, ArrayRef<BlockArgument> used,
                 EvictionPriority priority, std::vector<IRMapping> &lanes) {
    for (BlockArgument arg : used) {
      unsigned i = arg.getArgNumber();
      bool full = op.getInputRole(i) == Role::full;
      SmallVector<Value> scalars = loadVector(
          b, loc, inputs[i], globalBases[i], full ? row : Value(), col, inside,
          full ? priority : EvictionPriority::evictLast);
      for (int64_t v = 0; v < layout.vectorWidth; ++v)
        lanes[v].map(arg, scalars[v]);
    }
  }

  /// Loads this thread's vectors of every full input the body reads of
  /// every held row, all before the first pass (rowInRegisters), and, where
  /// columnsPreloaded, of every column input it reads (the weights, once for
  /// all the held rows). The row's loads carry
  /// evict_last although nothing reads the row again: with evict_first
  /// these loads, which miss L2, made the short forwards 15-22% slower than
  /// re-reading the row (H200, bf16, kernel time, M = 128-2048; with
  /// evict_last 1.01-1.06x faster).
  void preloadRows(OpBuilder &b, Location loc, ArrayRef<Value> inputs,
                   Value tid) {
    SmallVector<BlockArgument> rows, columns;
    for (BlockArgument arg : body.getArguments()) {
      if (arg.use_empty())
        continue;
      Role role = op.getInputRole(arg.getArgNumber());
      if (role == Role::full)
        rows.push_back(arg);
      else if (role == Role::col)
        columns.push_back(arg);
    }
    // The chunks' columns are the same in every held row.
    Value base = indexConst(b, loc, 0);
    for (int64_t c = 0; c < layout.chunksPerThread; ++c)
      chunkColumns.push_back(chunkColumn(b, loc, base, c, tid));
    // ptxas sinks the column loads below (results used only after the
    // reductions) to the first reduction's barrier, behind the row's round
    // trip; a prefetch has no result to sink, so it leaves with the row's
    // loads and the sunk loads find their lines in L1
    // (prefetchesColumnsToL1). They and the loads are predicated alike
    // (blockHasRows, below).
    Value blockHasRows;
    auto hasRows = [&] {
      if (!blockHasRows)
        blockHasRows = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             heldRows.front().row, kernelRows);
      return blockHasRows;
    };
    if (prefetchColumns) {
      Value has = hasRows();
      for (auto [col, inside] : chunkColumns)
        for (BlockArgument arg : columns) {
          unsigned i = arg.getArgNumber();
          Value address =
              vectorAddress(b, loc, inputs[i], globalBases[i], Value(), col);
          emitInlinePtx(b, loc, {address, both(b, loc, inside, has)},
                        "@$1 prefetch.global.L1 [$0];");
        }
    }
    for (HeldRow &held : heldRows)
      for (auto [col, inside] : chunkColumns) {
        std::vector<IRMapping> &lanes = held.chunkLanes.emplace_back(
            layout.vectorWidth, IRMapping());
        loadLanes(b, loc, inputs, held.row, col,
                  both(b, loc, inside, held.exists), rows,
                  EvictionPriority::evictLast, lanes);
      }
    if (!columnsPreloaded)
      return;
    // The column loads are predicated on the block's first row being in the
    // kernel's rows, which it always is (with warp rows, on the warp's
    // first row, past M in a last block's idle warps, which need no
    // weights either): ptxas sinks a load it can prove unconditional (or
    // predicated on a bound it can prove, such as the column of a chunk always
    // inside the row) down to the first reduction's barrier (SASS of the
    // held-rows RMSNorm forward at N = 1024), where it costs the latency it was
    // moved up to hide.
    for (auto [col, inside] : chunkColumns) {
      Value where = both(b, loc, inside, hasRows());
      loadLanes(b, loc, inputs, Value(), col, where, columns,
                EvictionPriority::evictLast,
                columnChunkLanes.emplace_back(layout.vectorWidth, IRMapping()));
    }
    // ptxas moves no load across a memory fence: the column loads stay with
    // the rows' (fencesColumnLoads). The block has nothing else to wait for
    // here; the fence costs no more than the rows' round trip it overlaps.
    if (columnsPreloaded && fencesColumnLoads(shape, split.wholeBlocks))
      NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::CTA);
  }

  /// What a pass emits for each vector of a row: gets the row, the vector's
  /// first column, its bounds check in the row (null when always inside;
  /// the row's existence is HeldRow::exists), one mapping per vector lane,
  /// and the values the pass carries from vector to vector of that row.
  using EmitVector =
      function_ref<void(OpBuilder &, Location, const HeldRow &, Value, Value,
                        std::vector<IRMapping> &, SmallVector<Value> &)>;

  /// One pass over each of this block's rows, returning each row's carried
  /// values (initially `init`). A row in registers (rowInRegisters) is no
  /// loop: `emit` gets the preloaded vectors of each held row, the column
  /// inputs among the `used` arguments loaded once a chunk for all of them.
  /// Otherwise the block's one row is streamed: a loop over steps of
  /// RowLayout::sweepsPerStep sweeps of threads x chunks vectors, whose body
  /// loads this thread's vectors of the `used` arguments (loadLanes, L2
  /// priority `priority` for full inputs) for every sweep of the step, then
  /// emits them.
  SmallVector<SmallVector<Value>>
  streamRows(OpBuilder &b, Location loc, ArrayRef<Value> inputs, Value tid,
             ArrayRef<BlockArgument> used, EvictionPriority priority,
             ValueRange init, EmitVector emit) {
    SmallVector<SmallVector<Value>> acc(heldRows.size(),
                                        SmallVector<Value>(init));
    if (rowInRegisters()) {
      // Full inputs come from the registers, column inputs too where
      // preloadRows loaded them, else they are loaded here.
      SmallVector<BlockArgument> full, columns;
      for (BlockArgument arg : used)
        (op.getInputRole(arg.getArgNumber()) == Role::full ? full : columns)
            .push_back(arg);
      for (auto [c, column] : llvm::enumerate(chunkColumns)) {
        auto [col, inside] = column;
        std::vector<IRMapping> loadedColumns;
        if (!columnsPreloaded) {
          loadedColumns.resize(layout.vectorWidth);
          loadLanes(b, loc, inputs, Value(), col, inside, columns, priority,
                    loadedColumns);
        }
        const std::vector<IRMapping> &columnLanes =
            columnsPreloaded ? columnChunkLanes[c] : loadedColumns;
        for (auto [held, rowAcc] : llvm::zip(heldRows, acc)) {
          std::vector<IRMapping> lanes(layout.vectorWidth, held.mapping);
          for (auto [lane, loaded, columnLane] :
               llvm::zip(lanes, held.chunkLanes[c], columnLanes)) {
            for (BlockArgument arg : full)
              lane.map(arg, loaded.lookup(arg));
            for (BlockArgument arg : columns)
              lane.map(arg, columnLane.lookup(arg));
          }
          emit(b, loc, held, col, inside, lanes, rowAcc);
        }
      }
      return acc;
    }
    const HeldRow &held = heldRows.front();
    int64_t perIteration = layout.sliceWidth();
    int64_t iterations = (n + perIteration - 1) / perIteration;
    // A step covers layout.sweepsPerStep sweeps and issues all of their
    // loads before it uses any: ptxas does not move a load above an earlier
    // store that may alias it, so an output pass that loaded and stored a
    // sweep at a time would keep one sweep's loads in flight.
    int64_t sweeps = layout.sweepsPerStep;
    assert(sweeps >= 1 && iterations % sweeps == 0 &&
           "chooseStreamSweeps takes a divisor of the row's sweeps");
    struct LoadedVector {
      Value col, inside;
      std::vector<IRMapping> lanes;
    };
    auto loop = scf::ForOp::create(
        b, loc, indexConst(b, loc, 0), indexConst(b, loc, iterations / sweeps),
        indexConst(b, loc, 1), init,
        [&](OpBuilder &lb, Location l, Value step, ValueRange carried) {
          SmallVector<Value> rowAcc(carried);
          SmallVector<LoadedVector> loaded;
          for (int64_t s = 0; s < sweeps; ++s) {
            Value sweep = arith::AddIOp::create(
                lb, l,
                arith::MulIOp::create(lb, l, step, indexConst(lb, l, sweeps)),
                indexConst(lb, l, s));
            Value base = arith::MulIOp::create(lb, l, sweep,
                                               indexConst(lb, l, perIteration));
            for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
              auto [col, inside] = chunkColumn(lb, l, base, c, tid);
              std::vector<IRMapping> lanes(layout.vectorWidth, held.mapping);
              loadLanes(lb, l, inputs, held.row, col, inside, used, priority,
                        lanes);
              if (storedEarly)
                loadEarlyOutputs(lb, l, held.row, col, inside, priority, lanes);
              loaded.push_back({col, inside, std::move(lanes)});
            }
          }
          for (LoadedVector &vector : loaded) {
            emit(lb, l, held, vector.col, vector.inside, vector.lanes, rowAcc);
            if (!storedEarly && !earlyOutputs.empty() &&
                failed(storeEarlyOutputs(lb, l, held, vector.col, vector.inside,
                                         vector.lanes)))
              earlyStatus = failure();
          }
          scf::YieldOp::create(lb, l, rowAcc);
        });
    acc.front() = SmallVector<Value>(loop.getResults());
    if (!earlyOutputs.empty())
      storedEarly = true;
    return acc;
  }

  /// One pass over the block's one row for both reductions of `pair`
  /// (`reductions` exchanging the row's moments): each
  /// thread's moments of the summed value (mergeValues), the row's from one
  /// exchange (RowReductions::reduceMoments); then the sum's total is n
  /// times the mean and the squares' total M2, as the body would have
  /// reduced them.
  LogicalResult reduceMoments(OpBuilder &b, Location loc,
                              RowReductions &reductions, MeanVariancePair pair,
                              ArrayRef<Value> inputs, Value tid, Value block,
                              EvictionPriority priority) {
    RowReduceOp sum = pair.sum;
    HeldRow &held = heldRows.front();
    SmallVector<BlockArgument> used = passArguments({sum.getValue()});
    LogicalResult status = success();
    SmallVector<Value> inRegisters;
    Moments empty = emptyMoments(b, loc);
    SmallVector<SmallVector<Value>> acc = streamRows(
        b, loc, inputs, tid, used, priority,
        {empty.count, empty.mean, empty.m2},
        [&](OpBuilder &lb, Location l, const HeldRow &, Value, Value,
            std::vector<IRMapping> &lanes, SmallVector<Value> &carried) {
          SmallVector<Value> values;
          for (IRMapping &lane : lanes) {
            if (failed(cloneBodySlice(lb, body, {sum.getValue()}, lane)))
              status = failure();
            values.push_back(lane.lookup(sum.getValue()));
          }
          // A row in registers is no loop: its values are all at hand.
          if (rowInRegisters()) {
            llvm::append_range(inRegisters, values);
            return;
          }
          Moments merged =
              mergeValues(lb, l, {carried[0], carried[1], carried[2]}, values);
          carried = {merged.count, merged.mean, merged.m2};
        });
    if (failed(status))
      return failure();
    // The thread's moments: of the values in registers directly (two
    // passes over registers, no division), else as the loop merged them.
    Moments own = !inRegisters.empty()
                      ? momentsOf(b, loc, inRegisters)
                      : Moments{acc.front()[0], acc.front()[1], acc.front()[2]};
    auto [mean, m2] = reductions.reduceMoments(
        b, loc, own.mean, own.m2, n / layout.threadsPerRow(), block);
    Value total = arith::MulFOp::create(
        b, loc, mean,
        arith::ConstantOp::create(b, loc,
                                  b.getF32FloatAttr(static_cast<float>(n))));
    held.mapping.map(sum.getResult(), total);
    held.mapping.map(pair.squares.getResult(), m2);
    return success();
  }

  /// Whether storeVector stores `output`'s vectors as st.global
  /// (emitGlobalStore) rather than vector.store: where predicatesRowStores
  /// says so for the inputs' elements and `output`'s vectors are 16 bytes
  /// too (an output of another type keeps vector.store).
  bool storesInline(Value output) const {
    Type element = cast<MemRefType>(output.getType()).getElementType();
    return predicatesRowStores(n, layout, elementBytes) &&
           layout.vectorWidth * element.getIntOrFloatBitWidth() == 128;
  }

  /// Stores `value` of every lane as one vector at (`row`, `col`) where
  /// `inside` holds (null: always): where storesInline says so, as one
  /// st.global predicated where bounded (emitGlobalStore), else as
  /// vector.store in a branch. An unbounded store of such a kernel is an
  /// st.global too: beside the inline stores LLVM no longer proved the
  /// first row's vector.store global and emitted a generic st.
  void storeVector(OpBuilder &b, Location loc, Value memref, Value row,
                   Value col, std::vector<IRMapping> &lanes, Value value,
                   Value inside) {
    SmallVector<Value> values;
    for (IRMapping &lane : lanes)
      values.push_back(lane.lookup(value));
    Value base = outputBases.lookup(memref);
    if (!base) {
      storeAlignedVector(b, loc, memref, ValueRange{row, col}, values, inside);
      return;
    }
    emitGlobalStore(b, loc, vectorAddress(b, loc, memref, base, row, col),
                    roundedVector(b, loc, memref, values), inside);
  }

  /// Thread 0 asks L2 for the full inputs' row `row` + l2PrefetchRows (the
  /// row of a block that starts later), so that block's first pass reads
  /// it from L2 (chooseL2PrefetchRows), if M is at least
  /// l2PrefetchMinRows (chooseL2PrefetchMinRows).
  void prefetchRowAhead(OpBuilder &b, Location loc, ArrayRef<Value> inputs,
                        Value row, Value tid) {
    SmallVector<Value> full;
    for (auto [i, input] : llvm::enumerate(inputs))
      if (op.getInputRole(i) == Role::full)
        full.push_back(input);
    if (full.empty())
      return;
    Value rows = memref::DimOp::create(b, loc, full.front(), 0);
    Value ahead = arith::AddIOp::create(
        b, loc, row, indexConst(b, loc, layout.l2PrefetchRows));
    // Below l2PrefetchMinRows rows nothing is prefetched: the bound the
    // prefetched row must stay under becomes 0.
    if (layout.l2PrefetchMinRows > 0)
      rows = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, rows,
                                indexConst(b, loc, layout.l2PrefetchMinRows)),
          rows, indexConst(b, loc, 0));
    emitRowPrefetchL2(b, loc, full, ahead, rows, n, /*columnBase=*/Value(), n,
                      tid);
  }

  /// Whether vector loads of `memref` are 16 bytes wide, so they carry L2
  /// eviction hints (what was measured; narrower loads go without).
  bool hintedLoads(Value memref) const {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    return layout.vectorWidth * element.getIntOrFloatBitWidth() == 128;
  }

  /// The global address (i64) of `memref`'s element at (`row`, `col`) (null
  /// `row`: at `col` of a column input), `globalBase` its global address.
  Value vectorAddress(OpBuilder &b, Location loc, Value memref,
                      Value globalBase, Value row, Value col) {
    return globalElementAddress(
        b, loc, globalBase, row, col, n,
        cast<MemRefType>(memref.getType()).getElementTypeBitWidth() / 8);
  }

  /// Collects earlyOutputs where the plan says the first pass stores them
  /// (RowLayout::storesEarlyOutputs; earlyOutputIndices names them). Returns
  /// whether the later passes then read no full input (the first pass's
  /// loads are their last).
  bool collectEarlyOutputs(ArrayRef<Value> outputs,
                           const std::optional<MeanVariancePair> &moments) {
    auto yield = cast<YieldOp>(body.getTerminator());
    for (unsigned k : earlyOutputIndexes)
      earlyOutputs.push_back({yield.getValues()[k], outputs[k]});
    if (earlyOutputs.empty())
      return false;
    // What the passes after the first compute: every output but the early
    // ones, and every reduction but the first pass's, with the reductions'
    // totals and the early outputs at hand.
    SmallVector<Value> later;
    IRMapping available;
    for (auto [value, output] : earlyOutputs)
      available.map(value, value);
    auto reductions = body.getOps<RowReduceOp>();
    for (RowReduceOp reduce : reductions) {
      available.map(reduce.getResult(), reduce.getResult());
      bool inFirstPass =
          moments ? reduce == moments->sum || reduce == moments->squares
                  : reduce == *reductions.begin();
      if (!inFirstPass)
        later.push_back(reduce.getValue());
    }
    for (auto [k, value] : llvm::enumerate(yield.getValues()))
      if (!isEarlyOutput(value, outputs[k]))
        later.push_back(value);
    return llvm::none_of(
        argumentsUsedBy(body, later, available), [&](BlockArgument arg) {
          return op.getInputRole(arg.getArgNumber()) == Role::full;
        });
  }

  bool isEarlyOutput(Value value, Value output) const {
    return llvm::is_contained(earlyOutputs, std::make_pair(value, output));
  }

  /// The arguments a pass over `targets` loads: before the early outputs
  /// are stored, also those the first pass needs to compute them; after,
  /// none of those behind them.
  SmallVector<BlockArgument> passArguments(ArrayRef<Value> targets) {
    SmallVector<Value> all(targets);
    IRMapping mapping = heldRows.front().mapping;
    for (auto [value, output] : earlyOutputs) {
      if (storedEarly)
        mapping.map(value, value);
      else
        all.push_back(value);
    }
    return argumentsUsedBy(body, all, mapping);
  }

  /// Stores this thread's vector at `col` of every early output (the first
  /// pass), computing what its lanes lack.
  LogicalResult storeEarlyOutputs(OpBuilder &b, Location loc,
                                  const HeldRow &held, Value col, Value inside,
                                  std::vector<IRMapping> &lanes) {
    SmallVector<Value> values;
    for (auto [value, output] : earlyOutputs)
      values.push_back(value);
    for (IRMapping &lane : lanes)
      if (failed(cloneBodySlice(b, body, values, lane)))
        return failure();
    Value where = both(b, loc, inside, held.exists);
    for (auto [value, output] : earlyOutputs)
      storeVector(b, loc, output, held.row, col, lanes, value, where);
    return success();
  }

  /// Maps each early output's value in `lanes` to this thread's vector of
  /// it at (`row`, `col`), read back from the output (the passes after the
  /// first). The same thread stored that vector in the first pass.
  void loadEarlyOutputs(OpBuilder &b, Location loc, Value row, Value col,
                        Value inside, EvictionPriority priority,
                        std::vector<IRMapping> &lanes) {
    for (auto [value, output] : earlyOutputs) {
      SmallVector<Value> scalars =
          loadVector(b, loc, output, outputBases.lookup(output), row, col,
                     inside, priority);
      for (int64_t v = 0; v < layout.vectorWidth; ++v)
        lanes[v].map(value, scalars[v]);
    }
  }

  /// A 16-byte (or narrower) vector load of `memref` at (`row`, `col`) (null
  /// `row`: at `col` of a column input), predicated on `inside` (null:
  /// always), as scalars; 16-byte loads carry the eviction priority
  /// `priority`.
  SmallVector<Value> loadVector(OpBuilder &b, Location loc, Value memref,
                                Value globalBase, Value row, Value col,
                                Value inside, EvictionPriority priority) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    auto vecType = VectorType::get({layout.vectorWidth}, element);
    Value address = vectorAddress(b, loc, memref, globalBase, row, col);
    std::optional<CacheHint> hint;
    if (hintedLoads(memref))
      hint =
          CacheHint{priority == EvictionPriority::evictLast ? evictLastPolicy
                                                            : evictFirstPolicy,
                    priority};
    return vectorLanes(b, loc,
                       emitGlobalLoad(b, loc, address, vecType, inside, hint));
  }

  FusedOp op;
  Block &body;
  KernelShape shape;
  RowLayout layout;
  int64_t n;
  /// Bytes of the full inputs' elements (KernelShape::elementBytes).
  int64_t elementBytes;
  /// Full (M x N) inputs (KernelShape::fullOperands, at least 1).
  int64_t fullOperands;
  /// The L2 cache policies of the hinted loads, the global address of
  /// each input, and of each full output stored inline (storesInline) or
  /// stored early (earlyOutputs).
  Value evictFirstPolicy, evictLastPolicy;
  SmallVector<Value> globalBases;
  DenseMap<Value, Value> outputBases;
  /// The full outputs stored by the first pass and read back by the later
  /// ones (body value, output; their global addresses in outputBases), and
  /// whether the passes built so far have stored them.
  SmallVector<std::pair<Value, Value>> earlyOutputs;
  bool storedEarly = false;
  /// earlyOutputIndices of the op where the plan stores them early.
  SmallVector<unsigned> earlyOutputIndexes;
  /// Set where an early output's slice could not be cloned.
  LogicalResult earlyStatus = success();
  /// How many rows a block holds, and how M spreads over blocks.
  RowSplit split;
  /// Whether preloadRows loads the column inputs too, as the tuning decides
  /// (norm::preloadsColumns) or the kernel asks (norm.preload_columns);
  /// otherwise the output pass loads them after the reductions' barrier.
  bool columnsPreloaded;
  /// Whether preloadRows first prefetches the column inputs into L1
  /// (norm::prefetchesColumnsToL1).
  bool prefetchColumns = false;
  /// This block's rows (setUpRows), and with several of them (or the
  /// column inputs preloaded) the kernel's row count M they are checked
  /// against.
  SmallVector<HeldRow> heldRows;
  Value kernelRows;
  /// A row in registers (rowInRegisters): each chunk's first column and
  /// bounds check, the same in every held row, and (columnsPreloaded) this
  /// thread's vectors of the column inputs there, one mapping per vector
  /// lane.
  SmallVector<std::pair<Value, Value>> chunkColumns;
  SmallVector<std::vector<IRMapping>> columnChunkLanes;
};

} // namespace

LogicalResult mlir::norm::buildStreamingKernel(FusedOp op,
                                               const KernelShape &shape,
                                               const RowLayout &layout,
                                               int64_t n, const RowSplit &split,
                                               gpu::GPUFuncOp func) {
  return StreamingKernelBuilder(op, shape, layout, n, split).build(func);
}
