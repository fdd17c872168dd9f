//===- Tuning.h - launch and split decisions for norm kernels ---*- C++ -*-===//
//
// Every tuning decision of the compiler lives here, as functions of shapes,
// element sizes and device properties (never of IR), so unit tests and the
// autotuner can call them directly.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_TUNING_H
#define NORMDIALECT_TUNING_TUNING_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mlir::norm {

/// What the tuning rules need to know about the target GPU.
struct DeviceInfo {
  /// Streaming multiprocessors (H100 SXM and H200: 132).
  int64_t numSMs = 132;
  /// Largest block the target launches.
  int64_t maxThreadsPerBlock = 1024;
  /// Elements of all full (M x N) operands together that one thread keeps in
  /// registers while a row is processed. About 32 f32 values keeps kernels
  /// far from spilling with room for column accumulators.
  int64_t registerBudget = 32;
  /// Shared memory one block may use (bytes): Hopper's opt-in limit for
  /// dynamic shared memory, which the runtimes request at launch
  /// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) above the 48 KB
  /// every kernel gets.
  int64_t sharedMemoryPerBlock = 227 * 1024;
  /// Shared memory of one SM (bytes), shared by its resident blocks.
  int64_t sharedMemoryPerSM = 228 * 1024;
  /// Threads and 32-bit registers one SM holds (Hopper: 2048, 64K).
  int64_t threadsPerSM = 2048;
  int64_t registersPerSM = 65536;
  /// Largest thread block cluster a kernel may use to share a row (1: no
  /// clusters). Hopper guarantees 8; 16 is a non-portable size the runtime
  /// enables per kernel (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED).
  int64_t maxClusterSize = 16;

  /// Clusters of `clusterSize` blocks, one block per SM, that the GPU holds
  /// at once (what cuOccupancyMaxActiveClusters reports). The GPCs decide,
  /// not only the SM count: on the H200 (132 SMs) 66, 30, 15 and 7 for
  /// clusters of 2, 4, 8 and 16 (measured 2026-11-29), which is what a
  /// 132-SM target gets; other SM counts get 85% of numSMs / clusterSize,
  /// since a grid one cluster over the real count runs a second wave.
  int64_t residentClusters(int64_t clusterSize) const;
};

/// A split no M reaches: with min_partials F, rows per partial ceil(M / F).
constexpr int64_t kUncappedSplit = 1 << 20;

/// Rows per partial sum for a split column reduction over an M x N space.
/// `m` is std::nullopt when M is only known at run time. Each block of the
/// persistent grid reduces `split` rows in registers and writes one f32
/// partial row, so the split trades grid size (warps per SM) against
/// workspace traffic and the combine; the constant is measured (see the
/// definition).
/// `rowsOverCluster`: the kernel's rows are spread over a thread block
/// cluster (chooseClusterLayout), which measured best with smaller splits.
/// `minPartials`: the kernel's min_partials F (0: none), with which the
/// split caps the rows per partial of whole waves of F partial rows
/// (FusedOp::buildRowsPerPartial) instead of setting them. `maxPartials`:
/// the kernel's max_partials P (0: none, chooseMaxPartials), past whose
/// F x split rows one wave of P partial rows takes over.
int64_t chooseSplitSize(std::optional<int64_t> m, int64_t n,
                        const DeviceInfo &device, bool rowsOverCluster = false,
                        int64_t minPartials = 0, int64_t maxPartials = 0);

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
/// rowsFitInRegisters() says when. With `allowRowGroups`, rows a warp can
/// hold within the budget get a warp each (rowGroups = 4 warps). Kernels
/// with split column outputs do not allow it: measured on the H200, warps
/// of such kernels that each held a row (N = 1024 bf16 backward, twice the
/// budget, partials summed in shared memory) ran at 2.49 TB/s (RMSNorm)
/// and 1.86 (LayerNorm) against 2.91 and 2.32 for a block per row: the
/// registers cost more occupancy than the barriers they save.
RowLayout chooseRowLayout(int64_t n, int64_t elementBytes, int64_t fullOperands,
                          const DeviceInfo &device,
                          bool allowRowGroups = false);

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

/// Layout of a kernel with row reductions whose rows do not fit one block's
/// registers: the smallest thread block cluster (at most
/// device.maxClusterSize blocks) whose blocks each keep one column slice of
/// the row in registers within the register budget, with 256-1024 threads
/// and the estimated registers within the register file (one block per SM
/// at worst). So a long row is read once, as in the row-resident layout,
/// instead of twice (statistics kernel + rest). std::nullopt when no
/// cluster holds the row.
std::optional<RowLayout> chooseClusterLayout(int64_t n, int64_t elementBytes,
                                             int64_t fullOperands,
                                             int64_t columnOutputs,
                                             const DeviceInfo &device);

/// True when rows with row reductions stay on chip on the GPU: in one
/// block's registers or spread over a cluster (chooseClusterLayout). When
/// false, --norm-split-rows moves the row statistics into a kernel of their
/// own.
bool rowsFitOnChip(int64_t n, int64_t elementBytes, int64_t fullOperands,
                   int64_t columnOutputs, const DeviceInfo &device);

/// Rows a block of a kernel without column outputs processes in sequence
/// (grid = ceil(M / rows)): more than one lets --norm-pipeline prefetch the
/// next row while the current one is reduced.
int64_t chooseRowsPerBlock(int64_t n, int64_t elementBytes,
                           const DeviceInfo &device);

/// Layout of a kernel without row reductions: rows are cut into column
/// slices (grid y), each block covering `sliceWidth()` columns of its rows.
RowLayout chooseSlicedLayout(int64_t n, int64_t elementBytes,
                             int64_t fullOperands, const DeviceInfo &device);

