//===- GroupReductions.h - group reductions of row kernels --*- C++ -*-===//
//
// Private to lib/Conversion: the code a row kernel (RowKernelBuilder.cpp)
// emits for norm.group_reduce. The layout keeps each group's vectors on
// consecutive lanes of one chunk (chooseGroupRowLayout): a group's total
// is a butterfly of xor shuffles over its lanes, and for groups of several
// warps one exchange of warp totals through shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_GROUPREDUCTIONS_H
#define LIB_CONVERSION_GROUPREDUCTIONS_H

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Tuning/RowLayouts.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::norm {

/// Emits the group reductions of one row kernel with layout `layout`,
/// groups of `groupSize` columns and `reductionsPerRow` norm.group_reduce
/// ops per row. Every total is the same bitwise in every lane of its group
/// and does not depend on timing.
class GroupReductions {
public:
  GroupReductions(const RowLayout &layout, int64_t groupSize,
                  int64_t reductionsPerRow)
      : layout(layout), lanes(groupSize / layout.vectorWidth),
        reductionsPerRow(reductionsPerRow) {}

  /// Adds the shared buffer of warp totals [parity][reduction][chunk][warp]
  /// to `func` where a group spans several warps (none otherwise).
  void allocate(gpu::GPUFuncOp func, Location loc);

  /// The calling thread: its index within the row and its lane.
  void setThread(Value threadInRow, Value laneInWarp) {
    threadId = threadInRow;
    lane = laneInWarp;
  }

  /// The group totals of `partials` (per chunk: the thread's combined
  /// vector, with `combiner`) for reduction `index` of the row body, on
  /// row `row` of a block whose first row is `firstRow`: one total per
  /// chunk, that of the chunk's group.
  SmallVector<Value> reduce(OpBuilder &b, Location loc, Combiner combiner,
                            ArrayRef<Value> partials, int64_t index, Value row,
                            Value firstRow);

  /// Whether this thread is its group's first lane in every chunk (the one
  /// that stores the group's outputs).
  Value isGroupLeader(OpBuilder &b, Location loc);

private:
  const RowLayout &layout;
  /// Vectors (lanes) of a group: a power of two.
  int64_t lanes;
  int64_t reductionsPerRow;
  Value threadId, lane;
  /// Warp totals of groups wider than a warp (null otherwise).
  Value warpSlots;
};

} // namespace mlir::norm

#endif // LIB_CONVERSION_GROUPREDUCTIONS_H
