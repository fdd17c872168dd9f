//===- KernelPlan.cpp - one kernel's plan and the option checks -----------===//
//
// planKernel, the one decision a lowering asks for (kernel kind, layout,
// staging, rows per block, persistence, L2 prefetch), from a kernel's shape,
// the device and the measured table; and the checks of the pass options that
// feed the tuning rules.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Tuning/KernelPlan.h"

#include "TuningHelpers.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir::norm;
using namespace mlir::norm::detail;

/// The fewest registers a whole-column kernel's thread takes (ptxas: 35
/// for RMSNorm's dW, 54 for LayerNorm's dW and dB).
constexpr int64_t kColumnThreadRegisters = 32;

/// Rows a block of a row kernel that shuts the column blocks beside it out
/// of its SMs walks at most: at N = 12288 the 84 SMs that 48 column blocks
/// leave hold 336 rows, past the short-rows limit of 288.
constexpr int64_t kShutOutRowsPerBlock = 4;

bool mlir::norm::shutsOutColumnBlocks(const KernelShape &rows,
                                      const KernelPlan &plan,
                                      const KernelShape &columns,
                                      const DeviceInfo &device) {
  const RowLayout &layout = plan.layout;
  if (plan.kind != KernelPlan::Kind::RowResident || plan.persistent ||
      layout.rowGroups != 1 || layout.threads <= 0 || plan.rowsPerBlock <= 1)
    return false;
  int64_t columnThreads = chooseColumnKernelLayout(columns, device).threads;
  int64_t registers = allocatedRegisters(estimateRegisters(
      layout, rows.elementBytes, rows.fullOperands, rows.columnOutputs));
  return device.threadsPerSM - layout.threads < columnThreads ||
         device.registersPerSM - layout.threads * registers <
             columnThreads * kColumnThreadRegisters;
}

