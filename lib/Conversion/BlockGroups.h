//===- BlockGroups.h - rows shared by block groups -----------*- C++ -*-===//
//
// Private to lib/Conversion: the kernel side of a block group
// (RowLayout::globalExchange), the blocks that share a row where the target
// has no thread block clusters. Each block takes a ticket from a zeroed
// global workspace, which gives its group and column slice, and the blocks
// of a group exchange their row totals through slots in that workspace.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_BLOCKGROUPS_H
#define LIB_CONVERSION_BLOCKGROUPS_H

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Tuning/RowLayouts.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::norm {

/// Bytes at the start of each group's row of a block group workspace: in
/// the first row, the ticket counter (one 128-byte line of its own).
constexpr int64_t kBlockGroupTicketBytes = 128;

/// f32 elements of one group's row of the zeroed workspace of a block group
/// launch (a groups x this memref): the ticket line, then 2 (row parity) x
/// `reductionsPerRow` x `groupSize` slots of 8 bytes (a total and the row
/// it belongs to). The workspace is declared f32 only so that every
/// runtime allocates it; the kernel reads it as words.
int64_t blockGroupWorkspaceRow(int64_t groupSize, int64_t reductionsPerRow);

/// Emits a block group's code in a row kernel with layout `layout` (its
/// clusterSize blocks a group) and `reductionsPerRow` norm.row_reduce ops.
class BlockGroups {
public:
  BlockGroups(const RowLayout &layout, int64_t reductionsPerRow)
      : layout(layout), reductionsPerRow(reductionsPerRow) {}

  /// Adds the shared buffers (the ticket, the group totals [parity]
  /// [reduction]) to `func`.
  void allocate(gpu::GPUFuncOp func, Location loc);

  /// At the kernel's start: thread 0 takes the next ticket of `workspace`
  /// (a kernel argument) and every thread of the block reads it, one
  /// barrier later. Blocks take tickets in the order they start, so the
  /// group of every block that waits for its peers has all of them started
  /// or about to start, whatever order the GPU starts blocks in. Returns
  /// the block's group (ticket / clusterSize) and its rank in the group,
  /// the column slice it owns (ticket % clusterSize).
  std::pair<Value, Value> takeTicket(OpBuilder &b, Location loc,
                                     Value workspace, Value threadId);

  /// The group totals of each block total `blockTotals[i]` (reduction
  /// `indices[i]`, combined with `combiners[i]`) of the group's local row
  /// `localRow`, the same bitwise in every thread of every block of the
  /// group: thread 0 publishes the block's totals, each tagged with the
  /// row, to its slots; lanes of warp 0 wait for the peers' slots of this
  /// row, combine them in a butterfly (a tree of fixed shape) and leave the
  /// totals in shared memory for the block, one barrier later. Slots
  /// alternate with the row's parity: a block publishes row i + 2 only
  /// after it has read every peer's row i + 1, which each peer publishes
  /// after its barrier following its reads of row i.
  SmallVector<Value> reduce(OpBuilder &b, Location loc,
                            ArrayRef<Combiner> combiners,
                            ArrayRef<Value> blockTotals,
                            ArrayRef<int64_t> indices, Value localRow,
                            Value threadId, Value lane);

private:
  RowLayout layout;
  int64_t reductionsPerRow;
  /// Shared memory: the ticket and the group totals.
  Value ticketSlot, totals;
  /// The workspace's global address and bytes of a group's row (its
  /// type's), the block's group and rank.
  Value base, group, rank;
  int64_t rowBytes = 0;
};

} // namespace mlir::norm

#endif // LIB_CONVERSION_BLOCKGROUPS_H
