//===- ClusterLayouts.h - rows over thread block clusters -------*- C++ -*-===//
//
// Layouts of kernels whose rows do not fit one block: the smallest cluster
// that keeps a row on chip, and the backwards that re-read staged slices.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_CLUSTER_LAYOUTS_H
#define NORMDIALECT_TUNING_CLUSTER_LAYOUTS_H

#include "NormDialect/Tuning/RowLayouts.h"

#include <optional>

namespace mlir::norm {

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

/// chooseClusterLayout for a kernel: a kernel with one row reduction
/// (RMSNorm) takes twice the threads per block where the same cluster holds
/// its slices with half the elements a thread (16 registers to spare, no
/// wider slice); where no cluster keeps the rows in registers, a kernel that
/// re-reads staged rows (rereadsStagedRows: two column outputs) may still
/// take one whose blocks keep only their column accumulators in registers
/// and stage their slices in shared memory. On a target without clusters,
/// a kernel with column outputs and one row reduction gets the layout a
/// cluster of up to kMaxBlockGroupSize blocks would have as a block group
/// (RowLayout::globalExchange), and any other kernel none.
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
/// once, which leaves 20 of its 132 SMs idle (clusters of 4 and 8: 12). Returns
/// chooseWideRereadLayout's; nullopt where `layout` has 8 blocks or fewer, for
/// forwards, or where none fits. Evidence: docs/tuning.md,
/// chooseWideRereadCluster.
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

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_CLUSTER_LAYOUTS_H