/// Layout of a norm.combine kernel (the finishing reduction of split column
/// partials, lib/Conversion/CombineKernelBuilder.cpp): each block owns
/// blockColumns() columns, `lanes` threads across them with a vector of
/// `vectorWidth` f32 each, and groups() row groups that each sum every
/// groups()-th partial row, each thread keeping `unroll` loads in flight;
/// the first group adds the groups' totals in order.
struct CombineLayout {
  /// Threads per block (a power of two).
  int64_t threads = 256;
  /// Threads across the block's columns (a power of two, at most threads).
  int64_t lanes = 32;
  /// f32 partials per load: 4 (16 bytes) where every combined N allows it.
  int64_t vectorWidth = 1;
  int64_t unroll = 8;

  /// Row groups of a block, each summing every groups()-th partial row.
  int64_t groups() const { return threads / lanes; }
  /// Columns one block covers.
  int64_t blockColumns() const { return lanes * vectorWidth; }
};

/// The combine layout for N columns in all (N <= 0: unknown, e.g. dynamic),
/// loaded `vectorWidth` (1 or 4) f32 at a time. The combine is a chain of
/// dependent rounds of L2 latency (P / (groups x unroll) rounds for P
/// partial rows), so the rule sizes blocks by the grid: wide rows get the
/// most lanes of 16-byte loads that still give every SM a block, narrow
/// rows scalar lanes (a warp of them, fewer where 32 would leave more than
/// half the SMs without a block, down to 8) and the more row groups the
/// fewer blocks there are.
/// Narrow rows come from kernels with hundreds of partial rows (their
/// min_partials), wide ones (N >= 16K) from one wave of clusters (7 to 90):
/// the former get many groups of few lanes, the latter few groups of many.
/// `lanes` and `threads` override the rule where positive (see
/// validateCombineLayout).
CombineLayout chooseCombineLayout(int64_t n, int64_t vectorWidth,
                                  const DeviceInfo &device, int64_t lanes = 0,
                                  int64_t threads = 0);

/// Returns an empty string when `lanes` and `threads` (0: the rule) are a
/// usable combine layout override on `device`, else why not.
std::string validateCombineLayout(int64_t lanes, int64_t threads,
                                  const DeviceInfo &device);

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

/// Threads a block spreads one row over where its grid is that one block
/// (chooseOneRowLayout).
constexpr int64_t kOneRowThreads = 256;

/// Most warps a row may span for its reductions to read every warp total
/// in every thread (RowLayout::latencyBoundReductions): more reads and
/// registers than the shuffles they save.
constexpr int64_t kMaxWarpTotalsReadByEveryThread = 8;

/// The layout `layout` (a row-resident or streamed block of one vector a
/// thread covering a whole row) for a kernel whose grid is a single block
/// over one row (M = 1): narrower vectors over more threads, halving the
/// vector width while the doubled threads stay within kOneRowThreads. With
/// nothing else on the GPU the kernel is a chain of latencies, and more
/// threads each loading less put more loads in flight at once; with blocks
/// to hide them the wider vectors win (4096 x 1024: 0.78-0.98x). Returns
/// `layout` unchanged for any other layout.
RowLayout chooseOneRowLayout(const RowLayout &layout, int64_t n,
                             const DeviceInfo &device);

/// Returns an empty string when `size` is a usable largest cluster size (1,
/// 2, 4, 8 or 16 blocks), else why not.
std::string validateClusterSize(int64_t size);

/// Returns an empty string when `split` is a usable split size, else why not.
std::string validateSplitSize(int64_t split);

/// Returns an empty string when `stages` is a usable shared-stages option
/// (-1: the tuning table, else the rule; 0: off; 1 to 4), else why not.
std::string validateSharedStages(int64_t stages);

/// Returns an empty string when the target options every kernel-planning
/// pass takes (register budget, largest cluster, staging depth) are usable,
/// else why the first one is not.
std::string validateTargetOptions(int64_t registerBudget,
                                  int64_t maxClusterSize, int64_t sharedStages);

} // namespace mlir::norm

