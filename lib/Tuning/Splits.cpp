//===- Splits.cpp - column splits, partial rows and residency -------------===//
//
// The split of column reductions into partial rows: rows per partial
// (chooseSplitSize), how many partials fill the GPU (chooseMinPartials), and
// the blocks per SM they rest on.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Tuning/Splits.h"

#include "TuningHelpers.h"

#include <algorithm>

using namespace mlir::norm;
using namespace mlir::norm::detail;

/// The split of a kernel with max_partials (chooseMaxPartials).
constexpr int64_t kMaxPartialsSplit = 16;

int64_t mlir::norm::chooseSplitSize(std::optional<int64_t> m, int64_t n,
                                    const DeviceInfo &device,
                                    bool rowsOverCluster, int64_t minPartials,
                                    int64_t maxPartials) {
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
  //
  // With max_partials P (chooseMaxPartials, one-warp blocks), 16: the waves
  // of F give way to one wave of P from F x 16 rows.
  int64_t best = rowsOverCluster   ? 32
                 : maxPartials > 0 ? kMaxPartialsSplit
                 : minPartials > 0 ? 256
                                   : 64;
  if (!m)
    return best;
  return std::max<int64_t>(1, std::min<int64_t>(best, *m));
}

int64_t mlir::norm::estimateBlocksPerSM(const KernelShape &shape,
                                        const RowLayout &layout,
                                        const DeviceInfo &device) {
  int64_t threads = std::max<int64_t>(32, layout.threads);
  int64_t registers = estimateRegisters(
      layout, shape.elementBytes, shape.fullOperands, shape.columnOutputs);
  // A cluster's blocks that hold their slices in registers (not staged)
  // load the next row's slices while they exchange the current row's sums:
  // two rows in flight. Without them the RMSNorm backward's clusters at
  // N = 12288 (192 registers under ptxas), 32771 and 40000 (213, 166) were
  // estimated at two blocks an SM and given two waves of partial rows;
  // one wave measured on the H200 (kernel time, 4 rounds;
  // bench/results/ab-2026-12-03-s38-v60-cluster-residency.log) 1.07-1.24x
  // at 288-4096 x 12288, 1.01-1.02x at 8192-16384, 1.04-1.33x at 64-1024
  // rows of 32771 and 40000 and level at 2048-4096.
  if (layout.clusterSize > 1 && layout.sharedStages <= 0)
    registers +=
        shape.fullOperands * rowSliceRegisters(layout, shape.elementBytes);
  int64_t blocks = blocksPerSMAtRegisters(
      threads, std::min<int64_t>(255, registers), device);
  if (layout.sharedStages > 0)
    blocks = std::min(blocks,
                      device.sharedMemoryPerSM /
                          stagedBlockBytes(shape, layout, layout.sharedStages));
  return std::max<int64_t>(1, blocks);
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
  return std::min<int64_t>(
      {3,
       blocksPerSMAtRegisters(threads, rereadRegisters(shape, layout), device),
       device.sharedMemoryPerSM /
           stagedBlockBytes(shape, layout, layout.sharedStages)});
}

/// The warps per SM that chooseMinPartials fills with partial rows where
/// blocks are small (at most this many blocks per SM).
constexpr int64_t kPartialWarpsPerSM = 16;

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
  // Rows cut into column slices get none (splitBlocksPerSM).
  return device.numSMs * splitBlocksPerSM(shape, plan, device);
}