KernelPlan mlir::norm::planKernel(const KernelShape &shape, DeviceInfo device,
                                  const TuningTable *table,
                                  const PlanRequest &request) {
  // One block over every row has nothing to overlap its copies with.
  bool oneBlock = request.singleBlock || request.oneRow;
  int64_t sharedStages = oneBlock ? 0 : request.sharedStages;
  bool streamRows = request.streamRows;
  bool persistent = request.persistent;
  int64_t l2PrefetchRows = request.l2PrefetchRows;
  int64_t n = shape.n, elementBytes = shape.elementBytes;
  int64_t fullOperands = shape.fullOperands;
  bool hasRowReductions = shape.rowReductions > 0;
  // Groups of columns: only the row kernel lowers them (the layout keeps a
  // group's vectors on consecutive lanes), without staging, clusters or
  // streaming, and without the table, which measured kernels without groups.
  bool groups = shape.groupSize > 0;
  KernelPlan plan;
  // Rows with row reductions that one block cannot hold in registers: a
  // statistics-only kernel streams them; any other kernel spreads each row
  // over a cluster (--norm-split-rows has already taken the statistics out
  // of kernels no cluster holds).
  int64_t heldColumnOutputs = shape.onlyRowOutputs ? 0 : shape.columnOutputs;
  bool longRows = (hasRowReductions || groups) &&
                  !rowsFitInRegisters(n, elementBytes, fullOperands,
                                      heldColumnOutputs, device);
  // Rows with groups have no cluster or split to go to: the largest block
  // holds them where their full operands take at most half of its
  // registers (32 a thread): a residual add with FP8 group scales at
  // N = 16384 (64 KB of bf16, 128 KB of f32).
  constexpr int64_t kGroupRowRegisterBytes = 32 * 4;
  bool groupRowsFillBlock =
      groups && longRows &&
      n * elementBytes * fullOperands <=
          blockThreadLimit(device) * kGroupRowRegisterBytes;
  if (groupRowsFillBlock)
    longRows = false;
  std::optional<TuningChoice> tuned;
  if (table && !table->empty() && !longRows && !groups) {
    // The nearest entry whose register budget still holds this row: one
    // measured at a shorter N can leave a longer row over its budget, whose
    // layout then spills (docs/tuning.md, "Table entries").
    auto holdsRow = [&](const TuningChoice &choice) {
      if (choice.registerBudget <= 0)
        return true;
      DeviceInfo budgeted = device;
      budgeted.registerBudget = choice.registerBudget;
      return rowsFitInRegisters(n, elementBytes, fullOperands,
                                heldColumnOutputs, budgeted);
    };
    tuned = table->lookup(TuningKey{n, elementBytes, fullOperands,
                                    shape.columnOutputs, shape.rowReductions},
                          holdsRow);
    if (tuned && tuned->registerBudget > 0)
      device.registerBudget = tuned->registerBudget;
  }
  // Forwards stream their rows when asked or where the table measured it
  // faster.
  bool streamForward = streamRows || (tuned && tuned->streamRows);
  // Long forward rows just past what a block holds stream too: one wave of
  // 1024-thread blocks re-reading their row from L2 beats a cluster there.
  bool streaming =
      !groups &&
      ((longRows &&
        (shape.onlyRowOutputs || streamsLongForwardRows(shape, device))) ||
       (streamForward && hasRowReductions && shape.columnOutputs == 0));
  std::optional<RowLayout> cluster;
  if (longRows && !streaming && !groups)
    cluster = chooseClusterLayout(shape, device);
  // No cluster within the limit keeps the row: a backward may still
  // re-read staged slices over up to 8 blocks (as rowsFitOnChip counts),
  // e.g. N = 131072 at --max-cluster-size=8.
  if (longRows && !streaming && !cluster && !groups)
    cluster = stagedClusterFallback(shape, device, sharedStages);
  if (longRows && !streaming && !cluster) {
    plan.kind = KernelPlan::Kind::OffChip;
    return plan;
  }
  // Staging depth: the request, else the table's, else the rule.
  auto stagesFor = [&](const RowLayout &layout) {
    if (sharedStages >= 0)
      return chooseSharedStages(shape, layout, device, sharedStages);
    if (tuned && tuned->sharedStages >= 0)
      return chooseSharedStages(shape, layout, device, tuned->sharedStages);
    return defaultSharedStages(shape, layout, device);
  };
  if (groups) {
    plan.kind = KernelPlan::Kind::RowResident;
    bool subWarpRows = ceilDiv(n, chooseVectorWidth(n, elementBytes)) <= 16;
    plan.layout = chooseGroupRowLayout(
        n, elementBytes, fullOperands, device, shape.groupSize,
        /*allowRowGroups=*/shape.columnOutputs == 0 || subWarpRows);
    // Such rows take every register of the block: no next row prefetched
    // into registers beside them (ptxas spilled with it).
    if (groupRowsFillBlock) {
      plan.layout.threads = blockThreadLimit(device);
      plan.layout.chunksPerThread =
          ceilDiv(ceilDiv(n, plan.layout.vectorWidth), plan.layout.threads);
      plan.numStages = 1;
    }
  } else if (streaming) {
    plan.kind = KernelPlan::Kind::Streaming;
    plan.layout = chooseStreamingLayout(n, elementBytes, device,
                                        request.vectorWidth, fullOperands);
    // Where the layout cannot, the request is left unmet: the caller sees
    // a layout without RowLayout::warpRows and reports it.
    if (request.warpRows)
      if (std::optional<RowLayout> warps =
              warpRowsLayout(plan.layout, request.warpRowsPerBlock))
        plan.layout = *warps;
  } else if (cluster) {
    plan.kind = KernelPlan::Kind::Cluster;
    plan.layout = *cluster;
    plan.layout.sharedStages = stagesFor(plan.layout);
    plan.layout.rereadStaged =
        plan.layout.sharedStages > 0 && rereads(shape, plan.layout);
    // Clusters of 16 leave SMs idle: fewer, wider blocks re-reading staged
    // slices, unless asked not to stage.
    if (std::optional<RowLayout> wide =
            chooseWideRereadCluster(shape, plan.layout, device)) {
      int64_t stages = stagesFor(*wide);
      if (stages > 0) {
        plan.layout = *wide;
        plan.layout.sharedStages = stages;
      }
    }
    // Re-reading clusters hold only their column accumulators: ptxas -v
    // gave 80 registers at 16 elements a thread (N = 16K-64K), three blocks
    // per SM, except at clusters of 16 (118: the peers' totals), which the
    // bound (.minnctapersm 3) holds to 80 with no spills. At clusters of 4
    // the bound made ptxas spill 4 bytes, so smaller clusters get none.
    if (rereadClusterBlocksPerSM(shape, plan.layout, device) == 3 &&
        plan.layout.clusterSize >= 8)
      plan.minBlocksPerSM = 3;
  } else if (hasRowReductions) {
    // Kernels with column outputs keep a warp or more a block, except rows
    // that half a warp covers (at most 16 vectors: bf16 N <= 128), whose
    // lanes would otherwise idle: there the block's row groups add their
    // column sums into one partial row. Rows of 17-31 vectors take a warp
    // either way, and lost with row groups (bf16 N = 200: 0.89x).
    // Evidence: docs/tuning.md, chooseRowLayout.
    bool subWarpRows = ceilDiv(n, chooseVectorWidth(n, elementBytes)) <= 16;
    plan.layout = chooseRowLayout(n, elementBytes, fullOperands, device,
                                  /*allowRowGroups=*/shape.columnOutputs == 0 ||
                                      subWarpRows);
    plan.layout.sharedStages = stagesFor(plan.layout);
  } else {
    plan.kind = KernelPlan::Kind::Sliced;
    plan.layout = chooseSlicedLayout(n, elementBytes, fullOperands, device);
  }
  if (request.oneRow && !groups &&
      (streaming || plan.kind == KernelPlan::Kind::RowResident))
    plan.layout = chooseOneRowLayout(plan.layout, n, device);
  if (streaming) {
    plan.layout.storesEarlyOutputs =
        chooseEarlyOutputStores(shape, plan.layout);
    plan.layout.sweepsPerStep = chooseStreamSweeps(shape, plan.layout);
  }
  if (!streaming)
    plan.rowsPerBlock = chooseResidualAddRows(
        shape, tuned && tuned->rowsPerBlock > 0
                   ? tuned->rowsPerBlock
                   : chooseRowsPerBlock(n, elementBytes, device));
  else
    plan.rowsPerBlock = 1;
  if (tuned) {
    plan.numStages = tuned->numStages;
    plan.minBlocksPerSM = tuned->minBlocksPerSM;
  }
  // Rows of a fraction of a warp walk as the rule says, unless the table
  // measured this N: an entry of another N was measured with a block a row.
  if (RowGroupWalk walk =
          chooseRowGroupWalk(plan.layout, shape.columnOutputs, shape.groupSize);
      walk.rowsPerBlock > 0 && !streaming && !(tuned && tuned->entryN == n)) {
    plan.rowsPerBlock = walk.rowsPerBlock;
    plan.numStages = walk.numStages;
    plan.minBlocksPerSM = 0;
  }
  if (plan.minBlocksPerSM == 0 && streaming)
    plan.minBlocksPerSM =
        chooseStreamingMinBlocksPerSM(shape, plan.layout, device);
  // Staged rows are issued by their contiguous index, so only a register-
  // prefetching kernel walks strided rows.
  plan.persistent = persistent && plan.kind == KernelPlan::Kind::Cluster &&
                    shape.columnOutputs == 0 && plan.layout.sharedStages == 0;
  if (plan.persistent)
    plan.rowsPerBlock = 1;
  // The bulk prefetch (Hopper's) moves whole rows (multiples of 16 bytes),
  // from kernels that stage their rows or stream them a row per block.
  bool prefetchable =
      device.hasBulkCopies() &&
      (plan.layout.sharedStages > 0 ||
       plan.kind == KernelPlan::Kind::Streaming || plan.persistent) &&
      n * elementBytes % 16 == 0 &&
      plan.layout.sliceWidth() * elementBytes % 16 == 0;
  if (prefetchable) {
    plan.layout.l2PrefetchRows =
        l2PrefetchRows >= 0 ? l2PrefetchRows
                            : chooseL2PrefetchRows(shape, plan, device);
    plan.layout.l2PrefetchMinRows = chooseL2PrefetchMinRows(plan);
    // A version below those rows (norm.rows_below) would only test M
    // against them, and its dead prefetch code would still cost each block
    // some 40 instructions before its loads (docs/tuning.md,
    // "chooseL2PrefetchMinRows").
    if (request.rowsBelow > 0 && plan.layout.l2PrefetchMinRows > 0 &&
        request.rowsBelow <= plan.layout.l2PrefetchMinRows)
      plan.layout.l2PrefetchRows = plan.layout.l2PrefetchMinRows = 0;
  }
  // Bulk stores: the request, else the table's measurement, else the rule.
  int64_t bulkStores = oneBlock || groups ? 0 : request.bulkStores;
  if (bulkStores < 0 && tuned)
    bulkStores = tuned->bulkStores;
  plan.layout.bulkStores = chooseBulkStores(shape, plan, device, bulkStores);
  const KernelShape *besideColumns =
      request.besideColumns ? &*request.besideColumns : nullptr;
  // A row kernel that shuts the column blocks out of its SMs walks up to
  // kShutOutRowsPerBlock rows a block, so that its rows still fit the SMs
  // the column blocks leave (chooseMinBlocks) up to the short-rows limit.
  if (besideColumns &&
      shutsOutColumnBlocks(shape, plan, *besideColumns, device))
    plan.rowsPerBlock = std::max(plan.rowsPerBlock, kShutOutRowsPerBlock);
  // A row kernel beside the column kernel over a cluster (N = 65536-131072:
  // 32 elements of x and dy a thread) prefetches no next row into registers:
  // ptxas spilled 52-68 bytes at 128 registers with it, none without; it runs
  // below the short-rows limit, a few rows a cluster.
  if (besideColumns && plan.kind == KernelPlan::Kind::Cluster)
    plan.numStages = 1;
  // A split kernel asks ptxas for the blocks its partial rows assume
  // (chooseSplitMinBlocksPerSM), except where the table measured this N:
  // its kernel ran as ptxas made it unbounded (RMSNorm's backward at
  // N = 4096 fills its wave at 64 registers and got them).
  bool measuredHere = tuned && tuned->entryN == n;
  if (shape.columnOutputs > 0 && plan.minBlocksPerSM == 0 && !request.oneRow &&
      !measuredHere)
    plan.minBlocksPerSM = chooseSplitMinBlocksPerSM(shape, plan, device);
  plan.minBlocks = chooseMinBlocks(shape, plan, device, besideColumns);
  return plan;
}

