//===- RowStaging.h - rows staged in shared memory -----------*- C++ -*-===//
//
// Private to lib/Conversion: the rows of a row kernel's full inputs copied
// into shared memory `stages` rows ahead by the bulk copy engine
// (cp.async.bulk completing on an mbarrier), the alternative to prefetching
// the next row into registers (--norm-pipeline): deeper pipelines without
// the registers. See RowStaging.cpp for the protocol.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_ROWSTAGING_H
#define LIB_CONVERSION_ROWSTAGING_H

#include "NormDialect/Tuning/Tuning.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::norm {

/// Shared-memory stages for the full inputs of one row kernel.
class RowStaging {
public:
  /// `stages` rows in flight per input; rows of `n` elements. A block of a
  /// cluster (layout.clusterSize > 1) stages only its column slice, which
  /// starts at column `sliceBase`. With layout.l2PrefetchRows > 0, issuing
  /// row r also prefetches row r + layout.l2PrefetchRows into L2 if it is
  /// below `prefetchEnd`.
  RowStaging(const RowLayout &layout, int64_t n, int64_t stages,
             Value sliceBase, Value prefetchEnd)
      : layout(layout), n(n), stages(stages),
        stageElements(std::min(n, layout.sliceWidth())), sliceBase(sliceBase),
        prefetchEnd(prefetchEnd) {}

  /// Carves one stage buffer per input in `fullInputs` (memrefs M x N) and
  /// one row buffer per input in `columnInputs` (memrefs N) out of the
  /// kernel's dynamic shared memory (at `b`, the kernel's entry) and adds
  /// the mbarriers to `func`. Sets `norm.dynamic_shared_bytes` on `func`:
  /// the launch must provide that much (above 48 KB the runtime opts the
  /// kernel in first).
  void allocate(OpBuilder &b, gpu::GPUFuncOp func, Location loc,
                ArrayRef<Value> fullInputs, ArrayRef<Value> columnInputs);

  /// Thread 0 initializes the mbarriers; a block barrier publishes them.
  void init(OpBuilder &b, Location loc, Value threadId);

  /// Thread 0 starts copying row `row` of every input into stage
  /// `localRow % stages`, if `row < rowEnd` (and the L2 prefetch ahead).
  void issue(OpBuilder &b, Location loc, Value threadId, Value row,
             Value localRow, Value rowEnd);

  /// Waits until the copy of local row `localRow` has landed and returns
  /// its stage index.
  Value wait(OpBuilder &b, Location loc, Value localRow);

  /// The stage buffer of `fullInputs[index]`: memref<stages x W/VW x
  /// vector<VW x T>> in shared memory (W: the row, or this block's slice).
  Value buffer(unsigned index) const { return buffers[index]; }

  /// The copy of `columnInputs[index]` (this block's columns of it):
  /// memref<W/VW x vector<VW x T>> in shared memory. Each thread writes and
  /// reads only its own vectors, so the copy needs no barrier.
  Value columnBuffer(unsigned index) const { return columnBuffers[index]; }

  /// Index of the vector at global column `column` in a stage buffer.
  Value vectorIndex(OpBuilder &b, Location loc, Value column) const;

private:
  /// Thread 0's L2 prefetch of row `row` + layout.l2PrefetchRows (this
  /// block's part of it), where that row is below prefetchEnd.
  void prefetchAhead(OpBuilder &b, Location loc, Value row);

  Value stageOf(OpBuilder &b, Location loc, Value localRow);

  /// Elements of one input a stage receives for one row: stageElements,
  /// fewer for the last slice of a cluster when it ends with the row.
  Value stagedElements(OpBuilder &b, Location loc);

  RowLayout layout;
  int64_t n, stages;
  /// Elements of one input a stage holds (N, or the slice width).
  int64_t stageElements;
  /// First column of this block's slice (null: the whole row).
  Value sliceBase;
  /// Rows below it may be prefetched into L2.
  Value prefetchEnd;
  SmallVector<Value> sources, buffers, columnBuffers;
  /// Bytes of one element of each input, and of all inputs together (what
  /// a stage's mbarrier expects per staged column).
  SmallVector<int64_t> elementBytes;
  int64_t bytesPerColumn = 0;
  Value barriers;
};

} // namespace mlir::norm

#endif // LIB_CONVERSION_ROWSTAGING_H