int64_t mlir::norm::splitBlocksPerSM(const KernelShape &shape,
                                     const KernelPlan &plan,
                                     const DeviceInfo &device) {
  if (splitsIntoOneWave(shape, plan) || plan.layout.columnSlices > 1)
    return 0;
  int64_t blocks = std::max(estimateBlocksPerSM(shape, plan.layout, device),
                            plan.minBlocksPerSM);
  // Two blocks per SM, or as many as make 16 warps: the N = 1024 backwards
  // (128-thread blocks) ran 12% (RMSNorm) and 25% (LayerNorm) faster at
  // M = 16384 with 512 partial rows than with the 264 of two blocks per SM,
  // and the same at M >= 32768, where the split already gives ~512
  // (ab-2026-11-30-split-size.log). Blocks of one to three warps (N =
  // 256-768 bf16) take 16, 8 or 6 blocks per SM instead of 4 (session 44,
  // ab-2026-12-04-s44-short-partials.log, kernel time): N = 256 2.0x at
  // 65536 rows and 1.5x at 16384, N = 384-512 +3-20%, the LayerNorm
  // backward at N = 640-768 +6-10%, RMSNorm's there -1-2%. 32 warps per SM
  // (32 one-warp blocks) ran 6% faster at 65536 x 256 but 18% slower at
  // 16384 x 256 and 3-9% slower at N = 384-768.
  int64_t warpsPerBlock = ceilDiv(plan.layout.threads, 32);
  int64_t wanted = std::clamp<int64_t>(
      ceilDiv(kPartialWarpsPerSM, warpsPerBlock), 2, kPartialWarpsPerSM);
  return std::min(wanted, blocks);
}

int64_t mlir::norm::chooseSplitMinBlocksPerSM(const KernelShape &shape,
                                              const KernelPlan &plan,
                                              const DeviceInfo &device) {
  int64_t blocks = splitBlocksPerSM(shape, plan, device);
  if (blocks < 2)
    return 0;
  // Only where the estimate fills that wave (one more unit of 8 registers
  // would cost a block): elsewhere the bound leaves ptxas more registers
  // than it takes unbounded, which it then uses (one-warp blocks at N = 256,
  // 16 an SM: 64 registers became 80-88) without changing the wave.
  int64_t threads = std::max<int64_t>(32, plan.layout.threads);
  int64_t registers = estimateRegisters(
      plan.layout, shape.elementBytes, shape.fullOperands, shape.columnOutputs);
  if (blocksPerSMAtRegisters(threads, registers + 8, device) >= blocks)
    return 0;
  // Before, LayerNorm's backward at N = 3500 (448 threads, 264 partial rows
  // for two blocks an SM) got 96 registers from ptxas, one block an SM, 1.99
  // waves; bounded to two it fits 72 without spills: 1.27-1.32x at
  // 2048-16384 x 3500. RMSNorm's at N = 2500 (160 threads, 528 partial rows
  // for four blocks) got 128 registers and three; at four, 96 registers and
  // 36 bytes of spills, 1.09-1.21x (one wave of three blocks instead:
  // 1.11-1.19x). H200, bf16, kernel time, 3 rounds;
  // bench/results/h200-2026-12-04-s53-call1.log.
  return blocks;
}

/// Where chooseMinRowsPerPartial sets a floor: waves of at least three
/// blocks per SM, of clusters of at most 4. Measured on the H200 (bf16
/// backwards, kernel time; bench/results/ab-2026-12-03-s38-wide-partials.log,
/// 2 rounds, and -s38-min-rows-per-partial-*.log, 3 rounds, against no
/// floor):
///  - LayerNorm at N = 16384 (clusters of 4 at three blocks per SM, F = 90):
///    30 partial rows instead of 90 ran 1.05-1.25x at 128-320 rows; floors
///    of 4 / 6 / 8 rows 1.02-1.16x at 192-320 rows and 0.98-1.10x at
///    384-640 (16: 0.83-0.97x at 192-320).
///  - LayerNorm at N = 32768 (clusters of 8, three blocks per SM, F = 45):
///    floors of 8 / 12 / 16 rows 0.93-1.06x at 192-480 rows, no gain.
///  - RMSNorm at N = 12288 (clusters of 2, F = 132 from an estimate of two
///    blocks per SM, before estimateBlocksPerSM counted the next row's
///    registers; ptxas allows one): a floor of 4 rows 0.93-1.01x at 288-640
///    rows.
///  - LayerNorm at N = 24576 (two blocks per SM) 0.99-1.00x with 4-8 rows.
/// RMSNorm's kernels at N = 16384-32768 run one block per SM (F is the
/// slots) and lost 3-23% with fewer partial rows.
constexpr int64_t kFloorMinBlocksPerSM = 3;
constexpr int64_t kFloorMaxClusterSize = 4;