namespace mlir::norm {

/// The shape class a measured tuning entry applies to.
struct TuningKey {
  int64_t n = 0;
  int64_t elementBytes = 2;
  int64_t fullOperands = 1;
  int64_t columnOutputs = 0;
  int64_t rowReductions = 1;
};

/// Knobs the autotuner measured best for a shape class (0: not set, use the
/// analytic rule).
struct TuningChoice {
  int64_t registerBudget = 0;
  int64_t rowsPerBlock = 0;
  int64_t numStages = 0;
  /// Blocks per SM the register allocation must allow (PTX .minnctapersm):
  /// trades a few spilled registers for twice the warps where registers
  /// alone limit a kernel to one block per SM.
  int64_t minBlocksPerSM = 0;
  /// Rows staged in shared memory (RowLayout::sharedStages); -1: not set
  /// (the analytic rule), 0: measured best without staging.
  int64_t sharedStages = -1;
  /// A forward (no column outputs) streams its rows (KernelPlan::Kind::
  /// Streaming: one block a row, re-read from L2 under eviction hints
  /// unless the block's threads hold the row) instead of staging them.
  bool streamRows = false;
  /// Full outputs stored by bulk copies (RowLayout::bulkStores) where the
  /// kernel allows it: 1 measured faster, 0 slower, -1 not measured (the
  /// rule, chooseBulkStores).
  int64_t bulkStores = -1;
  /// The N of the entry a lookup took (TuningTable::lookup; 0 elsewhere):
  /// a choice measured at the kernel's own N, or borrowed from another.
  int64_t entryN = 0;
};

/// Measured choices (tuning/<device>.json, written by bench/autotune.py).
/// Lookups match every field of the key but N, and take the entry with the
/// nearest N (in ratio), so a table measured at powers of two covers the
/// shapes between them.
class TuningTable {
public:
  /// Reads a table; false with `error` on a missing or malformed file.
  bool load(const std::string &path, std::string &error);
  /// Adds or replaces an entry.
  void add(const TuningKey &key, const TuningChoice &choice);
  /// The entry for `key`'s class nearest in N, if any; with `applies`, the
  /// nearest of those it accepts.
  std::optional<TuningChoice>
  lookup(const TuningKey &key,
         llvm::function_ref<bool(const TuningChoice &)> applies = {}) const;
  bool empty() const { return entries.empty(); }

private:
  std::vector<std::pair<TuningKey, TuningChoice>> entries;
};

/// What the tuning rules need to know about one norm.fused kernel (built
/// from IR by describeKernel, NormDialect/Utils/KernelBody.h); its first
/// five fields are those of its TuningKey.
struct KernelShape {
  /// Normalized size.
  int64_t n = 0;
  /// Widest activation element (full inputs and outputs; the f32 column
  /// partials do not count).
  int64_t elementBytes = 2;
  /// Full (M x N) inputs the kernel reads.
  int64_t fullOperands = 1;
  /// Column-reduction outputs (dW, dB).
  int64_t columnOutputs = 0;
  /// norm.row_reduce ops per row.
  int64_t rowReductions = 1;
  /// Every output is a row output (a statistics kernel).
  bool onlyRowOutputs = false;
  /// Narrowest element of the full inputs (0: elementBytes).
  int64_t narrowestInputBytes = 0;
  /// Bytes per column of the column inputs (weight, bias) together: a
  /// staged kernel keeps one copy of them in shared memory.
  int64_t columnInputBytes = 0;
  /// Full (M x N) outputs the kernel writes (y, dx).
  int64_t fullOutputs = 0;
  /// Narrowest element of the full outputs (0: elementBytes).
  int64_t narrowestOutputBytes = 0;
  /// Row outputs (per-row statistics such as mean and rstd) the kernel
  /// writes.
  int64_t rowOutputs = 0;
  /// Column inputs (weight, bias) the kernel reads.
  int64_t columnInputs = 0;
};

/// Most sweeps one step of a streamed pass loads ahead (chooseStreamSweeps):
/// the whole row of a four-byte N = 32768 at 1024 threads.
constexpr int64_t kMaxStreamSweepsPerStep = 8;

/// RowLayout::sweepsPerStep for the streamed `layout` of `shape`'s rows: a
/// forward (one full input) with one row reduction (RMSNorm) over rows of
/// kLongStreamedRowBytes and more, which re-reads its row from L2 in the
/// output pass, loads all of its sweeps of the row up to
/// kMaxStreamSweepsPerStep (the largest divisor of the row's sweeps) before
/// it stores; every other kernel one (measured, see the definition).
int64_t chooseStreamSweeps(const KernelShape &shape, const RowLayout &layout);

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

/// Whether a streamed kernel that loads its column inputs with its row
/// (preloadsColumns) first prefetches them into L1 (prefetch.global.L1):
/// ptxas sinks the column loads, whose values are used only after the
/// reductions, down to the first reduction's barrier, a round trip behind
/// the row's; the prefetch, with no result to sink, leaves with the row's
/// loads. Only for one row (`oneRow`: a static M of 1) with two or more
/// column inputs (LayerNorm's weight and bias).
bool prefetchesColumnsToL1(const KernelShape &shape, bool oneRow);

/// How a kernel is generated and launched.
struct KernelPlan {
  enum class Kind {
    /// Rows (or, with a warp per row, several rows) held in one block's
    /// registers.
    RowResident,
    /// A row spread over a thread block cluster (layout.clusterSize).
    Cluster,
    /// A statistics-only kernel streaming rows too long for registers.
    Streaming,
    /// No row reductions: rows cut into independent column slices.
    Sliced,
  };
  Kind kind = Kind::RowResident;
  RowLayout layout;
  /// Rows a block walks when the kernel has no split (the tuning table's,
  /// else chooseRowsPerBlock); 1 for streaming kernels (norm-short-rows
  /// marks the versions that hold several, chooseHeldRows).
  int64_t rowsPerBlock = 0;
  /// Pipeline depth from the tuning table (0: the pass option).
  int64_t numStages = 0;
  /// Blocks per SM the registers must allow (0: no constraint).
  int64_t minBlocksPerSM = 0;
  /// Rows up to which a kernel without a split gets a block per row (0:
  /// always rowsPerBlock): it walks min(rowsPerBlock, max(1, ceil(M /
  /// minBlocks))) rows a block (chooseMinBlocks).
  int64_t minBlocks = 0;
  /// A persistent grid: block (cluster) b walks rows b, b + G, b + 2G, ...
  /// where G is the grid, so a launch may cap G at the clusters that fit the
  /// GPU at once (bundle launch "persistent"); any G is correct. For
  /// forwards over clusters (no column partials, rows not staged): a grid of
  /// ceil(M / rows per block) clusters leaves a partial last wave (ncu, RMS
  /// fwd 512x131072: 64 clusters of 8 on 15 that fit, SMs active 76% of
  /// the time).
  bool persistent = false;
};

/// What a caller of planKernel asks for beyond the shape: the pass options
/// of convert-norm-to-gpu (and of norm-split-reduction, which must plan the
/// same kernel). The defaults leave every decision to the table and rules.
struct PlanRequest {
  /// Rows staged in shared memory that many rows deep (see
  /// chooseSharedStages); 0 keeps the register prefetch; -1 takes the
  /// table's measured depth, else defaultSharedStages.
  int64_t sharedStages = -1;
  /// The streaming layout for every kernel with row reductions and no
  /// column outputs (a forward): each reduction, then the outputs, stream
  /// the row in vector chunks, so the second and later passes read it from
  /// L2; few registers and many warps instead of a row held on chip.
  /// Experimental (bench/NOTES.md).
  bool streamRows = false;
  /// Persistent grids (KernelPlan::persistent) where the kernel can have
  /// one.
  bool persistent = true;
  /// Rows (walk steps) ahead that kernels prefetch into L2
  /// (RowLayout::l2PrefetchRows; 0: none; -1: chooseL2PrefetchRows).
  int64_t l2PrefetchRows = -1;
  /// Full outputs stored through shared memory by bulk copies
  /// (RowLayout::bulkStores) where the kernel allows it: 1 on, 0 off, -1
  /// the table's measurement (TuningChoice::bulkStores), else
  /// chooseBulkStores.
  int64_t bulkStores = -1;
  /// One block walks every row (a norm.whole_columns kernel with row work,
  /// below chooseSingleBlockRows): no shared stages and no bulk stores,
  /// whose copies and mbarrier waits only add latency to a row that nothing
  /// overlaps.
  bool singleBlock = false;
  /// The kernel's rows are one row (a static M of 1): its grid is one
  /// block, which spreads the row over more threads (chooseOneRowLayout).
  bool oneRow = false;
  /// A streamed forward that holds its rows gives each warp rows of its
  /// own (norm.warp_rows, warpRowsLayout).
  bool warpRows = false;
  /// The rows each block of those warp rows holds (norm.rows_per_block; 0:
  /// one a warp), which fewer than the layout's warps make a smaller block.
  int64_t warpRowsPerBlock = 0;
  /// The whole-column kernel launched to run beside this one (the column
  /// half of norm-short-rows' pair), whose blocks chooseMinBlocks leaves
  /// SMs for; none if empty.
  std::optional<KernelShape> besideColumns;
  /// The kernel only runs where M is below this (norm.rows_below; 0: any
  /// M): a streamed forward that never reaches its
  /// RowLayout::l2PrefetchMinRows issues no L2 prefetch.
  int64_t rowsBelow = 0;
  /// Elements per vector access of a streamed forward (norm.vector_width;
  /// 0: chooseVectorWidth's widest).
  int64_t vectorWidth = 0;

