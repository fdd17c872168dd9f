//===- RowLayouts.h - how a row is spread over threads ----------*- C++ -*-===//
//
// Layouts of kernels whose rows a block keeps (in registers or streamed):
// threads, vector width, chunks, warp rows, and the streaming refinements
// (sweeps, fused moments, preloaded columns).
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_ROW_LAYOUTS_H
#define NORMDIALECT_TUNING_ROW_LAYOUTS_H

#include "NormDialect/Tuning/DeviceInfo.h"
#include "NormDialect/Tuning/KernelShape.h"

#include <cstdint>
#include <optional>

namespace mlir::norm {

/// How one row (or a column slice of it) is spread over a thread block.
struct RowLayout {
  /// Threads per block (a multiple of 32).
  int64_t threads = 0;
  /// Elements per vector access (16 bytes when N allows).
  int64_t vectorWidth = 1;
  /// Vector chunks per thread: threads * vectorWidth * chunks elements are
  /// covered by one block (the whole row, or one column slice).
  int64_t chunksPerThread = 1;
  /// Column slices a row is cut into (grid y); 1 when a block owns rows.
  int64_t columnSlices = 1;
  /// Rows a block works on at once: with more than one, each warp owns its
  /// own rows (short rows; reductions are warp shuffles only).
  int64_t rowGroups = 1;
  /// Each warp owns whole rows (warpRowsLayout): rowGroups warps a block,
  /// one of them where the block is a single warp.
  bool warpRows = false;
  /// Blocks of a thread block cluster that share one row, each owning one
  /// column slice (columnSlices == clusterSize, grid y); row reductions are
  /// combined through distributed shared memory. 1: no cluster.
  int64_t clusterSize = 1;
  /// The clusterSize blocks that share a row are a block group, not a
  /// thread block cluster (targets without clusters): one grid of groups x
  /// clusterSize blocks, each taking its group and column slice from a
  /// ticket, the row totals exchanged through a zeroed global workspace.
  bool globalExchange = false;
  /// Rows of the full inputs (of a cluster kernel: this block's column
  /// slice of them) staged in shared memory ahead of use by the bulk copy
  /// engine (0: the next row is prefetched into registers by
  /// --norm-pipeline instead).
  int64_t sharedStages = 0;
  /// Staged rows are read from shared memory again after each row
  /// reduction, and the column inputs are kept there too, instead of
  /// holding the row's elements in registers across the reduction
  /// (rereadsStagedRows).
  bool rereadStaged = false;
  /// Rows ahead that a block's thread 0 asks the bulk copy engine to
  /// prefetch into L2 (0: none; see chooseL2PrefetchRows): a staged kernel
  /// row r + l2PrefetchRows when it issues the copy of row r, a streamed one
  /// its row + l2PrefetchRows, a persistent one (rows strided by the grid
  /// G) the row l2PrefetchRows steps ahead in its walk, r + l2PrefetchRows
  /// x G, when it starts row r.
  int64_t l2PrefetchRows = 0;
  /// A kernel launched over fewer rows than this skips its L2 prefetch (0:
  /// it always prefetches; see chooseL2PrefetchMinRows).
  int64_t l2PrefetchMinRows = 0;
  /// A staged kernel's full outputs are written to shared memory and stored
  /// a row at a time by the bulk copy engine (cp.async.bulk shared to
  /// global) instead of by each thread's vector stores: the row reaches L2
  /// as whole lines, however it sits against them (chooseBulkStores).
  bool bulkStores = false;
  /// A streaming kernel loads its row once, before the first pass, and
  /// keeps it in registers across the passes instead of reading it again
  /// from L2 for each (chooseStreamingLayout: rows its threads cover with
  /// up to four vectors each).
  bool holdsRow = false;
  /// Sweeps of a streamed row (threads x chunks vectors each) that one loop
  /// step of a streaming pass covers, all of their loads issued before any
  /// is used (chooseStreamSweeps). ptxas does not move a load above an
  /// earlier store that may alias it, so an output pass that loaded and
  /// stored one sweep at a time would keep only that sweep in flight.
  int64_t sweepsPerStep = 1;
  /// A streamed kernel that re-reads its row stores the full outputs
  /// computed from the elements alone (KernelShape::earlyOutputs: the
  /// residual add's h) in its first pass, and its later passes read them
  /// back instead of the inputs behind them (chooseEarlyOutputStores).
  bool storesEarlyOutputs = false;
  /// The row reductions are built for latency, not registers: every
  /// thread reads all of its row's warp totals after the block reduction's
  /// barrier and combines them as a tree (one shared-memory latency instead
  /// of log2(warps) dependent shuffles), and each thread's partial is a tree
  /// of its elements rather than a chain from the identity. For a grid of
  /// one block (chooseOneRowLayout), whose time is its chain of latencies,
  /// and in the streaming lowering for the blocks of a row each that have
  /// nothing to hide a round trip behind (rowABlockReducesForLatency);
  /// elsewhere other rows hide the exchange and the registers count more.
  bool latencyBoundReductions = false;

