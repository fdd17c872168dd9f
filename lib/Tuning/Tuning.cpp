//===- Tuning.cpp - launch and split decisions for norm kernels -----------===//

#include "NormDialect/Tuning/Tuning.h"

#include <algorithm>

using namespace mlir::norm;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Elements of one full operand a thread may keep in registers: `budget`
/// shared by the full operands, at least 8.
static int64_t elementsPerOperand(int64_t budget, int64_t fullOperands) {
  return std::max<int64_t>(8, budget / std::max<int64_t>(1, fullOperands));
}

/// The largest block a kernel of ours launches: the device's, at most 1024
/// threads (the CUDA limit).
static int64_t blockThreadLimit(const DeviceInfo &device) {
  return std::min<int64_t>(1024, device.maxThreadsPerBlock);
}

/// Rows staged for kernels that re-read them (rereadsStagedRows): the one
/// being read again, the next one arriving, and one more in flight.
static constexpr int64_t kRereadStages = 3;
/// Most blocks of a wide re-reading cluster (chooseWideRereadLayout): the
/// portable cluster size, of which an H200 holds 15 (120 SMs busy).
static constexpr int64_t kWideRereadMaxBlocks = 8;

/// Vector chunks of `vectorWidth` within `elements`, at least one.
static int64_t chunksWithin(int64_t elements, int64_t vectorWidth) {
  return std::max<int64_t>(1, elements / vectorWidth);
}

int64_t mlir::norm::chooseSplitSize(std::optional<int64_t> m, int64_t n,
                                    const DeviceInfo &device,
                                    bool rowsOverCluster, int64_t minPartials) {
  (void)n;
  (void)device;
  // Measured on the H200 (bench/autotune.py split sweep, 2026-11-29, RMSNorm
  // and LayerNorm backward, N = 1K..16K, M*N = 64M): 64 rows per partial was
  // fastest in 9 of 10 shape classes, ahead of 32 by 5-35% (fewer partial
  // rows to write and combine, more rows per block for the prefetch to
  // overlap) and of 128/256 by up to 2x (too few blocks, hence too few warps
  // per SM to hide latency). Bundles have a dynamic M, so the rule cannot
  // depend on it beyond never exceeding it.
  //
  // With min_partials F, which fills one wave of blocks, the rows spread
  // over whole waves (FusedOp::buildRowsPerPartial) and the split only
  // decides how many waves a large M runs: ceil(M / (F * split)), so it is
  // larger there. Measured on the H200
  // (2026-12-01, bench/ab.py, RMSNorm and LayerNorm backward, both
  // timings, ab-2026-12-01-split-256.log): 256 instead of 64 (one wave of
  // F partial rows up to M = 256 F) +2-6% at 131072x1024, 65536x2048,
  // 65536x4096 and 16384x8192, 1-2% at 16384x5120, the same within noise
  // where M <= 64 F (128: within 1% of 256).
  //
  // Rows over a cluster (N = 32K..128K, bench/autotune.py long-row sweep,
  // 2026-11-29): 32 was fastest or within 3% for both backwards at every N
  // (e.g. LayerNorm, N = 131072: 2.53 TB/s vs 2.40 at 64 and 2.24 at 16).
  // Those kernels run one block per SM; twice the clusters balance the
  // waves better than longer row walks.
  int64_t best = rowsOverCluster ? 32 : minPartials > 0 ? 256 : 64;
  if (!m)
    return best;
  return std::max<int64_t>(1, std::min<int64_t>(best, *m));
}

int64_t mlir::norm::chooseVectorWidth(int64_t n, int64_t elementBytes) {
  int64_t widest = std::max<int64_t>(1, 16 / elementBytes);
  for (int64_t w = widest; w > 1; w /= 2)
    if (n % w == 0)
      return w;
  return 1;
}

