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

#include "NormDialect/Tuning/RowLayouts.h"

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

  /// Carves one stage buffer per input in `fullInputs` (memrefs M x N), one
  /// row buffer per input in `columnInputs` (memrefs N) and, with
  /// layout.bulkStores, kBulkStoreSlots rows per output in `fullOutputs`
  /// (memrefs M x N) out of the kernel's dynamic shared memory (at `b`, the
  /// kernel's entry) and adds the mbarriers to `func`. Sets
  /// `norm.dynamic_shared_bytes` on `func`: the launch must provide that
  /// much (above 48 KB the runtime opts the kernel in first).
  void allocate(OpBuilder &b, gpu::GPUFuncOp func, Location loc,
                ArrayRef<Value> fullInputs, ArrayRef<Value> columnInputs,
                ArrayRef<Value> fullOutputs);

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

  /// Bulk stores (layout.bulkStores): a row's full outputs are written by
  /// the threads into slot `localRow % kBulkStoreSlots` of their output
  /// buffers, then stored by thread 0 with one bulk copy per output after
  /// the next row's first reduction barrier, which orders every thread's
  /// writes (and proxy fence) before it; the last row's after the loop.
  /// Before a row's first barrier thread 0 waits until the copies issued
  /// so far have read their slots, so the slot the row writes (that of the
  /// row two before) is free once the barrier is passed.
  bool storesOutputs() const { return !outputBuffers.empty(); }

  /// The row buffers of `fullOutputs[index]`: memref<kBulkStoreSlots x
  /// N/VW x vector<VW x T>> in shared memory.
  Value outputBuffer(unsigned index) const { return outputBuffers[index]; }

  /// The slot of local row `localRow` in the output buffers.
  Value outputSlot(OpBuilder &b, Location loc, Value localRow);

  /// After a thread's writes of a row into the output slots: orders them
  /// before the bulk copy engine's reads (fence.proxy.async).
  void fenceOutputWrites(OpBuilder &b, Location loc);

  /// Thread 0 waits until every bulk store issued so far has read its
  /// slot (cp.async.bulk.wait_group.read 0).
  void waitOutputSlotsRead(OpBuilder &b, Location loc, Value threadId);

  /// Thread 0 (where `when`, if given) stores the output slot of local row
  /// `localRow` to row `row` of every full output: one bulk copy each, in
  /// one bulk async-group.
  void storeOutputRow(OpBuilder &b, Location loc, Value threadId, Value row,
                      Value localRow, Value when);

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
  /// Bulk stores: the full outputs, their slot buffers and element bytes.
  SmallVector<Value> outputs, outputBuffers;
  SmallVector<int64_t> outputElementBytes;
  /// Bytes of one element of each input, and of all inputs together (what
  /// a stage's mbarrier expects per staged column).
  SmallVector<int64_t> elementBytes;
  int64_t bytesPerColumn = 0;
  Value barriers;
};

} // namespace mlir::norm

#endif // LIB_CONVERSION_ROWSTAGING_H