  PlanRequest &setWarpRows(bool warps, int64_t rowsPerBlock = 0) {
    warpRows = warps;
    warpRowsPerBlock = rowsPerBlock;
    return *this;
  }
  PlanRequest &setSharedStages(int64_t stages) {
    sharedStages = stages;
    return *this;
  }
  PlanRequest &setStreamRows(bool stream) {
    streamRows = stream;
    return *this;
  }
  PlanRequest &setPersistent(bool allow) {
    persistent = allow;
    return *this;
  }
  PlanRequest &setL2PrefetchRows(int64_t rows) {
    l2PrefetchRows = rows;
    return *this;
  }
  PlanRequest &setBulkStores(int64_t mode) {
    bulkStores = mode;
    return *this;
  }
  PlanRequest &setSingleBlock(bool single) {
    singleBlock = single;
    return *this;
  }
  PlanRequest &setOneRow(bool one) {
    oneRow = one;
    return *this;
  }
  PlanRequest &setBesideColumns(std::optional<KernelShape> columns) {
    besideColumns = columns;
    return *this;
  }
  PlanRequest &setRowsBelow(int64_t rows) {
    rowsBelow = rows;
    return *this;
  }
  PlanRequest &setVectorWidth(int64_t width) {
    vectorWidth = width;
    return *this;
  }
};

/// The layout decision of convert-norm-to-gpu: rows too long for one block
/// go to a cluster (chooseClusterLayout) unless the kernel only computes
/// statistics (streamed); kernels without row reductions are sliced; the
/// rest keep rows in registers, with the measured `table` (may be null or
/// empty) overriding budget, rows per block, stages, blocks per SM,
/// staging, streaming and bulk stores for its shape class, and `request`
/// what the caller asks for. The table
/// measures row-resident kernels only.
KernelPlan planKernel(const KernelShape &shape, DeviceInfo device,
                      const TuningTable *table,
                      const PlanRequest &request = {});

/// How far ahead a forward prefetches its full inputs into L2
/// (RowLayout::l2PrefetchRows), 0 for none (backwards: measured slower):
/// about 4 MB of rows past what the kernel already loads. A staged or
/// streamed forward (blocks of 1-4 rows) reaches the rows of the blocks
/// that start after the resident ones, so a new block's first rows come
/// from L2; a persistent forward over clusters (the next row of its walk
/// in registers) reaches one walk step (G rows) past that.
int64_t chooseL2PrefetchRows(const KernelShape &shape, const KernelPlan &plan,
                             const DeviceInfo &device);

/// RowLayout::l2PrefetchMinRows for a kernel with `plan`: a
/// streamed forward (a row per block) prefetches only when M covers three
/// prefetch distances (about 12 MB of inputs); below that the blocks that
/// would find their rows in L2 are few and the prefetch only delays the
/// first rows' own loads. Other kernels (not measured) get 0: always.
int64_t chooseL2PrefetchMinRows(const KernelPlan &plan);

/// KernelPlan::minBlocksPerSM of a streamed forward where the tuning table
/// sets none: a row of two vectors a thread held in registers with its
/// column input preloaded (preloadsColumns) gets the blocks its threads
/// allow an SM (ptxas would take one block more registers and lose it); 0
/// (ptxas chooses) otherwise.
int64_t chooseStreamingMinBlocksPerSM(const KernelShape &shape,
                                      const RowLayout &layout,
                                      const DeviceInfo &device);

/// KernelPlan::minBlocks for a kernel of `shape` with `plan`: kernels
/// without column outputs (forwards, a backward without a weight) whose
/// blocks own their rows (a block, not a warp, per row; not persistent)
/// walk min(rowsPerBlock, max(1, ceil(M / minBlocks))) rows, so up to 8
/// rows per SM (1056 on the H200) get a block each. Kernels with column
/// outputs take theirs from the split (norm-split-reduction's
/// min_partials) and get 0.
///
/// A row kernel beside a whole-column kernel of shape `besideColumns`
/// (norm-short-rows' pair) that shuts the column blocks out of its SMs
/// (shutsOutColumnBlocks) gets one block for each SM the column blocks
/// leave instead, so that the two kernels run at once rather than the
/// column blocks waiting for row blocks to end.
int64_t chooseMinBlocks(const KernelShape &shape, const KernelPlan &plan,
                        const DeviceInfo &device,
                        const KernelShape *besideColumns = nullptr);

/// Whether a block of the row kernel of `rows` with `plan` (norm-short-rows'
/// row half; row-resident blocks that own their rows and may walk several)
/// leaves its SM too few threads or registers (by estimateRegisters) for a
/// block of the whole-column kernel of `columns` beside it: at N = 12288
/// bf16, 768 threads of about 80 registers leave 4096. Such a kernel walks
/// up to 4 rows a block and spreads them over the SMs the column blocks
/// leave (chooseMinBlocks).
bool shutsOutColumnBlocks(const KernelShape &rows, const KernelPlan &plan,
                          const KernelShape &columns, const DeviceInfo &device);

/// The grid of a whole-column kernel of `shape`: one block for each
/// CombineLayout::blockColumns() columns of chooseColumnKernelLayout.
int64_t columnKernelBlocks(const KernelShape &shape, const DeviceInfo &device);

/// True when a planned kernel can store its full outputs' rows through
/// shared memory (RowLayout::bulkStores): a row-resident kernel that stages
/// its rows, with a block-wide reduction per row (whose barrier orders the
/// rows' shared-memory writes before the bulk copy that reads them), output
/// rows of 16-byte multiples, and room for two rows of every full output
/// beside the stages.
bool allowsBulkStores(const KernelShape &shape, const KernelPlan &plan,
                      const DeviceInfo &device);

/// Whether a kernel that allowsBulkStores stores its full outputs by bulk
/// copies, by the rule (`requested` < 0) or as requested (0 off, 1 on).
bool chooseBulkStores(const KernelShape &shape, const KernelPlan &plan,
                      const DeviceInfo &device, int64_t requested = -1);

/// Empty if `mode` is a valid bulk-stores option (-1: the rule, 0: off, 1:
/// on), else the error.
std::string validateBulkStores(int64_t mode);

/// Empty if `rows` is a valid l2-prefetch-rows option (-1: the rule, 0:
/// off, else rows ahead), else the error.
std::string validateL2PrefetchRows(int64_t rows);

/// The row count below which a kernel of `shape` that mixes row work (row
/// reductions, full outputs) with column outputs runs as two kernels side
/// by side (norm-short-rows): the row part, and a column kernel that sums
/// whole columns over every row. 0: never (no column outputs, nothing but
/// them, or rows wider than the measured range). At few rows the fused
/// kernel's saving, one read of x and dy, is worth less than the latency
/// of its partial rows and the combine that must wait for them.
int64_t chooseShortRowsLimit(const KernelShape &shape,
                             const DeviceInfo &device);

/// The row count below which the short version of a mixed-order kernel of
/// `shape` is that kernel itself over one block (norm.whole_columns with its
/// row work: column outputs written directly, rounded) instead of a row and
/// a whole-column kernel side by side. 0: never (no short version). Two
/// launches cost more than one where there is next to no work to overlap.
/// At 2 (one row) norm-short-rows casts that version to one row and gives
/// M = 0 the pair.
int64_t chooseSingleBlockRows(const KernelShape &shape,
                              const DeviceInfo &device);

/// Rows [begin, end) of M.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;

