//===- RowLayouts.cpp - row-resident, sliced and streamed layouts ---------===//
//
// How one block covers a row it holds: vector width, threads and vector
// chunks per thread (chooseRowLayout), whether a row fits in registers
// (estimateRegisters), rows per block, and the layouts of kernels without row
// reductions (sliced) and of forward rows streamed through L2.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Tuning/RowLayouts.h"

#include "TuningHelpers.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir::norm;
using namespace mlir::norm::detail;

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
  // shuffles), and rows of fewer than 32 vectors share a warp: a row takes
  // the power of two of lanes that covers its vectors (N = 64 bf16: 8
  // lanes, four rows a warp), so that no lane idles. Evidence:
  // docs/tuning.md, chooseRowLayout.
  if (allowRowGroups && ceilDiv(vectors, 32) <= maxChunks) {
    int64_t rowThreads = std::min<int64_t>(
        32, llvm::PowerOf2Ceil(static_cast<uint64_t>(vectors)));
    layout.threads = 128;
    layout.rowGroups = layout.threads / rowThreads;
    layout.chunksPerThread = ceilDiv(vectors, rowThreads);
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

RowLayout mlir::norm::chooseGroupRowLayout(int64_t n, int64_t elementBytes,
                                           int64_t fullOperands,
                                           const DeviceInfo &device,
                                           int64_t groupSize,
                                           bool allowRowGroups) {
  RowLayout layout =
      chooseRowLayout(n, elementBytes, fullOperands, device, allowRowGroups);
  int64_t width = layout.vectorWidth;
  while (width > 1 && groupSize % width != 0)
    width /= 2;
  int64_t lanes = groupSize / width;
  if (!llvm::isPowerOf2_64(static_cast<uint64_t>(lanes)))
    return layout;
  int64_t vectors = ceilDiv(n, width);
  bool rowGroupsFit = layout.rowGroups > 1 && lanes <= 32;
  if (width == layout.vectorWidth &&
      (layout.rowGroups > 1 ? rowGroupsFit
                            : layout.threadsPerRow() % lanes == 0))
    return layout;
  layout.vectorWidth = width;
  if (rowGroupsFit) {
    // A power of two of lanes a row, as chooseRowLayout's row groups, and at
    // least a group's.
    int64_t rowThreads = std::max<int64_t>(
        lanes, std::min<int64_t>(
                   32, llvm::PowerOf2Ceil(static_cast<uint64_t>(vectors))));
    layout.rowGroups = layout.threads / rowThreads;
    layout.chunksPerThread = ceilDiv(vectors, rowThreads);
    return layout;
  }
  // Whole warps, a multiple of the group's lanes (both powers of two from
  // 32 on), enough to cover the row within the block limit.
  int64_t step = std::max<int64_t>(32, lanes);
  layout.rowGroups = 1;
  layout.threads = std::max(step, ceilDiv(layout.threads, step) * step);
  int64_t limit = blockThreadLimit(device);
  while (layout.threads > limit && layout.threads > step)
    layout.threads -= step;
  layout.chunksPerThread = ceilDiv(vectors, layout.threads);
  return layout;
}

int64_t mlir::norm::estimateRegisters(const RowLayout &layout,
                                      int64_t elementBytes,
                                      int64_t fullOperands,
                                      int64_t columnOutputs) {
  int64_t e = layout.elementsPerThread();
  return fullOperands * rowSliceRegisters(layout, elementBytes) +
         e * (2 + columnOutputs) + 32;
}

bool mlir::norm::rowsFitInRegisters(int64_t n, int64_t elementBytes,
                                    int64_t fullOperands, int64_t columnOutputs,
                                    const DeviceInfo &device) {
  RowLayout layout = chooseRowLayout(n, elementBytes, fullOperands, device);
  int64_t perOperand = elementsPerOperand(device.registerBudget, fullOperands);
  int64_t perThread = registerLimit(layout.threads, device);
  return layout.elementsPerThread() <=
             std::max(perOperand, layout.vectorWidth) &&
         estimateRegisters(layout, elementBytes, fullOperands, columnOutputs) <=
             perThread;
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
  // Rows spread over clusters (one block per SM): the row walk is what overlaps
  // the next row's loads with the cluster exchange. Evidence: docs/tuning.md,
  // chooseRowsPerBlock.
  return rowBytes <= 65536 ? 16 : 8;
}

int64_t mlir::norm::chooseResidualAddRows(const KernelShape &shape,
                                          int64_t rowsPerBlock) {
  // Evidence: docs/tuning.md, chooseResidualAddRows.
  if (!isForward(shape) || shape.earlyOutputs == 0 || shape.fullOperands < 2 ||
      shape.groupSize > 0 || hasNarrowerOutputs(shape))
    return rowsPerBlock;
  return std::max<int64_t>(1, rowsPerBlock / 2);
}

RowGroupWalk mlir::norm::chooseRowGroupWalk(const RowLayout &layout,
                                            int64_t columnOutputs,
                                            int64_t groupSize) {
  // Rows of one vector a lane (bf16 N <= 256, sub-warp or a warp a row):
  // four rows a group, all four loads in flight before the first shuffle,
  // where the block rows' table entries (measured at N = 1024, a block a
  // row) gave two. Eight rows lost at N = 100; kernels with column groups
  // were not measured. Evidence: docs/tuning.md, chooseRowGroupWalk.
  constexpr int64_t kRows = 4;
  if (!layout.rowGroupsHoldOneVector() || columnOutputs > 0 || groupSize > 0)
    return {};
  return {kRows, kRows};
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
                                            const DeviceInfo &device,
                                            int64_t vectorWidth,
                                            int64_t fullOperands) {
  RowLayout layout;
  layout.vectorWidth =
      vectorWidth > 0 ? vectorWidth : chooseVectorWidth(n, elementBytes);
  int64_t vectors = ceilDiv(n, layout.vectorWidth);
  int64_t limit = blockThreadLimit(device);
  // Rows of 64 KB and more: the largest block with one vector per thread per
  // iteration (the shape of Inductor's looped reductions: 1024 threads, 32
  // registers, two blocks per SM). Evidence: docs/tuning.md,
  // chooseStreamingLayout.
  if (n * elementBytes >= kLongStreamedRowBytes) {
    layout.threads = std::max<int64_t>(32, limit - limit % 32);
    layout.chunksPerThread = 1;
    return layout;
  }
  // Up to 512 threads with four vectors each per iteration (64 bytes in flight
  // per thread), fewer where a row has fewer vectors. Rows of more vectors than
  // that, short of the long rows above (32-64 KB: N = 16392-32760 bf16), take
  // up to the block's thread limit with up to four vectors each, so that the
  // block still holds its row instead of re-reading it from L2. Four-byte rows
  // of that size (N = 8193-16383 f32) were not measured and keep 512 threads,
  // as do kernels holding two full operands (a backward's dx kernel at short M,
  // x and dy: at 1024 threads ptxas spilled 52-124 bytes at N = 24832-32760).
  // Evidence: docs/tuning.md, chooseStreamingLayout.
  constexpr int64_t kMaxChunks = 4;
  int64_t maxThreads = std::min<int64_t>(512, device.maxThreadsPerBlock);
  maxThreads = std::max<int64_t>(32, maxThreads - maxThreads % 32);
  if (elementBytes == 2 && fullOperands == 1 &&
      ceilDiv(vectors, maxThreads) > kMaxChunks)
    maxThreads = std::max<int64_t>(32, limit - limit % 32);
  int64_t sweeps = ceilDiv(vectors, maxThreads);
  if (sweeps > kMaxChunks) {
    layout.threads = maxThreads;
    layout.chunksPerThread = kMaxChunks;
  } else {
    // A row of up to four sweeps is spread evenly over fewer threads, so that
    // the block holds it: N = 7168 bf16 is 448 threads of two vectors, not 512
    // threads of one re-reading the last 384 vectors from L2. Evidence:
    // docs/tuning.md, chooseStreamingLayout.
    layout.chunksPerThread = sweeps;
    layout.threads =
        std::max<int64_t>(32, ceilDiv(ceilDiv(vectors, sweeps), 32) * 32);
  }
  // A row the block's vectors cover (up to 512 threads of 4 vectors: N <= 16384
  // bf16) stays in registers instead of being re-read from L2 after each
  // reduction. Evidence: docs/tuning.md, chooseStreamingLayout.
  layout.holdsRow = layout.threads * layout.chunksPerThread >= vectors;
  return layout;
}

/// Whether `layout`'s rows span few enough warps for every thread to read
/// all their warp totals (RowLayout::latencyBoundReductions).
static bool readsEveryWarpTotal(const RowLayout &layout) {
  return layout.threadsPerRow() <= 32 * kMaxWarpTotalsReadByEveryThread;
}

RowLayout mlir::norm::chooseOneRowLayout(const RowLayout &layout, int64_t n,
                                         const DeviceInfo &device) {
  if (layout.chunksPerThread != 1 || layout.rowGroups != 1 ||
      layout.clusterSize != 1 || layout.columnSlices != 1 ||
      layout.sharedStages != 0 || layout.threads <= 0 ||
      layout.threads * layout.vectorWidth < n)
    return layout;
  // Measured on the H200 (bf16, one row, kernel time, 3-5 rounds, every M given
  // the wider layout): 250 threads of 4 elements against 125 of 8 at N = 1000
  // (256 / 128 at 1024): LayerNorm forward 1.06-1.10x, RMSNorm forward
  // 1.02-1.20x, LayerNorm backward 1.04x, RMSNorm backward 1.00-1.04x; 512
  // threads of 2 won less (0.96-1.08x), and from 8 rows on the wider layout is
  // level or behind (4096 x 1000-1024 0.78-0.98x), hence one row only.
  // Evidence: docs/tuning.md, chooseOneRowLayout.
  int64_t limit = std::min(kOneRowThreads, blockThreadLimit(device));
  RowLayout one = layout;
  while (one.vectorWidth > 1) {
    int64_t width = one.vectorWidth / 2;
    int64_t threads = ceilDiv(ceilDiv(n, width), 32) * 32;
    // Narrower vectors over the same warps (short rows) only add loads.
    if (threads > limit || threads == one.threads)
      break;
    one.vectorWidth = width;
    one.threads = threads;
  }
  // A single block has nothing to overlap its reductions with, so they are
  // built for latency. Evidence: docs/tuning.md, chooseOneRowLayout.
  one.latencyBoundReductions = readsEveryWarpTotal(one);
  return one;
}

bool mlir::norm::streamsLongForwardRows(const KernelShape &shape,
                                        const DeviceInfo &device) {
  // Past that (f32 N = 65536-131072, bf16 N = 65536) the clusters won or tied,
  // and LayerNorm's f32 clusters at the budget beat its streamed rows
  // (chooseClusterLayout). Evidence: docs/tuning.md, streamsLongForwardRows.
  if (shape.columnOutputs != 0 || shape.rowReductions == 0)
    return false;
  // Without clusters the alternative is the split rows' second pass over
  // memory (0.64-0.69x of sm_90's kernels on the H100 at bf16 N = 32768 to
  // 131072: docs/tuning.md, streamsLongForwardRows).
  if (device.maxClusterSize <= 1)
    return true;
  int64_t rowBytes = shape.n * shape.elementBytes;
  return rowBytes <= kLongStreamedRowBytes ||
         (shape.elementBytes == 4 && shape.rowReductions == 1 &&
          shape.fullOperands == 1 && rowBytes <= 2 * kLongStreamedRowBytes);
}

int64_t mlir::norm::chooseStreamSweeps(const KernelShape &shape,
                                       const RowLayout &layout) {
  // Rows the block holds in registers have no loop. A first pass that
  // stores the early outputs (the residual add's h) issues all of the row's
  // loads before its stores, and so do the later passes, which read h alone.
  // Otherwise rows under 64 KB have up to four vectors a thread in each
  // sweep already, and only the forwards (one full input) were measured; a
  // backward's dx kernel (x and dy) keeps one. Evidence: docs/tuning.md,
  // chooseStreamSweeps.
  if (layout.holdsRow || layout.sliceWidth() <= 0)
    return 1;
  bool longForward = !shape.onlyRowOutputs && shape.columnOutputs == 0 &&
                     shape.rowReductions == 1 && shape.fullOperands == 1 &&
                     shape.n * shape.elementBytes >= kLongStreamedRowBytes;
  if (!layout.storesEarlyOutputs && !longForward)
    return 1;
  int64_t sweeps = ceilDiv(shape.n, layout.sliceWidth());
  int64_t perStep = std::min(sweeps, kMaxStreamSweepsPerStep);
  while (sweeps % perStep != 0)
    --perStep;
  return perStep;
}

bool mlir::norm::chooseEarlyOutputStores(const KernelShape &shape,
                                         const RowLayout &layout) {
  // Measured on the residual add's y and h; the FP8 forwards (a pass more
  // for the amax) were not. Evidence: docs/tuning.md,
  // chooseEarlyOutputStores.
  return shape.earlyOutputs > 0 && !layout.holdsRow &&
         !hasNarrowerOutputs(shape);
}

bool mlir::norm::fusesRowMoments(const RowLayout &layout, int64_t n,
                                 int64_t elementBytes, int64_t rowsPerBlock) {
  int64_t threads = layout.threadsPerRow();
  if (n <= 0 || rowsPerBlock != 1 || layout.rowGroups != 1 || layout.warpRows ||
      layout.clusterSize != 1 || threads < 32 || threads % 32 != 0 ||
      !llvm::isPowerOf2_64(threads / 32) || layout.sliceWidth() <= 0 ||
      n % layout.sliceWidth() != 0)
    return false;
  // Measured on the H200 (bf16 LayerNorm forwards, kernel time, 3 rounds, 9 for
  // one row; the rule as landed): streamed rows 1.02-1.03x at 1024-4096 x 32768
  // (one read of the row from L2 less); held rows of one vector a thread
  // 1.01-1.04x at 512-2048 x 4096, level at 4096 x 256-1024, and the one-row
  // kernels (a grid of one block) 1.02-1.14x at 1 x 256-4096; but rows held as
  // four vectors a thread (N = 16384: 512 threads) 0.99x at 1024-8192 rows,
  // where a second exchange costs less than the merges' shuffles and
  // arithmetic. Evidence: docs/tuning.md, fusesRowMoments.
  bool heldAsSeveralVectors = layout.holdsRow && layout.chunksPerThread > 1;
  bool streamedFourByte = !layout.holdsRow && elementBytes >= 4;
  return !heldAsSeveralVectors && !streamedFourByte;
}

bool mlir::norm::preloadsColumns(const KernelShape &shape,
                                 const RowLayout &layout,
                                 int64_t rowsPerBlock) {
  if (!layout.holdsRow)
    return false;
  // Measured on the H200 (bf16 inference forwards, kernel time, 3-4 rounds):
  // four rows a block: RMSNorm 4096 x 1000 1.17x, 4096 x 1024 1.02x, LayerNorm
  // 4096 x 1024 1.07x, 8192-100000 rows level. Evidence: docs/tuning.md,
  // preloadsColumns.
  if (rowsPerBlock > 1 || layout.warpRows)
    return true;
  // A row a block: RMSNorm 1.02-1.05x at 32-131 x 1024, 1.00-1.03x at N =
  // 2048-4096, 1.06-1.18x at 64-1024 x 8192 and 128-4096 x 16384 (there with
  // its row of two to four vectors a thread held). Evidence: docs/tuning.md,
  // preloadsColumns.
  return shape.columnInputs <= 1;
}

bool mlir::norm::rowABlockReducesForLatency(const RowLayout &layout,
                                            int64_t rowsPerBlock,
                                            bool columnsPreloaded) {
  // Measured on the H200 (bf16 inference forwards, kernel time, 7 rounds,
  // every streamed row-a-block forward built for latency, against none):
  // RMSNorm 0.99-1.11x (16-1024 rows, N = 768-2048), LayerNorm 1.00-1.10x at
  // 16-512 rows but 0.98x at 1024 x 2048, whose version of many rows does
  // not preload its columns and so keeps the shuffles.
  return columnsPreloaded && rowsPerBlock == 1 && layout.rowGroups == 1 &&
         layout.holdsRow && readsEveryWarpTotal(layout);
}

bool mlir::norm::prefetchesColumnsToL1(const KernelShape &shape, bool oneRow) {
  // Measured on the H200 (bf16 inference forwards, kernel time, 7 rounds,
  // the prefetch in every latency-bound kernel that preloads its columns,
  // against none):
  // LayerNorm's one row 1.18x / 1.20x at N = 768 / 1000 (the SASS at 1000
  // had both column loads sunk to the barrier), 0.98x at 1024 (one of them
  // sunk); RMSNorm's one weight 0.95-1.03x; with many rows a block each it
  // cost 0.56-0.99x (RMSNorm 2048 x 1000 0.56x).
  return oneRow && shape.columnInputs >= 2;
}

bool mlir::norm::fencesColumnLoads(const KernelShape &shape, bool wholeBlocks) {
  // The SASS of LayerNorm's inference forward at N = 256 bf16 (every held row
  // version, with or without row bounds) has the weight and bias loads after
  // the first reduction's shuffles; with `membar.cta` after them they issue
  // with the rows' loads (MEMBAR.SC.CTA before the first shuffle). Evidence:
  // docs/tuning.md, fencesColumnLoads.
  return wholeBlocks && shape.columnInputs >= 2;
}

bool mlir::norm::predicatesRowStores(int64_t n, const RowLayout &layout,
                                     int64_t elementBytes) {
  // Longer rows were not measured; at N = 1536-4096 ptxas spilled 4 bytes with
  // them. Evidence: docs/tuning.md, predicatesRowStores.
  return n * elementBytes <= kPredicatedStoreRowBytes &&
         layout.vectorWidth * elementBytes == 16;
}

std::optional<RowLayout> mlir::norm::warpRowsLayout(const RowLayout &block,
                                                    int64_t rowsPerBlock) {
  if (!block.holdsRow || block.rowGroups != 1 || block.chunksPerThread != 1 ||
      block.threads % 32 != 0 || block.clusterSize != 1 ||
      block.columnSlices != 1)
    return std::nullopt;
  int64_t rowWarps = block.threads / 32;
  RowLayout warps = block;
  warps.warpRows = true;
  warps.rowGroups =
      rowsPerBlock > 0 ? std::min(rowWarps, rowsPerBlock) : rowWarps;
  warps.threads = 32 * warps.rowGroups;
  warps.chunksPerThread = rowWarps;
  return warps;
}

int64_t mlir::norm::maxHeldRows(const RowLayout &layout, int64_t fullOperands) {
  if (!layout.holdsRow)
    return 1;
  int64_t perRow =
      layout.elementsPerThread() * std::max<int64_t>(1, fullOperands);
  return std::max<int64_t>(1, kMaxRegisterBudget / perRow);
}
