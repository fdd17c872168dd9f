//===- ClusterLayouts.cpp - rows spread over thread block clusters --------===//
//
// Rows too long for one block: the cluster that holds a row in registers
// (chooseClusterLayout), the wide clusters that stage their slices and read
// them again after each reduction (chooseWideRereadLayout), and whether a row
// fits on chip at all (rowsFitOnChip).
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Tuning/ClusterLayouts.h"

#include "TuningHelpers.h"

#include "llvm/ADT/bit.h"

#include <algorithm>

using namespace mlir::norm;
using namespace mlir::norm::detail;

/// The cluster search of chooseClusterLayout: fewest blocks first (each
/// exchange of block totals waits for the slowest block), then fewest
/// threads that hold the slice (more work per thread means more loads in
/// flight per instruction stream), up to `maxChunks` vectors a thread, every
/// slice starting inside the row, and `fits(layout, registers a thread may
/// use at that block size)`. Blocks of 256, 512 or 1024 threads; with
/// `anyWarpCount`, instead, any multiple of 32 threads from 256 on that
/// covers the slice with 1..maxChunks vectors a thread (slices of ragged
/// rows such as N = 40000, which whole powers of two overshoot so far that
/// the last slice starts outside the row).
template <typename Fits>
static std::optional<RowLayout>
searchClusterLayouts(int64_t n, int64_t elementBytes, int64_t maxChunks,
                     const DeviceInfo &device, Fits fits,
                     bool anyWarpCount = false) {
  int64_t vectorWidth = chooseVectorWidth(n, elementBytes);
  int64_t vectors = ceilDiv(n, vectorWidth);
  int64_t limit = blockThreadLimit(device);
  for (int64_t cluster = 2; cluster <= device.maxClusterSize; cluster *= 2) {
    int64_t sliceVectors = ceilDiv(vectors, cluster);
    // Candidate block sizes, fewest threads first.
    std::vector<int64_t> candidates;
    if (!anyWarpCount) {
      for (int64_t threads = 256; threads <= limit; threads *= 2)
        candidates.push_back(threads);
    } else {
      for (int64_t chunks = maxChunks; chunks >= 1; --chunks) {
        int64_t threads = ceilDiv(ceilDiv(sliceVectors, chunks), 32) * 32;
        if (threads >= 256 && threads <= limit &&
            (candidates.empty() || candidates.back() != threads))
          candidates.push_back(threads);
      }
    }
    for (int64_t threads : candidates) {
      int64_t chunks = ceilDiv(sliceVectors, threads);
      if (chunks > maxChunks)
        continue;
      RowLayout layout;
      layout.vectorWidth = vectorWidth;
      layout.threads = threads;
      layout.chunksPerThread = chunks;
      layout.columnSlices = cluster;
      layout.clusterSize = cluster;
      // Registers a thread may use at one block per SM, as ptxas counts
      // them (registerLimit: 168 at 320 threads, not 65536 / 320). No
      // slack for the layouts other than powers of two: the RMSNorm
      // backward at N = 40000 with 320 threads x 32 elements (estimate
      // 192) that once called for it spilled 276 bytes at ptxas's 168, not
      // at the 200 the file's share had promised.
      int64_t registers = registerLimit(threads, device);
      if (!fits(layout, registers))
        continue;
      // Every slice must start inside the row.
      if (layout.sliceWidth() * (cluster - 1) >= n)
        continue;
      return layout;
    }
  }
  return std::nullopt;
}

/// Vectors a thread of a cluster kernel may hold: `budgetFactor` times the
/// register budget. A cluster kernel runs one block per SM, so registers up to
/// the file's share per thread cost no occupancy, and fewer threads with more
/// elements each reduce faster. Evidence: docs/tuning.md, clusterChunks.
static int64_t clusterChunks(int64_t n, int64_t elementBytes,
                             int64_t fullOperands, const DeviceInfo &device,
                             int64_t budgetFactor) {
  return chunksWithin(
      elementsPerOperand(budgetFactor * device.registerBudget, fullOperands),
      chooseVectorWidth(n, elementBytes));
}