int64_t mlir::norm::chooseStreamingMinBlocksPerSM(const KernelShape &shape,
                                                  const RowLayout &layout,
                                                  const DeviceInfo &device) {
  // A held row of two vectors a thread with its weight preloaded gets the
  // blocks its threads allow an SM, which ptxas would cut by one for a few
  // registers more and so take a second wave; four vectors a thread would
  // spill at that bound and keep what ptxas chooses (docs/tuning.md).
  if (layout.chunksPerThread != 2 || layout.rowGroups != 1 ||
      layout.threads <= 0 || !preloadsColumns(shape, layout, 1))
    return 0;
  return device.threadsPerSM / layout.threads;
}

int64_t mlir::norm::chooseMinBlocks(const KernelShape &shape,
                                    const KernelPlan &plan,
                                    const DeviceInfo &device,
                                    const KernelShape *besideColumns) {
  // Up to 8 rows per SM a block per row beats the rule's few rows a block
  // (more blocks hide more latency); past that a block's second staged row
  // is worth more (docs/tuning.md, "chooseMinBlocks"). Blocks of row groups
  // of one vector a lane (chooseRowGroupWalk) spread M the same way, a row
  // a group at least: up to 8 blocks per SM their four-row walk lost to
  // shorter ones.
  constexpr int64_t kRowsPerSM = 8;
  bool walkedGroups =
      chooseRowGroupWalk(plan.layout, shape.columnOutputs, shape.groupSize)
          .rowsPerBlock > 0;
  if (shape.columnOutputs > 0 || shape.onlyRowOutputs || plan.persistent ||
      (plan.layout.rowGroups != 1 && !walkedGroups) || plan.rowsPerBlock <= 1 ||
      plan.kind != KernelPlan::Kind::RowResident)
    return 0;
  // Beside a column kernel, a row block that fills its SM shuts the column
  // blocks out of it: the row kernel then takes a block for each SM the
  // column blocks leave (docs/tuning.md, "chooseMinBlocks").
  if (besideColumns &&
      shutsOutColumnBlocks(shape, plan, *besideColumns, device))
    return std::max<int64_t>(1, device.numSMs -
                                    columnKernelBlocks(*besideColumns, device));
  return kRowsPerSM * device.numSMs;
}

