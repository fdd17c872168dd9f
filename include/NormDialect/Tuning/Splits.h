//===- Splits.h - split column reductions and residency ---------*- C++ -*-===//
//
// The split of column reductions into partial rows: rows per partial, how
// many partials fill the GPU, and the blocks per SM that rests on.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_SPLITS_H
#define NORMDIALECT_TUNING_SPLITS_H

#include "NormDialect/Tuning/KernelPlan.h"

#include <optional>
#include <string>

namespace mlir::norm {

/// A split no M reaches: with min_partials F, rows per partial ceil(M / F).
constexpr int64_t kUncappedSplit = 1 << 20;

/// Rows per partial sum for a split column reduction over an M x N space.
/// `m` is std::nullopt when M is only known at run time. Each block of the
/// persistent grid reduces `split` rows in registers and writes one f32
/// partial row, so the split trades grid size (warps per SM) against
/// workspace traffic and the combine; the constant is measured (see the
/// definition).
/// `rowsOverCluster`: the kernel's rows are spread over a thread block
/// cluster (chooseClusterLayout), which measured best with smaller splits.
/// `minPartials`: the kernel's min_partials F (0: none), with which the
/// split caps the rows per partial of whole waves of F partial rows
/// (FusedOp::buildRowsPerPartial) instead of setting them. `maxPartials`:
/// the kernel's max_partials P (0: none, chooseMaxPartials), past whose
/// F x split rows one wave of P partial rows takes over.
int64_t chooseSplitSize(std::optional<int64_t> m, int64_t n,
                        const DeviceInfo &device, bool rowsOverCluster = false,
                        int64_t minPartials = 0, int64_t maxPartials = 0);

/// Blocks of a planned kernel that one SM holds at once, by threads,
/// estimated registers (estimateRegisters, allocated in multiples of 8 and
/// counted in whole warps per quarter of the register file; a cluster's
/// blocks that hold their slices in registers also hold the next row's)
/// and staged shared memory; at least 1.
int64_t estimateBlocksPerSM(const KernelShape &shape, const RowLayout &layout,
                            const DeviceInfo &device);

/// Whether a split kernel with `plan` is given one wave of clusters
/// (chooseMinPartials) and hence an uncapped split: kernels over clusters
/// with column outputs.
bool splitsIntoOneWave(const KernelShape &shape, const KernelPlan &plan);

/// The fewest partial rows a split column reduction should have when M allows
/// (norm.fused min_partials; 0: none): the GPU runs one block per partial row,
/// and with the split of chooseSplitSize alone a small M leaves SMs idle (M =
/// 4097 at 64 rows per partial: 65 blocks for 132 SMs). A split kernel over
/// clusters instead gets one wave: min_partials = the resident clusters
/// (DeviceInfo::residentClusters) times its blocks per SM (estimated, or
/// rereadClusterBlocksPerSM; at most 3), with an uncapped split
/// (kUncappedSplit), so each cluster walks ceil(M / F) rows. Evidence:
/// docs/tuning.md, chooseMinPartials.
int64_t chooseMinPartials(const KernelShape &shape, const KernelPlan &plan,
                          const DeviceInfo &device);

/// The blocks per SM whose one wave chooseMinPartials fills with the
/// partial rows of a split kernel with `plan` that spans neither clusters
/// nor column slices (0 for those): its estimated blocks per SM (or
/// `plan.minBlocksPerSM`, if more), at most as many as make 16 warps or
/// two, whichever is more. A kernel whose warps hold several rows
/// (RowLayout::rowGroups) from two full inputs takes every block its
/// estimated registers allow, the next row's prefetched slices counted.
int64_t splitBlocksPerSM(const KernelShape &shape, const KernelPlan &plan,
                         const DeviceInfo &device);

/// The blocks per SM a split kernel with `plan` asks of ptxas
/// (KernelPlan::minBlocksPerSM; 0: none): splitBlocksPerSM where its
/// estimated registers fill that wave, so that a kernel whose registers
/// come out over the estimate still runs its partial rows in one wave.
int64_t chooseSplitMinBlocksPerSM(const KernelShape &shape,
                                  const KernelPlan &plan,
                                  const DeviceInfo &device);

/// Empty if `partials` is a valid min-partials option (-1: the rule, 0:
/// off, else the count, up to 2^31 - 1), else the error.
std::string validateMinPartials(int64_t partials);

/// The fewest rows a partial row of a split kernel with `plan` sums
/// (norm.fused min_rows_per_partial; 0: no floor beyond 1). Where one wave
/// of clusters (chooseMinPartials) counts three blocks per SM, its partial
/// rows at a few hundred rows sum two or three rows each, and their
/// workspace (N f32 sums per column output, written and combined) costs
/// about as much as the rows; the floor is the rows that spread the kernel's
/// fewest rows (chooseShortRowsLimit; below it the pair runs) over one
/// cluster per cluster slot at one block per SM, so the wave of F partial
/// rows builds up from there as M grows. Measured to pay for clusters of up
/// to 4 (LayerNorm backward, N = 16384) only; 0 for clusters of 8 and more,
/// waves of fewer blocks per SM and past the short-rows range. Split
/// kernels of blocks under four warps (N = 256-768 bf16, 16 warps per SM of
/// partial rows) get a floor of four rows: at 4096 x 256 two rows a partial
/// row made the workspace cost as much as the rows (the floor yields below
/// a quarter of min_partials partial rows, norm.fused). Split kernels of
/// row groups that take every resident block (splitBlocksPerSM) get eight
/// rows. 0 for every other kernel.
int64_t chooseMinRowsPerPartial(const KernelShape &shape,
                                const KernelPlan &plan,
                                const DeviceInfo &device);

/// Empty if `rows` is a valid min-rows-per-partial option (-1: the rule, 0:
/// off, else the floor, up to 2^31 - 1), else the error.
std::string validateMinRowsPerPartial(int64_t rows);

/// The most partial rows a split kernel with `plan` should have (norm.fused
/// max_partials; 0: none): one wave of the blocks the GPU holds at once, for
/// split kernels of one-warp blocks (N = 256 bf16: 32 blocks an SM, 4224
/// partial rows). Every other kernel: 0. Evidence: docs/tuning.md,
/// chooseMaxPartials.
int64_t chooseMaxPartials(const KernelShape &shape, const KernelPlan &plan,
                          const DeviceInfo &device);

/// Empty if `partials` is a valid max-partials option (-1: the rule, 0:
/// off, else the cap, up to 2^31 - 1), else the error.
std::string validateMaxPartials(int64_t partials);

/// Blocks per SM of a cluster kernel that re-reads its staged slices
/// (RowLayout::rereadStaged; 0 for any other kernel): up to three, as its
/// staged slices and threads allow. Such kernels keep only their column
/// accumulators in registers (80 at 16 elements a thread), which the
/// register estimate of row-resident kernels overstates; planKernel bounds
/// the registers of those at clusters of 8 and more to match.
int64_t rereadClusterBlocksPerSM(const KernelShape &shape,
                                 const RowLayout &layout,
                                 const DeviceInfo &device);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_SPLITS_H
