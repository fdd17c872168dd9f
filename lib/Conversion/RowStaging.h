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
  /// `stages` rows in flight per input; rows of `n` elements.
  RowStaging(const RowLayout &layout, int64_t n, int64_t stages)
      : layout(layout), n(n), stages(stages) {}

  /// Adds one stage buffer per input in `fullInputs` (memrefs M x N) and
  /// the mbarriers to `func`.
  void allocate(gpu::GPUFuncOp func, Location loc, ArrayRef<Value> fullInputs);

  /// Thread 0 initializes the mbarriers; a block barrier publishes them.
  void init(OpBuilder &b, Location loc, Value threadId);

  /// Thread 0 starts copying row `row` of every input into stage
  /// `localRow % stages`, if `row < rowEnd`.
  void issue(OpBuilder &b, Location loc, Value threadId, Value row,
             Value localRow, Value rowEnd);

  /// Waits until the copy of local row `localRow` has landed and returns
  /// its stage index.
  Value wait(OpBuilder &b, Location loc, Value localRow);

  /// The stage buffer of `fullInputs[index]`: memref<stages x N/VW x
  /// vector<VW x T>> in shared memory (vectors keep it 16-byte aligned).
  Value buffer(unsigned index) const { return buffers[index]; }

private:
  Value stageOf(OpBuilder &b, Location loc, Value localRow);

  RowLayout layout;
  int64_t n, stages;
  SmallVector<Value> sources, buffers;
  /// Bytes of one row of each input, and of all of them (what a stage's
  /// mbarrier expects).
  SmallVector<int64_t> rowBytes;
  int64_t bytesPerRow = 0;
  Value barriers;
};

} // namespace mlir::norm

#endif // LIB_CONVERSION_ROWSTAGING_H
