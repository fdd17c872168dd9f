//===- KernelPlan.h - layout and launch plan of a kernel --------*- C++ -*-===//
//
// planKernel, the layout decision of convert-norm-to-gpu, what callers may
// ask of it, and the launch choices that follow from a plan.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_KERNEL_PLAN_H
#define NORMDIALECT_TUNING_KERNEL_PLAN_H

#include "NormDialect/Tuning/KernelShape.h"
#include "NormDialect/Tuning/RowLayouts.h"
#include "NormDialect/Tuning/TuningTable.h"

#include <limits>
#include <optional>
#include <string>

namespace mlir::norm {

/// Returns an empty string when `size` is a usable largest cluster size (1,
/// 2, 4, 8 or 16 blocks), else why not.
std::string validateClusterSize(int64_t size);

/// Returns an empty string when `split` is a usable split size, else why not.
std::string validateSplitSize(int64_t split);

/// Returns an empty string when `stages` is a usable shared-stages option
/// (-1: the tuning table, else the rule; 0: off; 1 to 4), else why not.
std::string validateSharedStages(int64_t stages);

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
    /// Rows with row reductions that neither a block nor a cluster holds
    /// and that no streamed kernel takes: no kernel exists; the caller
    /// refuses the op (--norm-split-rows takes such rows apart first).
    OffChip,
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
  /// GPU at once (bundle launch "persistent"); any G is correct. For forwards
  /// over clusters (no column partials, rows not staged), where a grid of
  /// ceil(M / rows per block) clusters leaves a partial last wave. Evidence:
  /// docs/tuning.md, KernelPlan::persistent.
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
  /// Experimental.
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

/// Empty when the kernel generators can lower a kernel of `shape` with
/// `plan` on `device`, else why not: a kernel exists (not off chip), its
/// block is whole warps within the device's limit, its vectors divide the
/// row and are at most 16 bytes, its threads (with the cluster's blocks or
/// the column slices) cover the row, a streamed kernel's steps divide its
/// sweeps, and warp rows are a streamed kernel's. Every plan planKernel
/// makes passes; convert-norm-to-gpu checks the plan it is given (written
/// by hand or by an older pass) with it.
std::string validatePlan(const KernelShape &shape, const KernelPlan &plan,
                         const DeviceInfo &device);

/// Returns an empty string when the GPU lowering lowers `plan`'s groups of
/// columns (shape.groupSize): a row-resident kernel without staging, bulk
/// stores or column slices whose groups are a power of two of vectors, a
/// row's threads a multiple of them. Else why not. The CPU lowering takes
/// any group; only convert-norm-to-gpu asks.
std::string validateGroupPlan(const KernelShape &shape, const KernelPlan &plan);

/// How far ahead a forward prefetches its full inputs into L2
/// (RowLayout::l2PrefetchRows), 0 for none (backwards: measured slower;
/// streamed forwards that store early outputs: the prefetch evicts them):
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

/// The largest count of rows or partial rows a pass option may give
/// (rows-per-block, l2-prefetch-rows, min-partials, max-partials,
/// min-rows-per-partial), and of any count in a #norm.plan: 2^31 - 1, so
/// that the rules' sums and small multiples of it with a row count stay
/// within 64 bits.
constexpr int64_t kMaxRowCountOption = std::numeric_limits<int32_t>::max();

/// Empty if `rows` is a valid l2-prefetch-rows option (-1: the rule, 0:
/// off, else rows ahead, up to 2^31 - 1), else the error.
std::string validateL2PrefetchRows(int64_t rows);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_KERNEL_PLAN_H
