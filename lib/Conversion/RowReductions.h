//===- RowReductions.h - row reductions of row kernels ------*- C++ -*-===//
//
// Private to lib/Conversion: the code a row kernel (RowKernelBuilder.cpp)
// emits for norm.row_reduce, from warp shuffles to the exchange of block
// totals across a thread block cluster (or block group, BlockGroups.h), and
// the shared memory it needs.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_ROWREDUCTIONS_H
#define LIB_CONVERSION_ROWREDUCTIONS_H

#include "BlockGroups.h"

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Tuning/RowLayouts.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::norm {

/// Emits the row reductions of one kernel with layout `layout` and
/// `reductionsPerRow` norm.row_reduce ops per row. Every total is the same
/// bitwise in every thread of the row (and every block of a cluster), and
/// does not depend on timing: reductions are deterministic.
class RowReductions {
public:
  RowReductions(const RowLayout &layout, int64_t reductionsPerRow)
      : layout(layout), reductionsPerRow(reductionsPerRow) {}

  /// Adds the shared buffers the reductions need to `func` as workgroup
  /// attributions (none for a warp per row).
  void allocate(gpu::GPUFuncOp func, Location loc);

  /// The calling thread: its index within the row, its lane, and (in a
  /// cluster) its block's rank, the column slice it owns.
  void setThread(Value threadInRow, Value laneInWarp, Value rank) {
    threadId = threadInRow;
    lane = laneInWarp;
    clusterRank = rank;
  }

  /// The block group whose blocks share the row (RowLayout::globalExchange):
  /// block totals are exchanged through it instead of the cluster's shared
  /// memory.
  void setBlockGroups(BlockGroups *groups) { blockGroups = groups; }

  /// Before the first row of a cluster kernel (see the definition).
  void initClusterBarriers(OpBuilder &b, Location loc);

  /// The totals of `partials` (one per thread and reduction `indices[i]`
  /// of the row body, combined with `combiners[i]`) over row `row` of a
  /// block whose first row is `firstRow`: all values in one exchange.
  SmallVector<Value> reduce(OpBuilder &b, Location loc,
                            ArrayRef<Combiner> combiners,
                            SmallVector<Value> partials,
                            ArrayRef<int64_t> indices, Value row,
                            Value firstRow);

  /// The mean and M2 (RowMoments.h) of row `row` from each thread's `mean`
  /// and `m2` over `elementsPerThread` elements, every thread the same
  /// count: pairwise merges over a butterfly of shuffles, then one exchange
  /// of the warps' moments through the slots of reductions 0 and 1, merged
  /// the same way. Identical bitwise in every thread of the row. For the
  /// layouts fusesRowMoments accepts (one block a row, a power of two of
  /// warps), with two reductions' slots allocated.
  std::pair<Value, Value> reduceMoments(OpBuilder &b, Location loc, Value mean,
                                        Value m2, int64_t elementsPerThread,
                                        Value row);

  /// After the last row of a cluster kernel: no block exits while a total
  /// of its cluster may still be on its way to it.
  void finishCluster(OpBuilder &b, Location loc);

private:
  Value warpReduce(OpBuilder &b, Location loc, Combiner combiner, Value v,
                   int64_t width);
  std::pair<Value, Value> butterflyMoments(OpBuilder &b, Location loc,
                                           Value mean, Value m2, int64_t width,
                                           double count);
  void publishWarpValues(OpBuilder &b, Location loc, ArrayRef<Value> values,
                         ArrayRef<int64_t> slots, Value parity);
  SmallVector<Value> blockReduce(OpBuilder &b, Location loc,
                                 ArrayRef<Combiner> combiners,
                                 SmallVector<Value> partials,
                                 ArrayRef<int64_t> indices, Value parity);
  SmallVector<Value> clusterReduce(OpBuilder &b, Location loc,
                                   ArrayRef<Combiner> combiners,
                                   ArrayRef<Value> blockTotals,
                                   ArrayRef<int64_t> indices, Value localRow);

  RowLayout layout;
  int64_t reductionsPerRow;
  Value threadId, lane, clusterRank;
  /// Shared buffers (null when unused): warp totals, block totals received
  /// from the cluster, and the mbarriers they complete on.
  Value warpSlots, clusterSlots, clusterBarriers;
  BlockGroups *blockGroups = nullptr;
};

} // namespace mlir::norm

#endif // LIB_CONVERSION_ROWREDUCTIONS_H