int64_t mlir::norm::chooseL2PrefetchRows(const KernelShape &shape,
                                         const KernelPlan &plan,
                                         const DeviceInfo &device) {
  // Forwards ask L2 for the rows about 4 MB of inputs ahead, so that a
  // block that starts later finds its first rows there; farther ahead they
  // are evicted again, and split kernels, whose stages already keep
  // several MB in flight, get none (docs/tuning.md, "L2 prefetch").
  constexpr int64_t kAheadBytes = 4 << 20;
  if (shape.columnOutputs > 0 || shape.onlyRowOutputs)
    return 0;
  // A streamed forward that stores its early outputs (the residual add's h)
  // reads them back from L2, where the prefetched rows of its inputs evicted
  // them: without the prefetch RMSNorm's fused add 1.17x, LayerNorm's 1.10x
  // (docs/tuning.md, "L2 prefetch").
  if (plan.layout.storesEarlyOutputs)
    return 0;
  int64_t rowBytes = shape.n * shape.elementBytes * shape.fullOperands;
  if (plan.persistent) {
    // A persistent forward over clusters walks its rows strided by the
    // grid (G clusters, one row each per step) and holds the next row of
    // its walk in registers: its prefetch counts steps, one past the
    // register prefetch (G rows, about 4 MB at N = 64K-128K).
    int64_t stepBytes =
        device.residentClusters(plan.layout.clusterSize) * rowBytes;
    return 1 +
           std::max<int64_t>(1, kAheadBytes / std::max<int64_t>(stepBytes, 1));
  }
  if (plan.layout.clusterSize > 1)
    return 0;
  return std::max<int64_t>(1, ceilDiv(kAheadBytes, rowBytes));
}