  /// Every row count.
  static RowRange all() { return {0, std::numeric_limits<int64_t>::max()}; }
  bool empty() const { return end <= begin; }
  bool contains(int64_t rows) const { return rows >= begin && rows < end; }
  bool coversAll() const {
    return begin <= 0 && end == std::numeric_limits<int64_t>::max();
  }
};

/// The rows of M where a forward of `shape` streams its rows through L2
/// (norm-short-rows sets norm.stream_rows on that version, or on the kernel
/// itself where the range covers every M) instead of staging them in
/// shared memory: RMSNorm (one row reduction) at every M for N = 256-4096,
/// LayerNorm (two) at every M for N = 256-1024 and below a limit up to
/// N = 4096 (from N = 256: a warp of one vector a lane). Empty: never. Rows of
/// one vector a thread stay in registers (chooseStreamingLayout), so the
/// streamed kernel is a single pass over memory whose short block starts sooner
/// than a staged row's copy; only LayerNorm's longer rows at many rows keep the
/// staged kernel's overlap. Rows of more than one vector a thread (f32 at N >
/// 2048), measured when the block re-read them from L2: RMSNorm streams them
/// below a limit, LayerNorm not at all.
RowRange chooseStreamedRows(const KernelShape &shape, const DeviceInfo &device);

/// Rows each block of a streamed forward holds at once (norm.rows_per_block
/// on the version norm-short-rows makes for `rows` of M), and whether its
/// warps own them (norm.warp_rows, warpRowsLayout: rowsPerBlock / warps of
/// the rows each) instead of all its threads sharing each row.
struct HeldRows {
  int64_t rowsPerBlock = 1;
  RowRange rows;
  bool warpRows = false;
  /// Blocks per SM the version's registers must allow (PTX .minnctapersm,
  /// norm.min_blocks_per_sm; 0: ptxas chooses).
  int64_t minBlocksPerSM = 0;
  /// Elements per vector access (norm.vector_width; 0: the widest that
  /// divides N, chooseVectorWidth).
  int64_t vectorWidth = 0;
};