/// The register-resident cluster with at most `budgetFactor` x the budget
/// of elements a thread (chooseClusterLayout), its estimated registers
/// `slack` below the limit.
static std::optional<RowLayout>
registerResidentCluster(int64_t n, int64_t elementBytes, int64_t fullOperands,
                        int64_t columnOutputs, const DeviceInfo &device,
                        int64_t budgetFactor, int64_t slack = 0) {
  auto fits = [&](const RowLayout &layout, int64_t registers) {
    // Every column output also keeps an f32 operand live across the row
    // reductions (xhat, dy * w): count it twice, so that slices at the edge
    // of the register file go to more blocks instead of spilling (ptxas:
    // LayerNorm backward, N = 131072, 32 elements a thread: 255 registers
    // and 40 bytes of spills; checked in test/Target).
    return estimateRegisters(layout, elementBytes, fullOperands,
                             2 * columnOutputs) +
               slack <=
           registers;
  };
  int64_t maxChunks =
      clusterChunks(n, elementBytes, fullOperands, device, budgetFactor);
  // Powers of two first (what every measured layout uses); other warp
  // counts only where none fits.
  if (std::optional<RowLayout> layout =
          searchClusterLayouts(n, elementBytes, maxChunks, device, fits))
    return layout;
  return searchClusterLayouts(n, elementBytes, maxChunks, device, fits,
                              /*anyWarpCount=*/true);
}

std::optional<RowLayout>
mlir::norm::chooseClusterLayout(int64_t n, int64_t elementBytes,
                                int64_t fullOperands, int64_t columnOutputs,
                                const DeviceInfo &device) {
  // Four-byte rows of two full operands (a backward's dx kernel at short
  // M: x and dy) come out of ptxas over the estimate, so they keep 16
  // registers spare: at N = 20736-24576 f32, 2 x 512 threads of 24 floats
  // each, estimated at exactly the 128 of 512 threads, spilled 84-112 bytes;
  // with the slack, 4 x 512 (RMSNorm) or 4 x 256 (LayerNorm) and no spills,
  // 1.00-1.22x at 16-180 rows (H200, kernel time, 3 rounds).
  int64_t slack = elementBytes == 4 && fullOperands >= 2 ? 16 : 0;
  return registerResidentCluster(n, elementBytes, fullOperands, columnOutputs,
                                 device, /*budgetFactor=*/2, slack);
}

