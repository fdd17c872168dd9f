//===- PtxBuilders.h - inline PTX for GPU kernel bodies ------*- C++ -*-===//
//
// Private to lib/Conversion: what the row kernels need from PTX that the
// upstream NVVM ops do not offer at this level (memrefs, before the LLVM
// lowering): shared-window addresses of memref elements and the mbarrier
// operations that bulk copies and st.async complete on. Shared by
// RowReductions.cpp (cluster exchange) and RowStaging.cpp (row staging).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_PTXBUILDERS_H
#define LIB_CONVERSION_PTXBUILDERS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::norm {

/// Emits `ptx` (operands $0, $1, ... are `operands`) with no results.
void emitInlinePtx(OpBuilder &b, Location loc, ValueRange operands,
                   StringRef ptx);

/// Address (i64) of element `index` of a contiguous `memref` whose elements
/// are `elementBytes` wide: a shared-window address for workgroup memory, a
/// generic one for global memory.
Value elementAddress(OpBuilder &b, Location loc, Value memref, Value index,
                     int64_t elementBytes);

/// How long a global load's data should stay in L2 (PTX createpolicy): data
/// that is read again soon (evictLast) or for the last time (evictFirst).
enum class EvictionPriority { evictFirst, evictLast };

/// An L2 cache policy (i64, PTX createpolicy) giving the lines a load
/// touches eviction priority `priority`.
Value emitCachePolicy(OpBuilder &b, Location loc, EvictionPriority priority);

/// The global-window address (i64) of the first element of `memref`, a
/// global memref: what ld.global takes, plus byte offsets.
Value emitGlobalBase(OpBuilder &b, Location loc, Value memref);

/// Elements of a row's part that starts at column `columnBase` (null: 0)
/// and is `width` wide: `width`, or fewer for the last slice of a cluster
/// when it ends with the row (rows of `n` elements).
Value sliceElements(OpBuilder &b, Location loc, int64_t n, int64_t width,
                    Value columnBase);

/// If `row` < `rowEnd` (and, where `threadId` is given, in thread 0 only),
/// asks the bulk copy engine to bring row `row` of each contiguous global
/// memref in `memrefs` (rows of `n` elements) into L2
/// (cp.async.bulk.prefetch.L2, a hint with nothing to wait for): its
/// columns [columnBase, min(columnBase + width, n)), or [0, width) without
/// a `columnBase`. Each part must start 16-byte aligned and be a multiple
/// of 16 bytes.
void emitRowPrefetchL2(OpBuilder &b, Location loc, ValueRange memrefs,
                       Value row, Value rowEnd, int64_t n, Value columnBase,
                       int64_t width, Value threadId = Value());

/// The global-window address (i64) of element (`row`, `col`) of a
/// row-major global memref with rows of `n` elements (null `row`: element
/// `col` of a rank-1 one) whose global base is `globalBase` (emitGlobalBase)
/// and whose elements are `elementBytes` wide.
Value globalElementAddress(OpBuilder &b, Location loc, Value globalBase,
                           Value row, Value col, int64_t n,
                           int64_t elementBytes);

/// An L2 eviction hint for a global load: `policy` is emitCachePolicy of
/// `priority`, which also sets the L1 eviction priority.
struct CacheHint {
  Value policy;
  EvictionPriority priority;
};

/// A load of `type` (a vector or scalar of 2, 4, 8 or 16 bytes, aligned to
/// its size) from global address `address` (i64) where `inside` (i1) holds,
/// and zero where it does not (null `inside`: an unpredicated load, which
/// --norm-pipeline cannot predicate either), under the cache hint `hint`
/// if given (vector.load has no cache hints, hence the inline PTX). One
/// predicated ld.global, not a branch around the load: with branches,
/// ptxas kept a row's loads in the block after the branch and issued them
/// only once the loads before it (the weights') had returned, two memory
/// round trips where one basic block of loads takes one (SASS of the
/// one-block backward at M = 1). The predicate is the operand that
/// kPredicateOperandAttr names, so --norm-pipeline folds an iteration's
/// existence into it instead of branching around the load.
Value emitGlobalLoad(OpBuilder &b, Location loc, Value address, Type type,
                     Value inside,
                     std::optional<CacheHint> hint = std::nullopt);

/// A store of `value` (a vector or scalar of 2, 4, 8 or 16 bytes, aligned
/// to its size) to global address `address` (i64) where `inside` (i1)
/// holds (null: always). One predicated st.global, not a branch around the
/// store: with a branch (scf.if around vector.store) LLVM sinks the ops
/// that only the store uses into the branch, so each held row's
/// normalization ran in a block of its own and the rows' rsqrt chains one
/// after another (SASS of the held-row forwards at N = 256). Its predicate
/// is marked like emitGlobalLoad's.
void emitGlobalStore(OpBuilder &b, Location loc, Value address, Value value,
                     Value inside);

/// mbarrier.init with one expected arrival (the thread that arms it).
void emitMbarrierInit(OpBuilder &b, Location loc, Value barrier);

/// Arrives on `barrier` and expects `bytes` (i32) more to complete on it.
void emitArriveExpectTx(OpBuilder &b, Location loc, Value barrier, Value bytes);

/// Spins until the phase of `barrier` with parity `phase` (i32) completes.
/// `label` names the loop (local to the emitted PTX block).
void emitMbarrierWaitParity(OpBuilder &b, Location loc, Value barrier,
                            Value phase, StringRef label);

} // namespace mlir::norm

#endif // LIB_CONVERSION_PTXBUILDERS_H