/// Where the streamed forward of `shape` (chooseStreamedRows) holds several
/// rows a block, as bands of M in increasing order that do not overlap,
/// neighbours that build the same kernel merged (empty: a row a block at
/// every M). Blocks of at most 128 threads that keep their row in registers
/// (one vector a thread, N <= 1024 bf16) hold rows from 24 rows per SM on
/// (16 where the row leaves some threads without a vector, N = 1000): four
/// a block; where the block covers the row exactly (N = 1024), four up to
/// one wave of them (32 rows per SM), then, for a forward without row
/// outputs (the inference forward), four at nine blocks an SM
/// (minBlocksPerSM: the grid stays one wave) up to 36, three a block up to
/// 128 rows per SM (from 32 for a forward that writes its statistics),
/// four beyond; blocks under 128 threads keep four past the wave, except
/// RMSNorm's inference forward. A LayerNorm forward that writes its statistics
/// asks for the wave's eight blocks an SM where its registers (about 72) would
/// leave fewer, from the rows per SM those fewer blocks hold. An RMSNorm whose
/// rows the block covers exactly gives each warp a row of its own from three
/// quarters of a row per SM up to where the three-row blocks start, except
/// from 3 to 5 rows per SM (a block a row there); a LayerNorm whose block
/// has three warps (N = 768 bf16) gives each a row, three a block, from
/// three quarters of a row per SM up to 24. Where the block has three
/// warps (N = 768 bf16), blocks of one warp and one row (warp rows with
/// rowsPerBlock 1) take RMSNorm's rows from one wave of its 96-thread
/// blocks of a row (21 rows per SM) up to 24, and past one wave of the
/// four-row blocks (40 rows per SM) up to 80 (LayerNorm's from 44 up to
/// 64). LayerNorm's inference forward over ragged rows whose vectors of
/// half the width fill whole warps (N = 384 bf16: 96 vectors of 4) gives
/// each of three warps a row at that width (HeldRows::vectorWidth) from
/// three quarters of a row per SM up to 24, and holds four rows from there.
/// A two-byte forward whose blocks are wider (192-512 threads, one vector
/// of the row a thread: N = 1536-4096 bf16) holds two rows a block from
/// where a row a block would take a second wave (RMSNorm's a quarter of a
/// row per SM later where a row a block's blocks are eight or more an SM):
/// the inference forwards and RMSNorm's statistics forward (asking for a
/// row a block's blocks an SM) to the end of their streamed rows; LayerNorm's
/// forwards four rows a block where their two-row blocks take two waves and
/// four-row blocks one, past that two rows again (inference) or one
/// (statistics).
/// Below, and for every other kernel, a block takes one row.
/// `warpRows` (the warp-rows option) replaces the rule's warp rows: 1 in
/// every band whose rows the warps share out evenly or of one row (a block
/// of one warp, with no gap), 0 in none (rows below 24 per SM then take one
/// a block, the one-warp bands' rows go to the bands around them), -1 the
/// rule; a band whose layout it changes asks for no blocks per SM.
std::vector<HeldRows> chooseHeldRows(const KernelShape &shape,
                                     const DeviceInfo &device,
                                     int64_t warpRows = -1);

/// The rows of M (one row: [1, 2)) where the streamed forward of `shape`
/// gets a version of static shape whose single block spreads the row over
/// more threads (chooseOneRowLayout). Empty where the forward does not
/// stream one row or that layout is its streaming layout already.
RowRange chooseOneRowForwardRows(const KernelShape &shape,
                                 const DeviceInfo &device);

/// The rows of M where the streamed forward of `shape` loads its column
/// inputs with the row, before the reductions (norm.preload_columns on a
/// version of its own), where preloadsColumns keeps them for the output
/// pass: up to one block an SM (M <= numSMs), where no other block hides
/// the second round trip to memory. Empty where the forward does not
/// stream, does not hold its row, or preloads at every M.
RowRange choosePreloadedColumnsRows(const KernelShape &shape,
                                    const DeviceInfo &device);

/// Empty if `limit` is a valid short-rows option (-1: the rule, 0: off,
/// else the row limit), else the error.
std::string validateShortRowsLimit(int64_t limit);

/// Empty if `mode` is a valid warp-rows option (-1: the rule, 0: never, 1:
/// every band of held rows the warps share out evenly), else the error.
std::string validateWarpRows(int64_t mode);

/// The blocks of a column kernel (a norm.fused op whose outputs are all
/// column outputs, not split: norm.whole_columns) of `shape`: lanes across
/// the columns loading 16-byte vectors of the narrowest full input (of
/// vectorWidth elements), times row groups that each walk every groups()-th
/// row, unroll rows at a time. Few lanes, so that a few rows still spread
/// over enough blocks.
CombineLayout chooseColumnKernelLayout(const KernelShape &shape,
                                       const DeviceInfo &device);
/// chooseClusterLayout for a kernel: a kernel with one row reduction
/// (RMSNorm) takes twice the threads per block where the same cluster holds
/// its slices with half the elements a thread (16 registers to spare, no
/// wider slice); where no cluster keeps the rows in registers, a kernel that
/// re-reads staged rows (rereadsStagedRows: two column outputs) may still
/// take one whose blocks keep only their column accumulators in registers
/// and stage their slices in shared memory.
std::optional<RowLayout> chooseClusterLayout(const KernelShape &shape,
                                             const DeviceInfo &device);

/// A cluster layout for a backward kernel (column outputs) that re-reads
/// its staged slices (rereadStaged set) on the fewest blocks up to 8 (and
/// device.maxClusterSize) of 512 or 1024 threads, at most 32 elements a
/// thread, whose column accumulators fit the registers
/// (rereadClusterBlocksPerSM's count) and whose slices, kRereadStages deep
/// with the column inputs' copies, fit a block's shared memory; nullopt for
/// forwards or where none fits. Used where no cluster within the limit
/// keeps the row (chooseClusterLayout), and by chooseWideRereadCluster.
std::optional<RowLayout> chooseWideRereadLayout(const KernelShape &shape,
                                                const DeviceInfo &device);