int64_t mlir::norm::chooseL2PrefetchMinRows(const KernelPlan &plan) {
  // Below three prefetch distances of rows the blocks that would find
  // their rows in L2 are few and the prefetch only delays the first rows'
  // own loads (docs/tuning.md, "chooseL2PrefetchMinRows").
  constexpr int64_t kDistances = 3;
  if (plan.kind != KernelPlan::Kind::Streaming ||
      plan.layout.l2PrefetchRows <= 0)
    return 0;
  return kDistances * plan.layout.l2PrefetchRows;
}

std::string mlir::norm::validateL2PrefetchRows(int64_t rows) {
  // Rows ahead past the bound are none of M's, and their multiples
  // (chooseL2PrefetchMinRows) would overflow.
  if (rows < -1 || rows > kMaxRowCountOption)
    return "l2-prefetch-rows must be -1 (the tuning rule), 0 (off) or a "
           "number of rows ahead up to " +
           std::to_string(kMaxRowCountOption) + ", got " + std::to_string(rows);
  return {};
}

std::string mlir::norm::validateClusterSize(int64_t size) {
  if (size < 1 || size > 16 || (size & (size - 1)) != 0)
    return "max-cluster-size must be 1, 2, 4, 8 or 16 (Hopper clusters hold "
           "at most 16 blocks), got " +
           std::to_string(size);
  return {};
}

std::string mlir::norm::validateSharedStages(int64_t stages) {
  if (stages < -1 || stages > 4)
    return "shared-stages must be -1 (the tuning table, else the rule), 0 "
           "(off) or 1 to 4, got " +
           std::to_string(stages);
  return {};
}

std::string mlir::norm::validateSplitSize(int64_t split) {
  if (split <= 0)
    return "split size must be a positive number of rows, got " +
           std::to_string(split);
  return {};
}