  /// Threads that share one row.
  int64_t threadsPerRow() const { return threads / rowGroups; }
  /// Whether several rows share each warp (rows shorter than a warp).
  bool rowGroupsShareWarps() const {
    return rowGroups > 1 && threadsPerRow() < 32;
  }
  /// Whether the block's rows are held by row groups of at most a warp, one
  /// vector a lane (head rows: bf16 N <= 256).
  bool rowGroupsHoldOneVector() const {
    return rowGroups > 1 && chunksPerThread == 1;
  }

  /// Elements of one operand a thread holds in registers.
  int64_t elementsPerThread() const { return vectorWidth * chunksPerThread; }
  /// Columns one block covers.
  int64_t sliceWidth() const {
    return threadsPerRow() * vectorWidth * chunksPerThread;
  }
};

/// Rows of each full output that a bulk-storing kernel
/// (RowLayout::bulkStores) keeps in shared memory: the row its threads
/// write while the bulk copy of the row before reads its slot.
constexpr int64_t kBulkStoreSlots = 2;

/// Widest power-of-two vector (at most 16 bytes) that divides N, so every row
/// starts aligned.
int64_t chooseVectorWidth(int64_t n, int64_t elementBytes);

/// Layout of a kernel that keeps whole rows in registers (it has row
/// reductions): the most vector chunks per thread within the register budget
/// shared by `fullOperands` operands whose thread count (a multiple of 32)
/// still reaches 128. May exceed the budget at the 1024-thread limit;
/// rowsFitInRegisters() says when. With `allowRowGroups`, rows a warp can hold
/// within the budget get a warp each (rowGroups = 4 warps), and rows of fewer
/// than 32 vectors the power of two of lanes that covers them. Evidence:
/// docs/tuning.md, chooseRowLayout.
RowLayout chooseRowLayout(int64_t n, int64_t elementBytes, int64_t fullOperands,
                          const DeviceInfo &device,
                          bool allowRowGroups = false);

/// The layout of a row kernel with groups of `groupSize` columns (group
/// reductions or values): chooseRowLayout's, with vectors narrowed until
/// they divide the group and a row's threads a multiple of the group's
/// vectors, so that each group's vectors sit on consecutive lanes of one
/// chunk (the lanes of a warp, or whole warps). A group of a number of
/// vectors that is not a power of two keeps the layout; validatePlan says
/// why it cannot be lowered.
RowLayout chooseGroupRowLayout(int64_t n, int64_t elementBytes,
                               int64_t fullOperands, const DeviceInfo &device,
                               int64_t groupSize, bool allowRowGroups);

/// Registers a thread of a row-resident kernel needs, estimated from its
/// layout: the loaded elements (two bf16/f16 per register, but whole
/// registers for each vector: one per element of 2-byte vectors), their f32
/// values and one temporary each, the f32 column accumulators, and about 32
/// for addresses and indices. Checked against ptxas -v in the unit tests'
/// comments: it errs high for the RMSNorm kernels but low for the LayerNorm
/// backward, which keeps xhat and dy * w live across its reductions (255
/// registers and spills at 32 elements a thread where it says 192), so
/// chooseClusterLayout counts column outputs twice.
int64_t estimateRegisters(const RowLayout &layout, int64_t elementBytes,
                          int64_t fullOperands, int64_t columnOutputs);

/// True when a kernel with row reductions can keep its rows in registers:
/// the layout respects the register budget and the estimated registers fit
/// what ptxas allows a thread of that block size (the register file shared
/// by the block counted in units of four warps: 64 at 1024 threads, 128 at
/// 416-512, 168 at 288-384), so nothing spills.
bool rowsFitInRegisters(int64_t n, int64_t elementBytes, int64_t fullOperands,
                        int64_t columnOutputs, const DeviceInfo &device);

/// Rows a block of a kernel without column outputs processes in sequence
/// (grid = ceil(M / rows)): more than one lets --norm-pipeline prefetch the
/// next row while the current one is reduced.
int64_t chooseRowsPerBlock(int64_t n, int64_t elementBytes,
                           const DeviceInfo &device);

/// Rows a block of a forward with a residual add (two full inputs, h
/// computed from them: KernelShape::earlyOutputs) walks where the table or
/// chooseRowsPerBlock gave `rowsPerBlock` for the plain forward's one input:
/// half as many (at least one), so a block keeps the same bytes of rows in
/// flight. Measured where y and h are the outputs; forwards with FP8 outputs
/// or column groups keep `rowsPerBlock`. Evidence: docs/tuning.md,
/// chooseResidualAddRows.
int64_t chooseResidualAddRows(const KernelShape &shape, int64_t rowsPerBlock);

/// Rows each row group walks in a kernel whose row groups hold their rows as
/// one vector a lane (RowLayout::rowGroupsHoldOneVector) and that writes no
/// column outputs and has no column groups (`groupSize` 0: the forwards over
/// head rows), and the
/// pipeline depth over them: every row's loads are issued before the first
/// row is reduced. KernelPlan's rows per block and stages for such kernels
/// (chooseMinBlocks spreads their rows by M); zeros elsewhere.
struct RowGroupWalk {
  int64_t rowsPerBlock = 0;
  int64_t numStages = 0;
};
RowGroupWalk chooseRowGroupWalk(const RowLayout &layout, int64_t columnOutputs,
                                int64_t groupSize);

/// Layout of a kernel without row reductions: rows are cut into column
/// slices (grid y), each block covering `sliceWidth()` columns of its rows.
RowLayout chooseSlicedLayout(int64_t n, int64_t elementBytes,
                             int64_t fullOperands, const DeviceInfo &device);

/// Rows of at least this many bytes stream with 1024-thread blocks
/// (chooseStreamingLayout), and long forward rows up to it stream instead of
/// spreading over a cluster (streamsLongForwardRows).
constexpr int64_t kLongStreamedRowBytes = 64 * 1024;

/// Layout of a streaming kernel (a statistics kernel over rows too long for
/// registers, or a streamed forward): the block streams the row in vector
/// chunks (chunksPerThread = chunks per loop iteration, unrolled for loads
/// in flight): up to 512 threads and 4 chunks, fewer where the row is
/// shorter than one iteration (two-byte rows of one full operand longer
/// than 512 x 4 vectors: up to the block's thread limit, so that it holds
/// them); rows of kLongStreamedRowBytes and more get 1024 threads with one
/// vector each. A row the block's vectors cover is held in registers
/// (RowLayout::holdsRow). `vectorWidth` > 0 replaces chooseVectorWidth's
/// widest vector (norm.vector_width; it must divide N); `fullOperands` is
/// the kernel's (KernelShape::fullOperands).
RowLayout chooseStreamingLayout(int64_t n, int64_t elementBytes,
                                const DeviceInfo &device,
                                int64_t vectorWidth = 0,
                                int64_t fullOperands = 1);

/// The streamed layout `block` with each warp owning a row of its own
/// instead of the block sharing one (norm.warp_rows): each thread with
/// threads / 32 times the vectors, the row still held in registers and
/// reduced by warp shuffles alone, without a barrier. The block keeps its
/// warps (RowLayout::rowGroups), or has one warp a row where it holds fewer
/// rows (`rowsPerBlock`; 0: as many as its warps): a block of one row is a
/// single warp. std::nullopt where `block` is not a held row of one vector
/// a thread.
std::optional<RowLayout> warpRowsLayout(const RowLayout &block,
                                        int64_t rowsPerBlock = 0);

/// Most rows a block (or, with warp rows, each warp) of the streamed
/// `layout` may hold in registers at once for a kernel of `fullOperands`
/// full inputs: its threads keep every held row's elements live across the
/// reductions, so the rows' elements a thread must stay within the 255
/// registers ptxas gives it (kMaxRegisterBudget); the rules hold at most
/// four (chooseHeldRows). 1 where the layout does not hold its row.
int64_t maxHeldRows(const RowLayout &layout, int64_t fullOperands);

/// Threads a block spreads one row over where its grid is that one block
/// (chooseOneRowLayout).
constexpr int64_t kOneRowThreads = 256;

/// Most warps a row may span for its reductions to read every warp total
/// in every thread (RowLayout::latencyBoundReductions): more reads and
/// registers than the shuffles they save.
constexpr int64_t kMaxWarpTotalsReadByEveryThread = 8;

/// The layout `layout` (a row-resident or streamed block of one vector a thread
/// covering a whole row) for a kernel whose grid is a single block over one row
/// (M = 1): narrower vectors over more threads, halving the vector width while
/// the doubled threads stay within kOneRowThreads. Returns `layout` unchanged
/// for any other layout. Evidence: docs/tuning.md, chooseOneRowLayout.
RowLayout chooseOneRowLayout(const RowLayout &layout, int64_t n,
                             const DeviceInfo &device);

/// Most sweeps one step of a streamed pass loads ahead (chooseStreamSweeps):
/// the whole row of a four-byte N = 32768 at 1024 threads.
constexpr int64_t kMaxStreamSweepsPerStep = 8;

/// RowLayout::sweepsPerStep for the streamed `layout` of `shape`'s rows: a
/// forward (one full input) with one row reduction (RMSNorm) over rows of
/// kLongStreamedRowBytes and more, which re-reads its row from L2 in the
/// output pass, loads all of its sweeps of the row up to
/// kMaxStreamSweepsPerStep (the largest divisor of the row's sweeps) before
/// it stores; so does a kernel that stores early outputs
/// (RowLayout::storesEarlyOutputs, set first), whatever its row's length;
/// every other kernel one (measured, see the definition).
int64_t chooseStreamSweeps(const KernelShape &shape, const RowLayout &layout);

/// RowLayout::storesEarlyOutputs for the streamed `layout` of `shape`'s
/// rows: wherever the kernel re-reads its row from L2 (not holdsRow) and has
/// outputs computed from the elements alone (the fused residual add's h),
/// and no output narrower than its inputs (the FP8 forwards were not
/// measured). Its later passes then read one full operand per such output
/// instead of the inputs behind it. Evidence: docs/tuning.md,
/// chooseEarlyOutputStores.
bool chooseEarlyOutputStores(const KernelShape &shape, const RowLayout &layout);

/// Whether a streamed kernel of `layout` over rows of `n` elements,
/// `rowsPerBlock` rows a block, computes a mean and variance pair
/// (LayerNorm's two row reductions) in one pass and one exchange, each
/// thread's count, mean and M2 merged pairwise, instead of a pass and an
/// exchange per reduction. It needs one row a block over a power of two of
/// warps (no warp rows, no cluster) and the same count of the row's
/// elements in every thread (n a multiple of the block's sweep); measured,
/// it pays where the row is streamed from L2 or held as one vector a
/// thread, not where each thread holds several, nor for streamed rows of
/// four-byte elements (see the definition).
bool fusesRowMoments(const RowLayout &layout, int64_t n, int64_t elementBytes,
                     int64_t rowsPerBlock);

/// Whether a streamed block holding its rows in registers
/// (RowLayout::holdsRow) loads its column inputs (weight, bias) with the
/// rows, before the reductions, instead of in the output pass after their
/// barrier, where the load is a round trip on the critical path of a block
/// that has nothing else to do: blocks of several rows (`rowsPerBlock` > 1,
/// or warp rows) always, a row a block where its one column input (RMSNorm's
/// weight) costs the fewest registers.
bool preloadsColumns(const KernelShape &shape, const RowLayout &layout,
                     int64_t rowsPerBlock);

/// Whether a streamed block of one row held in registers builds its
/// reductions for latency (RowLayout::latencyBoundReductions) where
/// chooseOneRowLayout has not: where it loads its column inputs with the
/// row (`columnsPreloaded`: preloadsColumns, or the version of few rows
/// that asks for it, choosePreloadedColumnsRows), the same judgement that
/// the block has nothing to hide a round trip behind; one row a block of up
/// to kMaxWarpTotalsReadByEveryThread warps.
bool rowABlockReducesForLatency(const RowLayout &layout, int64_t rowsPerBlock,
                                bool columnsPreloaded);

/// Whether a streamed kernel of `layout` over rows of `n` elements of
/// `elementBytes` stores its full outputs' 16-byte vectors as st.global
/// predicated on the row's bounds instead of as vector.store in a branch
/// (emitGlobalStore): for rows of at most kPredicatedStoreRowBytes. The
/// branches had LLVM sink each held row's normalization into its store's
/// block, so the rows' rsqrt chains ran one after another; without them
/// ptxas interleaves the rows, which takes registers: a block of 192-512
/// threads a row (N = 1536-4096 bf16) spilled at its .minnctapersm cap.
bool predicatesRowStores(int64_t n, const RowLayout &layout,
                         int64_t elementBytes);

/// Longest row (bytes) whose streamed kernels predicate their stores
/// (predicatesRowStores): the rows measured, N = 256 and 512 bf16.
constexpr int64_t kPredicatedStoreRowBytes = 1024;

/// Whether a streamed kernel that loads its column inputs with its row
/// (preloadsColumns) first prefetches them into L1 (prefetch.global.L1):
/// ptxas sinks the column loads, whose values are used only after the
/// reductions, down to the first reduction's barrier, a round trip behind
/// the row's; the prefetch, with no result to sink, leaves with the row's
/// loads. Only for one row (`oneRow`: a static M of 1) with two or more
/// column inputs (LayerNorm's weight and bias).
bool prefetchesColumnsToL1(const KernelShape &shape, bool oneRow);

/// Whether a streamed kernel that loads its column inputs with its rows
/// (preloadsColumns) follows their loads with a CTA memory fence, which
/// ptxas does not move loads across: it otherwise sinks LayerNorm's weight
/// and bias loads (values used only after the reductions) past the first
/// reduction's shuffles, a second round trip for the block. Only blocks
/// without row bounds (`wholeBlocks`, norm.rows_multiple) with two or more
/// column inputs: measured there, the fence alone elsewhere was mixed.
bool fencesColumnLoads(const KernelShape &shape, bool wholeBlocks);

/// Whether a forward (row reductions, no column outputs) whose rows do not
/// fit one block's registers streams them (KernelPlan::Kind::Streaming)
/// rather than spreading them over a cluster: rows up to
/// kLongStreamedRowBytes, measured (see the definition), and every such
/// forward on a target without clusters (`device.maxClusterSize` 1), where
/// re-reading the row from L2 beats splitting it into a statistics kernel
/// and a second pass over memory.
bool streamsLongForwardRows(const KernelShape &shape, const DeviceInfo &device);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_ROW_LAYOUTS_H