/// chooseClusterLayout(shape, device) on a target with clusters.
static std::optional<RowLayout>
chooseHardwareCluster(const KernelShape &shape, const DeviceInfo &device) {
  if (std::optional<RowLayout> layout =
          chooseClusterLayout(shape.n, shape.elementBytes, shape.fullOperands,
                              shape.columnOutputs, device)) {
    // One row reduction per row (RMSNorm) exchanges totals across the cluster
    // once per row, so the fewest threads per element buy less than the warps
    // they cost: where the same cluster holds the row with half the elements a
    // thread, it takes twice the threads. A four-byte LayerNorm forward holds
    // its weight and bias beside the row (registers estimateRegisters does not
    // count): at twice the budget its clusters took 255 registers and spilled
    // 88-224 bytes (N = 32K-128K), where bf16's absorb them. (Forwards only,
    // one full input: a backward's dx kernel was not measured.) Evidence:
    // docs/tuning.md, clusterChunks.
    bool fourByteLayerNormForward =
        shape.elementBytes == 4 && shape.rowReductions == 2 &&
        shape.columnOutputs == 0 && shape.fullOperands == 1;
    // A forward with a prologue (the residual add) keeps its sum beside the
    // loaded inputs: at twice the budget its clusters took the 128
    // registers of 512 threads and spilled 56-216 bytes (bf16, N =
    // 65536-131072); at the budget none spill. Evidence: docs/tuning.md,
    // clusterChunks.
    bool prologueForward = isForward(shape) && shape.fullOperands > 1;
    if (!fourByteLayerNormForward && !prologueForward &&
        shape.rowReductions != 1)
      return layout;
    std::optional<RowLayout> atBudget = registerResidentCluster(
        shape.n, shape.elementBytes, shape.fullOperands, shape.columnOutputs,
        device, /*budgetFactor=*/1, /*slack=*/16);
    if (!atBudget)
      return layout;
    if (fourByteLayerNormForward || prologueForward)
      return atBudget;
    // RMSNorm: the same cluster, and no wider slice (a ragged N = 40000
    // would cut into 3 x 12288 + 3136 columns instead of 3 x 10240 + 9280).
    if (atBudget->clusterSize == layout->clusterSize &&
        atBudget->sliceWidth() <= layout->sliceWidth())
      return atBudget;
    return layout;
  }
  if (shape.columnOutputs < 2)
    return std::nullopt;
  // A kernel that re-reads its staged rows (rereadsStagedRows) holds only
  // its column accumulators and temporaries across the row reductions, not
  // the row: such a cluster holds rows no register-resident one does
  // (LayerNorm backward at N = 131072: 16 blocks of 256 threads, 32
  // elements a thread), where the staged slices fit shared memory. The
  // estimate has no row operands but 16 more registers for the shared
  // memory addressing: ptxas -v gave 176 registers at 32 elements a thread
  // (N = 131072, estimate 160) and 128 with 12 bytes of spills at 24 with
  // 512 threads (N = 40000, estimate 128, now rejected).
  constexpr int64_t rereadAddressing = 16;
  return searchClusterLayouts(
      shape.n, shape.elementBytes,
      clusterChunks(shape.n, shape.elementBytes, shape.fullOperands, device,
                    /*budgetFactor=*/2),
      device, [&](const RowLayout &layout, int64_t registers) {
        return estimateRegisters(layout, shape.elementBytes,
                                 /*fullOperands=*/0, shape.columnOutputs) +
                       rereadAddressing <=
                   registers &&
               chooseSharedStages(shape, layout, device, kRereadStages) ==
                   kRereadStages;
      });
}

std::optional<RowLayout>
mlir::norm::chooseClusterLayout(const KernelShape &shape,
                                const DeviceInfo &device) {
  if (device.hasClusters())
    return chooseHardwareCluster(shape, device);
  // Without clusters a kernel with column outputs and one row reduction
  // (RMSNorm's backward) shares its rows over a block group, the layout a
  // cluster would have, instead of splitting them into a statistics kernel
  // and a second pass over memory: 0.79-0.96x of Hopper's clusters on the
  // H100 at N = 16384-131072, where the split ran 0.63-0.66x. LayerNorm's
  // backward (two reductions, whose registers leave 16 blocks of 256
  // threads, one an SM) ran 0.55-0.69x over groups, no better than split
  // (docs/tuning.md, "Block groups"). Forwards stream their long rows
  // (streamsLongForwardRows).
  if (shape.columnOutputs == 0 || shape.rowReductions != 1)
    return std::nullopt;
  // A group's blocks wait for each other, so all of them must fit the GPU
  // at once at one block an SM (an A100's MIG slice has 14 SMs).
  DeviceInfo groups = device;
  groups.maxClusterSize = static_cast<int64_t>(llvm::bit_floor(
      static_cast<uint64_t>(std::min(kMaxBlockGroupSize, device.numSMs))));
  if (groups.maxClusterSize < 2)
    return std::nullopt;
  std::optional<RowLayout> layout = chooseHardwareCluster(shape, groups);
  // Staged slices need Hopper's bulk copies.
  if (!layout || layout->rereadStaged)
    return std::nullopt;
  layout->globalExchange = true;
  return layout;
}