RowLayout mlir::norm::chooseRowLayout(int64_t n, int64_t elementBytes,
                                      int64_t fullOperands,
                                      const DeviceInfo &device,
                                      bool allowRowGroups) {
  RowLayout layout;
  layout.vectorWidth = chooseVectorWidth(n, elementBytes);
  int64_t vectors = ceilDiv(n, layout.vectorWidth);
  int64_t maxChunks =
      chunksWithin(elementsPerOperand(device.registerBudget, fullOperands),
                   layout.vectorWidth);
  int64_t warpsOfWork = ceilDiv(vectors, 32) * 32;
  // Short rows: a warp per row when a warp can hold it within the budget
  // (block-wide reductions and barriers per short row cost more than warp
  // shuffles). Measured on the H200: with twice the budget (N = 2048 bf16)
  // the forward fell from 3.7 to 1.8 TB/s.
  if (allowRowGroups && ceilDiv(vectors, 32) <= maxChunks) {
    layout.rowGroups = 4;
    layout.threads = 128;
    layout.chunksPerThread = ceilDiv(vectors, 32);
    return layout;
  }
  // The most chunks per thread within the budget whose thread count (a
  // multiple of 32) still reaches 128 threads, or covers the row with fewer:
  // ILP per thread first, enough warps per block second, and no thread
  // count rounded up to a power of two, which would leave threads idle or
  // guarded (N = 5120 bf16: 160 threads x 4 chunks, not 256 x 3 with the
  // last chunk out of the row for most threads).
  int64_t wanted = std::min<int64_t>(128, warpsOfWork);
  int64_t limit = blockThreadLimit(device);
  for (int64_t chunks = maxChunks; chunks >= 1; --chunks) {
    int64_t threads = ceilDiv(ceilDiv(vectors, chunks), 32) * 32;
    if (threads > limit)
      break;
    if (threads < wanted && chunks > 1)
      continue;
    layout.threads = threads;
    layout.chunksPerThread = ceilDiv(vectors, threads);
    return layout;
  }
  // Over the budget even at the largest block: take the largest block
  // (rowsFitInRegisters() reports that such rows do not fit).
  layout.threads = std::max<int64_t>(32, std::min(limit, warpsOfWork));
  layout.chunksPerThread = ceilDiv(vectors, layout.threads);
  return layout;
}

int64_t mlir::norm::estimateRegisters(const RowLayout &layout,
                                      int64_t elementBytes,
                                      int64_t fullOperands,
                                      int64_t columnOutputs) {
  int64_t e = layout.elementsPerThread();
  int64_t packed = ceilDiv(e * elementBytes, 4);
  return fullOperands * packed + e * (2 + columnOutputs) + 32;
}

bool mlir::norm::rowsFitInRegisters(int64_t n, int64_t elementBytes,
                                    int64_t fullOperands, int64_t columnOutputs,
                                    const DeviceInfo &device) {
  RowLayout layout = chooseRowLayout(n, elementBytes, fullOperands, device);
  int64_t perOperand = elementsPerOperand(device.registerBudget, fullOperands);
  int64_t perThread = std::min<int64_t>(255, 65536 / layout.threads);
  return layout.elementsPerThread() <=
             std::max(perOperand, layout.vectorWidth) &&
         estimateRegisters(layout, elementBytes, fullOperands, columnOutputs) <=
             perThread;
}

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
      // Registers a thread may use at one block per SM: the file's share,
      // allocated in units of 8 (200 at 320 threads), at most 255. Layouts
      // other than powers of two keep 32 of them spare: the estimate was
      // checked against ptxas on power-of-two layouts only, and the RMSNorm
      // backward at N = 40000 with 320 threads x 32 elements (estimate 192)
      // spilled 276 bytes at its 200.
      int64_t registers = std::min<int64_t>(255, 65536 / threads / 8 * 8);
      if (anyWarpCount)
        registers -= 32;
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
/// register budget. A cluster kernel runs one block per SM, so registers up
/// to the file's share per thread cost no occupancy, and fewer threads with
/// more elements each reduce faster. Measured on the H200 (long-row sweep,
/// 2026-11-29): LayerNorm backward at N = 131072 2.53 TB/s with 2x the
/// budget vs < 2.0 with 1x; LayerNorm forward +1-6%; RMSNorm within 3%.
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
  return registerResidentCluster(n, elementBytes, fullOperands, columnOutputs,
                                 device, /*budgetFactor=*/2);
}

