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
  // 64 rows a partial row without min_partials; 256 with it, where the
  // split only decides how many waves of F partial rows a large M runs
  // (ceil(M / (F * split))); 32 for rows over a cluster, whose one block an
  // SM balances its waves better with twice the clusters; 16 with
  // max_partials, whose waves of F give way to one wave of P from F x 16
  // rows. Bundles have a dynamic M, so the split never depends on it beyond
  // never exceeding it (docs/tuning.md, "Splits").
  int64_t best = rowsOverCluster   ? 32
                 : maxPartials > 0 ? kMaxPartialsSplit
                 : minPartials > 0 ? 256
                                   : 64;
  if (!m)
    return best;
  return std::max<int64_t>(1, std::min<int64_t>(best, *m));
}

/// Registers the next row's slices of the full inputs take in a thread of
/// `layout` that loads them while it works on the current row.
static int64_t nextRowRegisters(const KernelShape &shape,
                                const RowLayout &layout) {
  return shape.fullOperands * rowSliceRegisters(layout, shape.elementBytes);
}

/// Blocks of `layout` an SM holds at `registers` a thread (at most 255).
static int64_t blocksAtRegisters(const RowLayout &layout, int64_t registers,
                                 const DeviceInfo &device) {
  return blocksPerSMAtRegisters(std::max<int64_t>(32, layout.threads),
                                std::min<int64_t>(255, registers), device);
}

int64_t mlir::norm::estimateBlocksPerSM(const KernelShape &shape,
                                        const RowLayout &layout,
                                        const DeviceInfo &device) {
  int64_t registers = estimateRegisters(
      layout, shape.elementBytes, shape.fullOperands, shape.columnOutputs);
  // A cluster's blocks that hold their slices in registers (not staged)
  // load the next row's slices while they exchange the current row's sums:
  // two rows in flight, whose registers the estimate counts so that the
  // partial rows fit one wave (docs/tuning.md, "Splits").
  if (layout.clusterSize > 1 && layout.sharedStages <= 0)
    registers += nextRowRegisters(shape, layout);
  int64_t blocks = blocksAtRegisters(layout, registers, device);
  if (layout.sharedStages > 0)
    blocks = std::min(blocks,
                      device.sharedMemoryPerSM /
                          stagedBlockBytes(shape, layout, layout.sharedStages));
  return std::max<int64_t>(1, blocks);
}

/// Clusters, or block groups (RowLayout::globalExchange), of `layout` the
/// GPU holds at once with `blocksPerSM` blocks an SM.
static int64_t residentRowSharers(const RowLayout &layout,
                                  const DeviceInfo &device,
                                  int64_t blocksPerSM) {
  if (layout.globalExchange)
    return device.residentBlockGroups(layout.clusterSize, blocksPerSM);
  return device.residentClusters(layout.clusterSize) * blocksPerSM;
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
  // One wave of clusters (or block groups): up to three blocks per SM
  // (docs/tuning.md, "Splits").
  if (splitsIntoOneWave(shape, plan))
    return residentRowSharers(plan.layout, device,
                              std::min<int64_t>(3, blocks));
  // Rows cut into column slices get none (splitBlocksPerSM).
  return device.numSMs * splitBlocksPerSM(shape, plan, device);
}

/// The most full inputs of a kernel of row groups whose register estimate
/// (with the next row's slices) matched ptxas at rows of 64 and 128 bf16:
/// RMSNorm's backward 72 against 70, LayerNorm's 80 against 80. The gated
/// backward's three (x, z and dy, with the activation's terms) came out at
/// 108-112 against an estimate of 80 (docs/tuning.md, "Splits").
constexpr int64_t kRowGroupResidencyMaxOperands = 2;

/// Whether a split kernel of row groups takes every block an SM holds
/// (splitBlocksPerSM): at most kRowGroupResidencyMaxOperands full inputs.
static bool fillsResidentRowGroupBlocks(const KernelShape &shape,
                                        const KernelPlan &plan) {
  return plan.layout.rowGroups > 1 &&
         shape.fullOperands <= kRowGroupResidencyMaxOperands;
}

int64_t mlir::norm::splitBlocksPerSM(const KernelShape &shape,
                                     const KernelPlan &plan,
                                     const DeviceInfo &device) {
  if (splitsIntoOneWave(shape, plan) || plan.layout.columnSlices > 1)
    return 0;
  // Row groups: the partial rows of every resident block (RMSNorm's
  // backward at 262144 x 128 ran two waves of 528 partial rows, 1053, as
  // 1.14 waves of its 924 slots).
  if (fillsResidentRowGroupBlocks(shape, plan)) {
    int64_t registers =
        estimateRegisters(plan.layout, shape.elementBytes, shape.fullOperands,
                          shape.columnOutputs);
    if (plan.numStages != 1)
      registers += nextRowRegisters(shape, plan.layout);
    return std::max(plan.minBlocksPerSM,
                    blocksAtRegisters(plan.layout, registers, device));
  }
  int64_t blocks = std::max(estimateBlocksPerSM(shape, plan.layout, device),
                            plan.minBlocksPerSM);
  // Two blocks per SM, or as many as make 16 warps, so that small blocks
  // (N = 256-1024) still keep enough warps of partial rows in flight
  // (docs/tuning.md, "Splits").
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
  // Unbounded, ptxas took registers that cost a block an SM and a second
  // wave of partial rows (docs/tuning.md, "Splits").
  return blocks;
}

/// Where chooseMinRowsPerPartial sets a floor: waves of at least three
/// blocks per SM, of clusters of at most 4, the only kernels a floor
/// measured faster for (docs/tuning.md, "Splits").
constexpr int64_t kFloorMinBlocksPerSM = 3;
constexpr int64_t kFloorMaxClusterSize = 4;

/// The floor of split kernels whose blocks have fewer than four warps, at
/// 16 warps of partial rows per SM (chooseMinPartials: 2112 partial rows of
/// one warp at N = 256): their few-hundred-byte rows make the partial rows'
/// workspace cost as much as the rows when a partial row sums one or two
/// rows. It yields to ceil(M / 528) rows, a quarter of min_partials
/// (norm.fused min_rows_per_partial), below 1585 rows (docs/tuning.md,
/// "Splits").
constexpr int64_t kSmallBlockMinRowsPerPartial = 4;

/// The floor of row-group split kernels that take every resident block
/// (924 partial rows for RMSNorm's backward, 792 for LayerNorm's): at
/// 1024-4099 rows of 64 and 128 bf16 their partial rows of one to five rows
/// cost their combine more than the rows; eight rows a partial row ran
/// 1.03-1.17x there, level at 8192 and 16384 rows (docs/tuning.md,
/// "Splits").
constexpr int64_t kRowGroupMinRowsPerPartial = 8;

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
  if (shape.columnOutputs > 0 && fillsResidentRowGroupBlocks(shape, plan))
    return kRowGroupMinRowsPerPartial;
  if (!splitsIntoOneWave(shape, plan) ||
      plan.layout.clusterSize > kFloorMaxClusterSize)
    return 0;
  int64_t slots = residentRowSharers(plan.layout, device, 1);
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
/// 0 (off) or positive up to kMaxRowCountOption, else the error.
static std::string validateRuleOffOrPositive(const char *option,
                                             int64_t value) {
  if (value < -1 || value > kMaxRowCountOption)
    return std::string(option) +
           " must be -1 (the tuning rule), 0 (off) or positive up to " +
           std::to_string(kMaxRowCountOption) + ", got " +
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