/// Registers a thread of a block that re-reads its staged rows holds: the
/// f32 column accumulators and about 48 for addressing and temporaries
/// (ptxas -v: 80 at 16 elements a thread, two column outputs).
int64_t mlir::norm::detail::rereadRegisters(const KernelShape &shape,
                                            const RowLayout &layout) {
  return shape.columnOutputs * layout.elementsPerThread() + 48;
}

/// Whether `layout` re-reads its staged rows: marked so (a wide re-reading
/// cluster, chooseWideRereadCluster) or by the rule (rereadsStagedRows).
bool mlir::norm::detail::rereads(const KernelShape &shape,
                                 const RowLayout &layout) {
  return layout.rereadStaged || rereadsStagedRows(shape, layout);
}

std::optional<RowLayout>
mlir::norm::chooseWideRereadLayout(const KernelShape &shape,
                                   const DeviceInfo &device) {
  constexpr int64_t minThreads = 512, maxElements = 32;
  if (shape.columnOutputs == 0)
    return std::nullopt;
  DeviceInfo fewer = device;
  fewer.maxClusterSize = std::min(kWideRereadMaxBlocks, device.maxClusterSize);
  int64_t vectorWidth = chooseVectorWidth(shape.n, shape.elementBytes);
  std::optional<RowLayout> wide = searchClusterLayouts(
      shape.n, shape.elementBytes,
      std::max<int64_t>(1, maxElements / vectorWidth), fewer,
      [&](const RowLayout &candidate, int64_t registers) {
        RowLayout staged = candidate;
        staged.rereadStaged = true;
        return candidate.threads >= minThreads &&
               rereadRegisters(shape, candidate) <= registers &&
               chooseSharedStages(shape, staged, device, kRereadStages) ==
                   kRereadStages;
      });
  if (wide)
    wide->rereadStaged = true;
  return wide;
}

std::optional<RowLayout>
mlir::norm::chooseWideRereadCluster(const KernelShape &shape,
                                    const RowLayout &layout,
                                    const DeviceInfo &device) {
  if (layout.clusterSize <= kWideRereadMaxBlocks)
    return std::nullopt;
  return chooseWideRereadLayout(shape, device);
}

bool mlir::norm::rowsFitOnChip(int64_t n, int64_t elementBytes,
                               int64_t fullOperands, int64_t columnOutputs,
                               const DeviceInfo &device) {
  return rowsFitInRegisters(n, elementBytes, fullOperands, columnOutputs,
                            device) ||
         chooseClusterLayout(n, elementBytes, fullOperands, columnOutputs,
                             device)
             .has_value();
}

/// The re-reading layout of a backward whose rows no cluster within the
/// limit keeps (chooseWideRereadLayout), if it stages at the requested
/// depth (`sharedStages`; -1: the rule's, defaultSharedStages), as
/// planKernel then stages it.
std::optional<RowLayout> mlir::norm::detail::stagedClusterFallback(
    const KernelShape &shape, const DeviceInfo &device, int64_t sharedStages) {
  std::optional<RowLayout> wide = chooseWideRereadLayout(shape, device);
  if (!wide)
    return std::nullopt;
  int64_t stages =
      sharedStages < 0
          ? defaultSharedStages(shape, *wide, device)
          : chooseSharedStages(shape, *wide, device, sharedStages);
  if (stages == 0)
    return std::nullopt;
  return wide;
}

bool mlir::norm::rowsFitOnChip(const KernelShape &shape,
                               const DeviceInfo &device, int64_t sharedStages) {
  return rowsFitInRegisters(shape.n, shape.elementBytes, shape.fullOperands,
                            shape.columnOutputs, device) ||
         (!shape.onlyRowOutputs && streamsLongForwardRows(shape, device)) ||
         chooseClusterLayout(shape, device).has_value() ||
         stagedClusterFallback(shape, device, sharedStages).has_value();
}