std::optional<RowLayout>
mlir::norm::chooseClusterLayout(const KernelShape &shape,
                                const DeviceInfo &device) {
  if (std::optional<RowLayout> layout =
          chooseClusterLayout(shape.n, shape.elementBytes, shape.fullOperands,
                              shape.columnOutputs, device)) {
    // One row reduction per row (RMSNorm) exchanges totals across the
    // cluster once per row, so the fewest threads per element buy less than
    // the warps they cost: where the same cluster holds the row with half
    // the elements a thread, it takes twice the threads. A/B on the H200
    // (2026-11-30, ab-2026-11-30-long-rows-512-threads.log): RMSNorm
    // backward +2-5% at N = 32K-128K (e.g. 1024x65536 3.19 -> 3.33 TB/s
    // with 8 blocks of 512 threads instead of 256), forward +1%; the
    // LayerNorm kernels (two reductions a row) lost 0-2%, so keep theirs.
    // 16 registers spare: at 512 threads (128 registers a thread) the f32
    // RMSNorm backward at N = 32768, estimated at exactly 128, spilled 76
    // bytes; the bf16 kernels (estimates 112) use 104-128.
    if (shape.rowReductions == 1)
      if (std::optional<RowLayout> wider = registerResidentCluster(
              shape.n, shape.elementBytes, shape.fullOperands,
              shape.columnOutputs, device, /*budgetFactor=*/1,
              /*slack=*/16))
        // Same cluster, and no wider slice (a ragged N = 40000 would cut
        // into 3 x 12288 + 3136 columns instead of 3 x 10240 + 9280).
        if (wider->clusterSize == layout->clusterSize &&
            wider->sliceWidth() <= layout->sliceWidth())
          return wider;
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

/// Registers a thread of a block that re-reads its staged rows holds: the
/// f32 column accumulators and about 48 for addressing and temporaries
/// (ptxas -v: 80 at 16 elements a thread, two column outputs).
static int64_t rereadRegisters(const KernelShape &shape,
                               const RowLayout &layout) {
  return shape.columnOutputs * layout.elementsPerThread() + 48;
}

/// Whether `layout` re-reads its staged rows: marked so (a wide re-reading
/// cluster, chooseWideRereadCluster) or by the rule (rereadsStagedRows).
static bool rereads(const KernelShape &shape, const RowLayout &layout) {
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
static std::optional<RowLayout>
stagedClusterFallback(const KernelShape &shape, const DeviceInfo &device,
                      int64_t sharedStages) {
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
         chooseClusterLayout(shape, device).has_value() ||
         stagedClusterFallback(shape, device, sharedStages).has_value();
}

int64_t mlir::norm::chooseRowsPerBlock(int64_t n, int64_t elementBytes,
                                       const DeviceInfo &device) {
  (void)device;
  // Short rows: many rows per block so the prefetch of the next row hides
  // the latency of the current one; long rows: fewer, so the grid still
  // fills the machine at moderate M.
  int64_t rowBytes = n * elementBytes;
  if (rowBytes <= 4096)
    return 8;
  if (rowBytes <= 16384)
    return 4;
  if (rowBytes <= 32768)
    return 2;
  // Rows spread over clusters (one block per SM): the row walk is what
  // overlaps the next row's loads with the cluster exchange. Measured on
  // the H200 (long-row sweep, 2026-11-29): 16 rows at N = 32768 bf16 (3.49
  // TB/s vs 3.37 at 8 and 2.4 at 2), 8 at N = 65536 and 131072.
  return rowBytes <= 65536 ? 16 : 8;
}

RowLayout mlir::norm::chooseSlicedLayout(int64_t n, int64_t elementBytes,
                                         int64_t fullOperands,
                                         const DeviceInfo &device) {
  // Rows that fit keep the row-resident layout (one slice); longer rows are
  // cut into slices of 256 threads within the register budget.
  if (rowsFitInRegisters(n, elementBytes, fullOperands, /*columnOutputs=*/2,
                         device))
    return chooseRowLayout(n, elementBytes, fullOperands, device);
  RowLayout layout;
  layout.vectorWidth = chooseVectorWidth(n, elementBytes);
  layout.threads = 256;
  layout.chunksPerThread =
      chunksWithin(elementsPerOperand(device.registerBudget, fullOperands),
                   layout.vectorWidth);
  layout.columnSlices = ceilDiv(n, layout.sliceWidth());
  return layout;
}

RowLayout mlir::norm::chooseStreamingLayout(int64_t n, int64_t elementBytes,
                                            const DeviceInfo &device) {
  RowLayout layout;
  layout.vectorWidth = chooseVectorWidth(n, elementBytes);
  int64_t vectors = ceilDiv(n, layout.vectorWidth);
  int64_t limit = blockThreadLimit(device);
  // Rows of 64 KB and more: the largest block with one vector per thread
  // per iteration (the shape of Inductor's looped reductions: 1024 threads,
  // 32 registers, two blocks per SM). Measured on the H200 (2026-11-29,
  // bf16 streamed forwards, bench/results/ab-2026-11-29-stream-layouts.log):
  // RMSNorm N = 32768 3.81 TB/s vs 3.37 with 512 threads x 4 vectors, 65536
  // 3.23 vs 2.66, 131072 2.64 vs 2.54; at N = 7168-8192 the big blocks lost
  // (3.05 vs 3.89), so shorter rows keep 512 x 4.
  if (n * elementBytes >= kLongStreamedRowBytes) {
    layout.threads = std::max<int64_t>(32, limit - limit % 32);
    layout.chunksPerThread = 1;
    return layout;
  }
  // Up to 512 threads with four vectors each per iteration (64 bytes in
  // flight per thread), fewer where a row has fewer vectors.
  layout.threads = std::max<int64_t>(
      32, std::min<int64_t>(std::min<int64_t>(512, device.maxThreadsPerBlock),
                            ceilDiv(vectors, 32) * 32));
  layout.chunksPerThread =
      std::max<int64_t>(1, std::min<int64_t>(4, vectors / layout.threads));
  return layout;
}

bool mlir::norm::streamsLongForwardRows(const KernelShape &shape) {
  // Measured on the H200 (2026-11-29, bf16, streamed with 1024 threads vs
  // the persistent cluster kernel, ab-2026-11-29-stream-layouts.log):
  // N = 32768 RMSNorm 3.81 vs 3.56 TB/s, LayerNorm 3.50 vs 3.40; N = 65536
  // and 131072 the clusters win (RMSNorm 3.47 vs 3.23, 3.45 vs 2.64).
  return shape.columnOutputs == 0 && shape.rowReductions > 0 &&
         shape.n * shape.elementBytes <= kLongStreamedRowBytes;
}

/// Largest power of two at most `v` (v >= 1).
static int64_t powerOfTwoFloor(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v)
    p *= 2;
  return p;
}

static bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

CombineLayout mlir::norm::chooseCombineLayout(int64_t n, int64_t vectorWidth,
                                              const DeviceInfo &device,
                                              int64_t lanes, int64_t threads) {
  CombineLayout layout;
  int64_t limit = powerOfTwoFloor(blockThreadLimit(device));
  layout.threads = std::min<int64_t>(256, limit);
  layout.lanes = std::min<int64_t>(32, layout.threads);
  int64_t vectors = vectorWidth == 4 && n > 0 ? n / 4 : 0;
  if (vectors >= 32 * device.numSMs) {
    // Wide rows (N >= 16K in all, partials from one wave of clusters: 7 to
    // 90 rows): 16-byte loads, 256 threads, and the most lanes (up to 256)
    // that still give every SM a block, so each block has few groups.
    // Measured on the H200 (2026-12-01, bf16, the whole backward against 32
    // lanes of scalars, ab-2026-12-01-combine-layouts.log and
    // -combine-pdl.log): LayerNorm 512x131072 +5%, 300x131072 +11%,
    // 1024x65536 +2%, RMSNorm 512x131072 +3%, 300x131072 +5%, within 1% at
    // N = 16K-32K.
    layout.vectorWidth = 4;
    while (layout.lanes * 2 <= layout.threads &&
           ceilDiv(vectors, layout.lanes * 2) >= device.numSMs)
      layout.lanes *= 2;
  } else if (n > 0) {
    // Narrow rows (hundreds of partial rows): a warp of scalar lanes across
    // 32 columns, and the fewer the blocks, the more row groups each gets
    // (fewer rounds of L2 latency), up to the device's block limit.
    // Measured on the H200 (ncu, 2026-11-29): 256-thread combines of the
    // LayerNorm backward at 32768 x 1024 (512 partials, 32 blocks) took
    // 7 us each beside 68 us for the fused kernel. 16-byte loads with fewer
    // lanes and more groups (2-16 lanes, 256-1024 threads) measured 0-4%
    // slower at N = 1024-8192 (same log).
    int64_t blocks = ceilDiv(n, layout.lanes);
    if (blocks <= 2 * device.numSMs)
      layout.threads = limit;
    else if (blocks <= 4 * device.numSMs)
      layout.threads = std::min<int64_t>(512, limit);
  }
  // Overrides: an override of one of the two keeps the rule's other within
  // it (lanes never exceed threads).
  if (lanes > 0)
    layout.lanes = lanes;
  if (threads > 0) {
    layout.threads = threads;
    if (lanes <= 0)
      layout.lanes = std::min(layout.lanes, threads);
  }
  layout.threads = std::max(layout.threads, layout.lanes);
  return layout;
}

std::string mlir::norm::validateCombineLayout(int64_t lanes, int64_t threads,
                                              const DeviceInfo &device) {
  int64_t limit = blockThreadLimit(device);
  if (lanes < 0 || (lanes > 0 && (!isPowerOfTwo(lanes) || lanes > limit)))
    return "combine-lanes must be 0 (the rule) or a power of two up to " +
           std::to_string(limit) + ", got " + std::to_string(lanes);
  if (threads < 0 ||
      (threads > 0 && (!isPowerOfTwo(threads) || threads > limit ||
                       threads < 32)))
    return "combine-threads must be 0 (the rule) or a power of two from 32 "
           "to " +
           std::to_string(limit) + ", got " + std::to_string(threads);
  if (lanes > 0 && threads > 0 && lanes > threads)
    return "combine-lanes (" + std::to_string(lanes) +
           ") must not exceed combine-threads (" + std::to_string(threads) +
           ")";
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

int64_t mlir::norm::stagedBytes(const KernelShape &shape,
                                const RowLayout &layout, int64_t stages) {
  // A cluster block stages its column slice; a row-resident block the row.
  int64_t elements = std::min(shape.n, layout.sliceWidth());
  int64_t columnCopy = rereads(shape, layout) ? shape.columnInputBytes : 0;
  return (stages * shape.fullOperands * shape.elementBytes + columnCopy) *
         elements;
}

/// Shared memory a block with `stages` staged rows needs: the stages and
/// column copies (stagedBytes), plus 1 KB for the reductions' buffers and
/// the mbarriers.
static int64_t stagedBlockBytes(const KernelShape &shape,
                                const RowLayout &layout, int64_t stages) {
  // Static shared memory beside the stages: reduction slots and mbarriers
  // (under 1 KB) and the row inputs of up to 256 rows (mean and rstd, 2 KB;
  // RowKernelBuilder's kMaxStagedRowInputRows).
  return stagedBytes(shape, layout, stages) + 3 * 1024;
}

bool mlir::norm::rereadsStagedRows(const KernelShape &shape,
                                   const RowLayout &layout) {
  return layout.clusterSize > 1 && shape.columnOutputs >= 2;
}

int64_t mlir::norm::chooseSharedStages(const KernelShape &shape,
                                       const RowLayout &layout,
                                       const DeviceInfo &device,
                                       int64_t requested) {
  if (requested <= 0 || shape.rowReductions == 0 || layout.rowGroups != 1 ||
      layout.columnSlices != layout.clusterSize ||
      layout.threadsPerRow() <= 32 ||
      layout.vectorWidth * shape.elementBytes != 16 ||
      shape.n % layout.vectorWidth != 0)
    return 0;
  // Bulk copies move 16-byte multiples: the narrowest input's rows too.
  // (Cluster slices are whole multiples of 32 vectors of the widest.)
  int64_t narrowest = shape.narrowestInputBytes > 0 ? shape.narrowestInputBytes
                                                    : shape.elementBytes;
  if (shape.n * narrowest % 16 != 0)
    return 0;
  return stagedBlockBytes(shape, layout, requested) <=
                 device.sharedMemoryPerBlock
             ? requested
             : 0;
}

int64_t mlir::norm::defaultSharedStages(const KernelShape &shape,
                                        const RowLayout &layout,
                                        const DeviceInfo &device) {
  if (rereads(shape, layout))
    return chooseSharedStages(shape, layout, device, kRereadStages);
  constexpr int64_t stages = 2;
  // Measured on the H200 (2026-11-29, bf16, 2 stages vs the register
  // prefetch): rows of 32 KB and more per input lost 2-11% (RMSNorm forward
  // N = 16384 3.43 vs 3.61 TB/s; every cluster kernel of the RMSNorm
  // forward and backward and the LayerNorm forward at N = 32K-128K), so the
  // rule stages only rows a block keeps whole, up to 16 KB per input.
  if (layout.clusterSize > 1 || shape.n * shape.elementBytes > 16 * 1024)
    return 0;
  if (chooseSharedStages(shape, layout, device, stages) != stages)
    return 0;
  return 2 * stagedBlockBytes(shape, layout, stages) <= device.sharedMemoryPerSM
             ? stages
             : 0;
}

int64_t mlir::norm::estimateBlocksPerSM(const KernelShape &shape,
                                        const RowLayout &layout,
                                        const DeviceInfo &device) {
  int64_t threads = std::max<int64_t>(32, layout.threads);
  int64_t registers = estimateRegisters(
      layout, shape.elementBytes, shape.fullOperands, shape.columnOutputs);
  int64_t perThread = std::min<int64_t>(255, ceilDiv(registers, 8) * 8);
  int64_t blocks = std::min(device.threadsPerSM / threads,
                            device.registersPerSM / (threads * perThread));
  if (layout.sharedStages > 0)
    blocks = std::min(blocks,
                      device.sharedMemoryPerSM /
                          stagedBlockBytes(shape, layout, layout.sharedStages));
  return std::max<int64_t>(1, blocks);
}

int64_t DeviceInfo::residentClusters(int64_t clusterSize) const {
  clusterSize = std::max<int64_t>(1, clusterSize);
  if (numSMs == 132) {
    switch (clusterSize) {
    case 1:
      return 132;
    case 2:
      return 66;
    case 4:
      return 30;
    case 8:
      return 15;
    case 16:
      return 7;
    default:
      break;
    }
  }
  return std::max<int64_t>(1, numSMs * 85 / (100 * clusterSize));
}

bool mlir::norm::splitsIntoOneWave(const KernelShape &shape,
                                   const KernelPlan &plan) {
  return plan.kind == KernelPlan::Kind::Cluster && shape.columnOutputs > 0;
}

int64_t mlir::norm::rereadClusterBlocksPerSM(const KernelShape &shape,
                                             const RowLayout &layout,
                                             const DeviceInfo &device) {
  if (!layout.rereadStaged || layout.clusterSize <= 1 ||
      layout.sharedStages <= 0)
    return 0;
  int64_t threads = std::max<int64_t>(32, layout.threads);
  // Registers (rereadRegisters) in units of 8.
  int64_t registers = ceilDiv(rereadRegisters(shape, layout), 8) * 8;
  return std::min<int64_t>(
      {3, device.threadsPerSM / threads,
       device.registersPerSM / (threads * registers),
       device.sharedMemoryPerSM /
           stagedBlockBytes(shape, layout, layout.sharedStages)});
}

int64_t mlir::norm::chooseMinPartials(const KernelShape &shape,
                                      const KernelPlan &plan,
                                      const DeviceInfo &device) {
  int64_t blocks = std::max(estimateBlocksPerSM(shape, plan.layout, device),
                            plan.minBlocksPerSM);
  // Re-reading clusters whose slices leave room for three blocks per SM fit
  // their registers too (planKernel); with fewer (N = 131072: 112 KB of
  // slices, 190 registers) the estimate stands.
  if (rereadClusterBlocksPerSM(shape, plan.layout, device) == 3)
    blocks = std::max<int64_t>(blocks, 3);
  // One wave of clusters: up to three blocks per SM. Measured on the H200
  // (2026-12-01, LayerNorm backward over re-reading clusters at three
  // blocks per SM, ab-2026-12-01-cluster-waves.log and
  // ab-2026-12-01-reread-three-blocks.log): 45 clusters of 8 instead of 30
  // at N = 32768 +5-10% (4096x32768 3.18 -> 3.51 TB/s), 90 of 4 instead of
  // 60 at N = 16384 +1-3%, 21 of 16 instead of 14 at N = 65536 +1-3%
  // (512x65536 -1%).
  if (splitsIntoOneWave(shape, plan))
    return device.residentClusters(plan.layout.clusterSize) *
           std::min<int64_t>(3, blocks);
  if (plan.layout.columnSlices > 1)
    return 0;
  // Two blocks per SM, or up to four where that makes 16 warps: the
  // N = 1024 backwards (128-thread blocks) ran 12% (RMSNorm) and 25%
  // (LayerNorm) faster at M = 16384 with 512 partial rows than with the 264
  // of two blocks per SM, and the same at M >= 32768, where the split
  // already gives ~512 (ab-2026-11-30-split-size.log). More than four was
  // not measured.
  int64_t warpsPerBlock = ceilDiv(plan.layout.threads, 32);
  int64_t wanted = std::clamp<int64_t>(ceilDiv(16, warpsPerBlock), 2, 4);
  return device.numSMs * std::min(wanted, blocks);
}

KernelPlan mlir::norm::planKernel(const KernelShape &shape, DeviceInfo device,
                                  const TuningTable *table,
                                  const PlanRequest &request) {
  int64_t sharedStages = request.sharedStages;
  bool streamRows = request.streamRows;
  bool persistent = request.persistent;
  int64_t l2PrefetchRows = request.l2PrefetchRows;
  int64_t n = shape.n, elementBytes = shape.elementBytes;
  int64_t fullOperands = shape.fullOperands;
  bool hasRowReductions = shape.rowReductions > 0;
  KernelPlan plan;
  // Rows with row reductions that one block cannot hold in registers: a
  // statistics-only kernel streams them; any other kernel spreads each row
  // over a cluster (--norm-split-rows has already taken the statistics out
  // of kernels no cluster holds).
  bool longRows = hasRowReductions &&
                  !rowsFitInRegisters(
                      n, elementBytes, fullOperands,
                      shape.onlyRowOutputs ? 0 : shape.columnOutputs, device);
  std::optional<TuningChoice> tuned;
  if (table && !table->empty() && !longRows) {
    tuned = table->lookup(TuningKey{n, elementBytes, fullOperands,
                                    shape.columnOutputs, shape.rowReductions});
    if (tuned && tuned->registerBudget > 0)
      device.registerBudget = tuned->registerBudget;
  }
  // Forwards stream their rows when asked or where the table measured it
  // faster.
  bool streamForward = streamRows || (tuned && tuned->streamRows);
  // Long forward rows just past what a block holds stream too: one wave of
  // 1024-thread blocks re-reading their row from L2 beats a cluster there.
  bool streaming =
      (longRows && (shape.onlyRowOutputs || streamsLongForwardRows(shape))) ||
      (streamForward && hasRowReductions && shape.columnOutputs == 0);
  std::optional<RowLayout> cluster;
  if (longRows && !streaming)
    cluster = chooseClusterLayout(shape, device);
  // No cluster within the limit keeps the row: a backward may still
  // re-read staged slices over up to 8 blocks (as rowsFitOnChip counts),
  // e.g. N = 131072 at --max-cluster-size=8.
  if (longRows && !streaming && !cluster)
    cluster = stagedClusterFallback(shape, device, sharedStages);
  // Staging depth: the request, else the table's, else the rule.
  auto stagesFor = [&](const RowLayout &layout) {
    if (sharedStages >= 0)
      return chooseSharedStages(shape, layout, device, sharedStages);
    if (tuned && tuned->sharedStages >= 0)
      return chooseSharedStages(shape, layout, device, tuned->sharedStages);
    return defaultSharedStages(shape, layout, device);
  };
  if (streaming) {
    plan.kind = KernelPlan::Kind::Streaming;
    plan.layout = chooseStreamingLayout(n, elementBytes, device);
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
    plan.layout = chooseRowLayout(n, elementBytes, fullOperands, device,
                                  /*allowRowGroups=*/shape.columnOutputs == 0);
    plan.layout.sharedStages = stagesFor(plan.layout);
  } else {
    plan.kind = KernelPlan::Kind::Sliced;
    plan.layout = chooseSlicedLayout(n, elementBytes, fullOperands, device);
  }
  if (!streaming)
    plan.rowsPerBlock = tuned && tuned->rowsPerBlock > 0
                            ? tuned->rowsPerBlock
                            : chooseRowsPerBlock(n, elementBytes, device);
  if (tuned) {
    plan.numStages = tuned->numStages;
    plan.minBlocksPerSM = tuned->minBlocksPerSM;
  }
  // Staged rows are issued by their contiguous index, so only a register-
  // prefetching kernel walks strided rows.
  plan.persistent = persistent && plan.kind == KernelPlan::Kind::Cluster &&
                    shape.columnOutputs == 0 && plan.layout.sharedStages == 0;
  if (plan.persistent)
    plan.rowsPerBlock = 1;
  // The bulk prefetch moves whole rows (multiples of 16 bytes), from
  // kernels that stage their rows or stream them a row per block.
  bool prefetchable =
      (plan.layout.sharedStages > 0 ||
       plan.kind == KernelPlan::Kind::Streaming || plan.persistent) &&
      n * elementBytes % 16 == 0 &&
      plan.layout.sliceWidth() * elementBytes % 16 == 0;
  if (prefetchable)
    plan.layout.l2PrefetchRows =
        l2PrefetchRows >= 0 ? l2PrefetchRows
                            : chooseL2PrefetchRows(shape, plan, device);
  return plan;
}

int64_t mlir::norm::chooseL2PrefetchRows(const KernelShape &shape,
                                         const KernelPlan &plan,
                                         const DeviceInfo &device) {
  // Measured on the H200 (bench/results/ab-2026-12-01-l2-prefetch*.log):
  // forwards, whose blocks walk 1-4 rows (or stream one), gain 1-2% (up to
  // 5% at N = 32768) when each block asks L2 for the rows about 4 MB of
  // inputs ahead: a block that starts later finds its first rows there
  // instead of waiting on HBM. 8 MB or more ahead lost 2-23% (presumably
  // evicted again before their block reads them). Split kernels (one
  // wave of blocks walking 64-256 rows of their own) lost 1-13% with their
  // own rows 2-8 ahead of the stages, so they get none; statistics-only
  // kernels were not measured.
  constexpr int64_t kAheadBytes = 4 << 20;
  if (shape.columnOutputs > 0 || shape.onlyRowOutputs)
    return 0;
  int64_t rowBytes = shape.n * shape.elementBytes * shape.fullOperands;
  if (plan.persistent) {
    // A persistent forward over clusters walks its rows strided by the
    // grid (G clusters, one row each per step) and holds the next row of
    // its walk in registers: its prefetch counts steps. One step past the
    // register prefetch is G rows, about 4 MB at N = 64K-128K on the H200
    // (30 clusters of 4 x 128 KB, 15 of 8 x 256 KB): measured +4-6%
    // (RMSNorm) and +5-10% (LayerNorm) on every long-row forward, one more
    // step (8 MB) 0-3%, two (12 MB) -4 to -13%
    // (ab-2026-12-01-l2-prefetch-clusters.log).
    int64_t stepBytes =
        device.residentClusters(plan.layout.clusterSize) * rowBytes;
    return 1 +
           std::max<int64_t>(1, kAheadBytes / std::max<int64_t>(stepBytes, 1));
  }
  if (plan.layout.clusterSize > 1)
    return 0;
  return std::max<int64_t>(1, ceilDiv(kAheadBytes, rowBytes));
}

std::string mlir::norm::validateL2PrefetchRows(int64_t rows) {
  if (rows < -1)
    return "l2-prefetch-rows must be -1 (the tuning rule), 0 (off) or a "
           "number of rows ahead, got " +
           std::to_string(rows);
  return {};
}