/// The cluster a backward kernel (column outputs) takes instead of `layout`
/// when that one has more than 8 blocks: an H200 holds 7 clusters of 16 at
/// once, which leaves 20 of its 132 SMs idle (clusters of 4 and 8: 12).
/// Returns chooseWideRereadLayout's; nullopt where `layout` has 8 blocks or
/// fewer, for forwards, or where none fits.
/// Measured on the H200 (2026-12-01, bf16,
/// ab-2026-12-01-ln-bwd-fewer-cluster-blocks.log, ...-wide-reread-confirm.log):
/// LayerNorm backward at N = 65536 on 4 blocks of 512 threads instead of 16
/// of 256 (three per SM) +8-11% at M = 1024-4096, N = 131072 on 8 instead
/// of 16 +3-7% at M = 300-1024; RMSNorm backward at N = 131072 on 8
/// re-reading blocks instead of 16 register-resident ones +4-7% at M =
/// 512-1024. At N <= 32768, whose clusters have 8 blocks or fewer already,
/// the same wider slices lost 0-8% (ab-2026-12-01-ln-bwd-cluster-2-4.log).
/// ptxas gives the LayerNorm kernels 128 registers; the 4-8 bytes it
/// spilled outside the row loop went when their row inputs started loading
/// a row ahead (test/Target/ptx-examples.mlir).
std::optional<RowLayout> chooseWideRereadCluster(const KernelShape &shape,
                                                 const RowLayout &layout,
                                                 const DeviceInfo &device);

/// rowsFitOnChip for a kernel, with its cluster from the overload above or
/// a backward's re-reading layout of up to 8 blocks
/// (chooseWideRereadLayout) where staging `sharedStages` deep (-1: the
/// rule's depth; 0: asked off) fits: what --norm-split-rows asks, and what
/// planKernel then lays out.
bool rowsFitOnChip(const KernelShape &shape, const DeviceInfo &device,
                   int64_t sharedStages = -1);

/// Whether a forward (row reductions, no column outputs) whose rows do not
/// fit one block's registers streams them (KernelPlan::Kind::Streaming)
/// rather than spreading them over a cluster: rows up to
/// kLongStreamedRowBytes, measured (see the definition).
bool streamsLongForwardRows(const KernelShape &shape);

/// Whether a kernel with staged rows reads them from shared memory again
/// after each row reduction (with its column inputs copied to shared
/// memory once) rather than keeping them in registers: for the kernels
/// over clusters with two column outputs (LayerNorm backward), whose xhat
/// and dy * w otherwise stay live across both reductions (158-188
/// registers, one block per SM; 73-105 re-read). Measured on the H200
/// (2026-11-29, bf16, 3 staged rows re-read vs the register prefetch): +24
/// to +26% at N = 16K-64K (4096x16384 2.16 -> 2.71 TB/s); elsewhere the
/// extra shared-memory reads cost more than the registers save (RMSNorm
/// backward over clusters -13% to +1%, staged rows a block keeps whole
/// -3% to -17%, most in the LayerNorm forward).
bool rereadsStagedRows(const KernelShape &shape, const RowLayout &layout);

/// Shared memory (bytes) that `stages` staged rows of a kernel's full inputs
/// take, with one copy of its column inputs when it re-reads staged rows:
/// the whole row, or a cluster block's column slice, per input.
int64_t stagedBytes(const KernelShape &shape, const RowLayout &layout,
                    int64_t stages);

/// How many rows of a kernel's full inputs to stage in shared memory when
/// `requested` are asked for: 0 unless the kernel keeps one row per block
/// (no warp per row) or one column slice per block of a cluster, with a
/// block-wide reduction per row (whose barrier orders the reuse of a stage),
/// rows are whole 16-byte vectors (bulk copies move 16-byte multiples from
/// 16-byte aligned rows), and `requested` stages of every full input fit a
/// block's shared memory next to the reductions' buffers.
int64_t chooseSharedStages(const KernelShape &shape, const RowLayout &layout,
                           const DeviceInfo &device, int64_t requested);

/// Blocks of a planned kernel that one SM holds at once, by threads,
/// estimated registers (estimateRegisters, allocated in multiples of 8 and
/// counted in whole warps per quarter of the register file; a cluster's
/// blocks that hold their slices in registers also hold the next row's)
/// and staged shared memory; at least 1.
int64_t estimateBlocksPerSM(const KernelShape &shape, const RowLayout &layout,
                            const DeviceInfo &device);

/// Whether a split kernel with `plan` is given one wave of clusters
/// (chooseMinPartials) and hence an uncapped split: kernels over clusters
/// with column outputs.
bool splitsIntoOneWave(const KernelShape &shape, const KernelPlan &plan);

/// The fewest partial rows a split column reduction should have when M
/// allows (norm.fused min_partials; 0: none): the GPU runs one block per
/// partial row, and with the split of chooseSplitSize alone a small M
/// leaves SMs idle (M = 4097 at 64 rows per partial: 65 blocks for 132
/// SMs). Enough for one wave of up to two blocks per SM
/// (estimateBlocksPerSM), or as many as make 16 warps per SM where blocks
/// are smaller (128-thread blocks at N = 1024: four; one-warp blocks at
/// N = 256: 16, session 44: 2.0x at 65536 x 256). Measured on
/// the H200 (2026-11-29, bf16 backward): +14-27% at 4097x7168 and 4096x8192,
/// +21% RMSNorm 8192x4096, 1.8-2.9x at M = 1000-2048; two waves of a kernel
/// that fits one block per SM were 4-7% slower (8192x8192, hence the estimate).
/// Rows cut into column slices get none: their grids are slices x partial rows,
/// and at M = 512-1024 more partial rows measured 5-17% slower. `plan` is the
/// kernel's plan (planKernel): its layout, and the blocks per SM its registers
/// are capped for (min_blocks_per_sm), if more.
///
/// A split kernel over clusters instead gets one wave: min_partials = the
/// resident clusters (DeviceInfo::residentClusters) times its blocks per SM
/// (estimated, or rereadClusterBlocksPerSM; at most 3), with an uncapped
/// split (kUncappedSplit), so each cluster walks ceil(M / F) rows. Measured on the H200 (2026-11-29): split
/// 32 ran 16 clusters of 16 on 7 resident at RMS bwd 512x131072 (three
/// waves, the last of 2) and 64 clusters of 4 on 30 at 2048x32768; one
/// wave: RMS bwd +16% to +22% at N = 32K-128K, LN bwd +9% to +11%, up to
/// +70% at small M (bench/results/ab-2026-11-29-split-waves.log).
int64_t chooseMinPartials(const KernelShape &shape, const KernelPlan &plan,
                          const DeviceInfo &device);

