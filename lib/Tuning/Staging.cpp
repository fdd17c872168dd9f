//===- Staging.cpp - rows staged in shared memory -------------------------===//
//
// Rows staged in shared memory by bulk copies: the bytes a block stages,
// which kernels read their stages again, and how deep they stage (the
// request, the tuning table or the rule).
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Tuning/Staging.h"

#include "TuningHelpers.h"

#include <algorithm>

using namespace mlir::norm;
using namespace mlir::norm::detail;

int64_t mlir::norm::stagedBytes(const KernelShape &shape,
                                const RowLayout &layout, int64_t stages) {
  // A cluster block stages its column slice; a row-resident block the row.
  int64_t elements = std::min(shape.n, layout.sliceWidth());
  int64_t columnCopy = rereads(shape, layout) ? shape.columnInputBytes : 0;
  return (stages * shape.fullOperands * shape.elementBytes + columnCopy) *
         elements;
}

/// The output row slots of a bulk-storing block (layout.bulkStores).
static int64_t bulkStoreBytes(const KernelShape &shape) {
  return kBulkStoreSlots * shape.fullOutputs * shape.n * shape.elementBytes;
}

/// Shared memory a block with `stages` staged rows needs: the stages and
/// column copies (stagedBytes), the output slots of bulk stores, plus 3 KB
/// for the reductions' buffers, the mbarriers and the row inputs.
int64_t mlir::norm::detail::stagedBlockBytes(const KernelShape &shape,
                                             const RowLayout &layout,
                                             int64_t stages) {
  // Static shared memory beside the stages: reduction slots and mbarriers
  // (under 1 KB) and the row inputs of up to 256 rows (mean and rstd, 2 KB;
  // RowKernelBuilder's kMaxStagedRowInputRows).
  return stagedBytes(shape, layout, stages) + 3 * 1024 +
         (layout.bulkStores ? bulkStoreBytes(shape) : 0);
}

bool mlir::norm::rereadsStagedRows(const KernelShape &shape,
                                   const RowLayout &layout) {
  return layout.clusterSize > 1 && shape.columnOutputs >= 2;
}

int64_t mlir::norm::chooseSharedStages(const KernelShape &shape,
                                       const RowLayout &layout,
                                       const DeviceInfo &device,
                                       int64_t requested) {
  // Rows are staged by bulk copies (Hopper's).
  if (requested <= 0 || !device.hasBulkCopies() || shape.rowReductions == 0 ||
      layout.rowGroups != 1 || layout.columnSlices != layout.clusterSize ||
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
  // Measured on the H200 (bf16, 2 stages vs the register
  // prefetch): rows of 32 KB and more per input lost 2-11% (RMSNorm forward
  // N = 16384 3.43 vs 3.61 TB/s; every cluster kernel of the RMSNorm
  // forward and backward and the LayerNorm forward at N = 32K-128K), so the
  // rule stages only rows a block keeps whole, up to 16 KB per input.
  if (layout.clusterSize > 1 || shape.n * shape.elementBytes > 16 * 1024)
    return 0;
  // A forward with a prologue (the residual add) keeps the register
  // prefetch below rows of 16 KB: staging each of its inputs lost to it
  // there, and won at 16 KB over a few rows an SM. Evidence:
  // docs/tuning.md, defaultSharedStages.
  if (isForward(shape) && shape.fullOperands > 1 &&
      shape.n * shape.elementBytes < 16 * 1024)
    return 0;
  if (chooseSharedStages(shape, layout, device, stages) != stages)
    return 0;
  return 2 * stagedBlockBytes(shape, layout, stages) <= device.sharedMemoryPerSM
             ? stages
             : 0;
}

bool mlir::norm::allowsBulkStores(const KernelShape &shape,
                                  const KernelPlan &plan,
                                  const DeviceInfo &device) {
  const RowLayout &layout = plan.layout;
  // Staged row-resident kernels have a block-wide reduction per row
  // (chooseSharedStages); clusters and column slices store parts of rows.
  if (plan.kind != KernelPlan::Kind::RowResident || layout.sharedStages <= 0 ||
      layout.rowGroups != 1 || layout.clusterSize != 1 ||
      layout.columnSlices != 1 || shape.fullOutputs == 0 ||
      layout.threadsPerRow() <= 32)
    return false;
  // Bulk copies move 16-byte multiples between 16-byte aligned addresses.
  int64_t narrowest = shape.narrowestOutputBytes > 0
                          ? shape.narrowestOutputBytes
                          : shape.elementBytes;
  if (shape.n * narrowest % 16 != 0)
    return false;
  RowLayout storing = layout;
  storing.bulkStores = true;
  return stagedBlockBytes(shape, storing, layout.sharedStages) <=
         device.sharedMemoryPerBlock;
}

bool mlir::norm::chooseBulkStores(const KernelShape &shape,
                                  const KernelPlan &plan,
                                  const DeviceInfo &device, int64_t requested) {
  if (requested == 0 || !allowsBulkStores(shape, plan, device))
    return false;
  if (requested > 0)
    return true;
  // Measured on the H200 (bf16, kernel time): LayerNorm backwards gain
  // 0-3% at every N staged (1000-7168) in three runs, RMSNorm backwards
  // 1-2% at N = 2048-7168 but lose 0-2% at N = 1000-1024; forwards (those
  // that save the statistics) lose 1-5% (why is not known; the whole-line
  // L2 writes it buys at N = 1000 were not what limited them), so they keep
  // the threads' stores.
  if (shape.columnOutputs == 0)
    return false;
  if (shape.columnOutputs < 2 && shape.n * shape.elementBytes < 4096)
    return false;
  // None of the measured classes lost a block per SM to the slots (ptxas's
  // registers, scripts/kernel-stats.py); where the estimate says a class
  // would, the rule keeps the threads' stores. (The estimate can miss it:
  // f32 RMSNorm N = 1024 has 8 blocks per SM by shared memory with the
  // slots, 9 by ptxas's 56 registers without, but 8 by the estimate's.)
  RowLayout storing = plan.layout;
  storing.bulkStores = true;
  return estimateBlocksPerSM(shape, storing, device) >=
         estimateBlocksPerSM(shape, plan.layout, device);
}

std::string mlir::norm::validateBulkStores(int64_t mode) {
  if (mode < -1 || mode > 1)
    return "bulk-stores must be -1 (the tuning rule), 0 (off) or 1 (on), "
           "got " +
           std::to_string(mode);
  return {};
}