std::string mlir::norm::validatePlan(const KernelShape &shape,
                                     const KernelPlan &plan,
                                     const DeviceInfo &device) {
  using Kind = KernelPlan::Kind;
  const RowLayout &layout = plan.layout;
  auto str = [](int64_t v) { return std::to_string(v); };
  if (plan.kind == Kind::OffChip)
    return "rows of " + str(shape.n) + " elements fit no kernel";
  if (layout.threads < 32 || layout.threads % 32 != 0 ||
      layout.threads > device.maxThreadsPerBlock)
    return "a block of " + str(layout.threads) +
           " threads is not whole warps up to the target's " +
           str(device.maxThreadsPerBlock);
  if (layout.vectorWidth < 1 || shape.n % layout.vectorWidth != 0 ||
      layout.vectorWidth * shape.elementBytes > 16)
    return "vectors of " + str(layout.vectorWidth) +
           " elements must divide the row of " + str(shape.n) +
           " and hold at most 16 bytes";
  // A block group needs no cluster hardware: any target takes one of up
  // to kMaxBlockGroupSize blocks.
  if (layout.globalExchange &&
      (layout.clusterSize > kMaxBlockGroupSize || layout.sharedStages > 0))
    return "a block group of " + str(layout.clusterSize) +
           " blocks must have at most " + str(kMaxBlockGroupSize) +
           " and hold its slices in registers (no staged rows)";
  // One lane of warp 0 waits for each block's total of each reduction.
  if (layout.globalExchange && layout.clusterSize * shape.rowReductions > 32)
    return "a block group of " + str(layout.clusterSize) + " blocks with " +
           str(shape.rowReductions) +
           " row reductions exchanges more totals than a warp has lanes "
           "(32)";
  if ((!layout.globalExchange && layout.clusterSize > device.maxClusterSize) ||
      (layout.clusterSize > 1) != (plan.kind == Kind::Cluster))
    return "a cluster of " + str(layout.clusterSize) +
           " blocks needs a plan of kind cluster within the target's " +
           str(device.maxClusterSize);
  if (!device.hasBulkCopies() &&
      (layout.sharedStages > 0 || layout.bulkStores ||
       layout.l2PrefetchRows > 0))
    return "staged rows, bulk stores and the bulk L2 prefetch need the bulk "
           "copies of compute capability " +
           str(kHopperCapability) + " or newer; the target's is " +
           str(device.computeCapability);
  // Row groups are aligned groups of lanes that shuffle among themselves.
  if (layout.rowGroups < 1 || layout.threads % layout.rowGroups != 0 ||
      (layout.rowGroups > 1 &&
       (layout.threadsPerRow() > 32 ||
        !llvm::isPowerOf2_64(static_cast<uint64_t>(layout.threadsPerRow())))))
    return str(layout.rowGroups) + " row groups of a block of " +
           str(layout.threads) +
           " threads must each be a power of two of at most 32 threads";
  if (layout.warpRows && (plan.kind != Kind::Streaming || !layout.holdsRow))
    return "warp rows need a streamed kernel that holds its row";
  if (layout.storesEarlyOutputs && (plan.kind != Kind::Streaming ||
                                    layout.holdsRow || shape.earlyOutputs == 0))
    return "storing early outputs needs a streamed kernel that re-reads its "
           "row and an output computed from the elements alone";
  int64_t covered =
      layout.sliceWidth() * std::max(layout.columnSlices, layout.clusterSize);
  // A thread's chunks are unrolled: one wholly past the row is code without
  // elements (and a hand-written plan's millions of them would not finish).
  int64_t chunkWidth = layout.threadsPerRow() * layout.vectorWidth;
  if (layout.chunksPerThread > 1 &&
      (layout.chunksPerThread - 1) * chunkWidth >= shape.n)
    return str(layout.chunksPerThread) + " chunks a thread, " +
           str(chunkWidth) + " elements each, go past the row's " +
           str(shape.n) + " elements";
  if (plan.kind == Kind::Streaming) {
    int64_t sweeps = ceilDiv(shape.n, layout.sliceWidth());
    if (layout.sweepsPerStep < 1 || sweeps % layout.sweepsPerStep != 0)
      return str(layout.sweepsPerStep) + " sweeps a step must divide the " +
             str(sweeps) + " sweeps of the row";
  } else if (covered < shape.n) {
    return str(layout.threadsPerRow()) + " threads of " +
           str(layout.elementsPerThread()) + " elements in " +
           str(std::max(layout.columnSlices, layout.clusterSize)) +
           " slices cover " + str(covered) + " of the row's " + str(shape.n) +
           " elements";
  }
  return "";
}

std::string mlir::norm::validateGroupPlan(const KernelShape &shape,
                                          const KernelPlan &plan) {
  using Kind = KernelPlan::Kind;
  const RowLayout &layout = plan.layout;
  auto str = [](int64_t v) { return std::to_string(v); };
  // A group's vectors are consecutive lanes of one chunk: an aligned power
  // of two of lanes within a warp, or whole warps.
  int64_t group = shape.groupSize;
  if (group <= 0)
    return "";
  if (plan.kind != Kind::RowResident || layout.sharedStages > 0 ||
      layout.bulkStores || layout.columnSlices > 1)
    return "groups of columns are lowered by row-resident kernels without "
           "staging, bulk stores or column slices";
  if (group % layout.vectorWidth != 0)
    return "vectors of " + str(layout.vectorWidth) +
           " elements must divide the group of " + str(group);
  int64_t lanes = group / layout.vectorWidth;
  if (!llvm::isPowerOf2_64(static_cast<uint64_t>(lanes)))
    return "a group of " + str(group) + " elements is " + str(lanes) +
           " vectors of " + str(layout.vectorWidth) +
           "; the GPU lowering reduces groups of a power of two of vectors";
  if (layout.threadsPerRow() % lanes != 0)
    return "a row's " + str(layout.threadsPerRow()) +
           " threads must be a multiple of a group's " + str(lanes) +
           " vectors";
  return "";
}