/// The blocks per SM whose one wave chooseMinPartials fills with the
/// partial rows of a split kernel with `plan` that spans neither clusters
/// nor column slices (0 for those): its estimated blocks per SM (or
/// `plan.minBlocksPerSM`, if more), at most as many as make 16 warps or
/// two, whichever is more.
int64_t splitBlocksPerSM(const KernelShape &shape, const KernelPlan &plan,
                         const DeviceInfo &device);

/// The blocks per SM a split kernel with `plan` asks of ptxas
/// (KernelPlan::minBlocksPerSM; 0: none): splitBlocksPerSM where its
/// estimated registers fill that wave, so that a kernel whose registers
/// come out over the estimate still runs its partial rows in one wave.
int64_t chooseSplitMinBlocksPerSM(const KernelShape &shape,
                                  const KernelPlan &plan,
                                  const DeviceInfo &device);

/// Empty if `partials` is a valid min-partials option (-1: the rule, 0:
/// off, else the count), else the error.
std::string validateMinPartials(int64_t partials);

/// The fewest rows a partial row of a split kernel with `plan` sums
/// (norm.fused min_rows_per_partial; 0: no floor beyond 1). Where one wave
/// of clusters (chooseMinPartials) counts three blocks per SM, its partial
/// rows at a few hundred rows sum two or three rows each, and their
/// workspace (N f32 sums per column output, written and combined) costs
/// about as much as the rows; the floor is the rows that spread the kernel's
/// fewest rows (chooseShortRowsLimit; below it the pair runs) over one
/// cluster per cluster slot at one block per SM, so the wave of F partial
/// rows builds up from there as M grows. Measured to pay for clusters of up
/// to 4 (LayerNorm backward, N = 16384) only; 0 for clusters of 8 and more,
/// waves of fewer blocks per SM and past the short-rows range. Split
/// kernels of blocks under four warps (N = 256-768 bf16, 16 warps per SM of
/// partial rows) get a floor of four rows: at 4096 x 256 two rows a partial
/// row made the workspace cost as much as the rows (the floor yields below
/// a quarter of min_partials partial rows, norm.fused). 0 for every other
/// kernel.
int64_t chooseMinRowsPerPartial(const KernelShape &shape,
                                const KernelPlan &plan,
                                const DeviceInfo &device);

/// Empty if `rows` is a valid min-rows-per-partial option (-1: the rule, 0:
/// off, else the floor), else the error.
std::string validateMinRowsPerPartial(int64_t rows);

/// The most partial rows a split kernel with `plan` should have (norm.fused
/// max_partials; 0: none): one wave of the blocks the GPU holds at once,
/// for split kernels of one-warp blocks (N = 256 bf16: 32 blocks an SM,
/// 4224 partial rows). With split 16 (chooseSplitSize) the rows per partial
/// row are chooseMinPartials' up to F x 16 rows (33792 at N = 256) and
/// ceil(M / P) past them, where one wave of all resident blocks beat the
/// waves of F: measured on the H200 (session 44, bf16 backwards, kernel
/// time, bench/results/ab-2026-12-04-s44-one-warp-partials-large-m.log)
/// +4-5% at 49152 x 256, +5-7% at 65536, +8-15% at 98304-262144; waves of
/// F partial rows of at most 16 rows instead lost 6-13% past two waves,
/// and one wave of P at every M (with a floor of 8) lost 3-5% at 32768
/// and 14% at 1000 (RMSNorm). As built (session 45,
/// ab-2026-12-04-s45-max-partials.log): level up to 33792 rows, +4-6% at
/// 49152-65536 x 256, +10-11% at 131072 and +15% at 262144, RMSNorm and
/// LayerNorm alike. Every other kernel: 0.
int64_t chooseMaxPartials(const KernelShape &shape, const KernelPlan &plan,
                          const DeviceInfo &device);

/// Empty if `partials` is a valid max-partials option (-1: the rule, 0:
/// off, else the cap), else the error.
std::string validateMaxPartials(int64_t partials);

/// Blocks per SM of a cluster kernel that re-reads its staged slices
/// (RowLayout::rereadStaged; 0 for any other kernel): up to three, as its
/// staged slices and threads allow. Such kernels keep only their column
/// accumulators in registers (80 at 16 elements a thread), which the
/// register estimate of row-resident kernels overstates; planKernel bounds
/// the registers of those at clusters of 8 and more to match.
int64_t rereadClusterBlocksPerSM(const KernelShape &shape,
                                 const RowLayout &layout,
                                 const DeviceInfo &device);

/// The analytic staging depth where the table has none: two stages (the
/// next row lands while this one is reduced; the bulk copy engine keeps the
/// whole row in flight with no registers) for rows a block keeps whole of
/// at most 16 KB per input, when chooseSharedStages allows them and they
/// leave room for two blocks per SM. Measured on the H200 (2026-11-29,
/// bf16, 2 vs 0 stages): +6-28% for LayerNorm forward at N = 2048-8192,
/// +14% for RMSNorm forward and +11-24% for both backwards at N = 5120,
/// within 2% elsewhere at N <= 8192; -2 to -11% for longer rows and for
/// rows over clusters; those with two column outputs stage three rows and
/// re-read them (rereadsStagedRows).
int64_t defaultSharedStages(const KernelShape &shape, const RowLayout &layout,
                            const DeviceInfo &device);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_TUNING_H