/// The floor of split kernels whose blocks have fewer than four warps, at
/// 16 warps of partial rows per SM (chooseMinPartials: 2112 partial rows of
/// one warp at N = 256): their few-hundred-byte rows make the partial rows'
/// workspace cost as much as the rows when a partial row sums one or two
/// rows. Measured on the H200 (session 44, RMSNorm and LayerNorm backwards
/// at 4096 x 256, kernel time): 4 rows a partial row (1024 partial rows)
/// 0.76 TB/s, 2 rows (2112) 0.64, 8 rows (512) 0.67; from M = 4 x 2112 the
/// floor is past. It yields to ceil(M / 528) rows, a quarter of
/// min_partials (norm.fused min_rows_per_partial), below 1585 rows, which
/// keep the two or three rows a partial row of before v74: four ran 8-10%
/// slower at 768-1500 x 256 (ab-2026-12-04-s44-v75-floor-yields.log).
constexpr int64_t kSmallBlockMinRowsPerPartial = 4;

/// Whether a split kernel with `plan` has blocks of fewer than four warps
/// with neither clusters nor column slices: those chooseMinPartials gives
/// more than four blocks per SM.
static bool smallBlockFloor(const KernelShape &shape, const KernelPlan &plan) {
  return shape.columnOutputs > 0 && plan.kind != KernelPlan::Kind::Cluster &&
         plan.layout.columnSlices <= 1 && plan.layout.threads < 4 * 32;
}

int64_t mlir::norm::chooseMinRowsPerPartial(const KernelShape &shape,
                                            const KernelPlan &plan,
                                            const DeviceInfo &device) {
  if (smallBlockFloor(shape, plan))
    return kSmallBlockMinRowsPerPartial;
  if (!splitsIntoOneWave(shape, plan) ||
      plan.layout.clusterSize > kFloorMaxClusterSize)
    return 0;
  int64_t slots = device.residentClusters(plan.layout.clusterSize);
  if (chooseMinPartials(shape, plan, device) < kFloorMinBlocksPerSM * slots)
    return 0;
  int64_t fewestRows = chooseShortRowsLimit(shape, device);
  if (fewestRows <= 0)
    return 0;
  // At most one cluster per slot at the fewest rows.
  return ceilDiv(fewestRows, slots);
}

int64_t mlir::norm::chooseMaxPartials(const KernelShape &shape,
                                      const KernelPlan &plan,
                                      const DeviceInfo &device) {
  if (!smallBlockFloor(shape, plan) || plan.layout.threads != 32)
    return 0;
  // Hopper holds at most 32 blocks an SM, whatever their registers.
  constexpr int64_t kMaxResidentBlocksPerSM = 32;
  int64_t blocks = std::min(estimateBlocksPerSM(shape, plan.layout, device),
                            kMaxResidentBlocksPerSM);
  return device.numSMs * blocks;
}

/// Empty if `value` of the split option `option` is -1 (the tuning rule),
/// 0 (off) or positive, else the error.
static std::string validateRuleOffOrPositive(const char *option,
                                             int64_t value) {
  if (value < -1)
    return std::string(option) +
           " must be -1 (the tuning rule), 0 (off) or positive, got " +
           std::to_string(value);
  return "";
}

std::string mlir::norm::validateMinPartials(int64_t partials) {
  return validateRuleOffOrPositive("min-partials", partials);
}

std::string mlir::norm::validateMaxPartials(int64_t partials) {
  return validateRuleOffOrPositive("max-partials", partials);
}

std::string mlir::norm::validateMinRowsPerPartial(int64_t rows) {
  return validateRuleOffOrPositive("min-rows-per-partial", rows);
}
