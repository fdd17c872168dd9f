//===- Staging.h - rows staged in shared memory -----------------*- C++ -*-===//
//
// Rows staged in shared memory by the bulk copy engine: how deep, whether a
// kernel re-reads them, and outputs stored by bulk copies.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_STAGING_H
#define NORMDIALECT_TUNING_STAGING_H

#include "NormDialect/Tuning/KernelPlan.h"

#include <string>

namespace mlir::norm {

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

/// Whether a kernel with staged rows reads them from shared memory again after
/// each row reduction (with its column inputs copied to shared memory once)
/// rather than keeping them in registers: for the kernels over clusters with
/// two column outputs (LayerNorm backward), whose xhat and dy * w otherwise
/// stay live across both reductions (158-188 registers, one block per SM;
/// 73-105 re-read). Evidence: docs/tuning.md, rereadsStagedRows.
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

/// The analytic staging depth where the table has none: two stages (the next
/// row lands while this one is reduced; the bulk copy engine keeps the whole
/// row in flight with no registers) for rows a block keeps whole of at most 16
/// KB per input, when chooseSharedStages allows them and they leave room for
/// two blocks per SM. Evidence: docs/tuning.md, defaultSharedStages.
int64_t defaultSharedStages(const KernelShape &shape, const RowLayout &layout,
                            const DeviceInfo &device);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_STAGING_H
