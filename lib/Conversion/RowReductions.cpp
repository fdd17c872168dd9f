//===- RowReductions.cpp - row reductions of row kernels ------------------===//
//
// norm.row_reduce in a row kernel: a per-thread partial (RowKernelBuilder),
// a butterfly of warp shuffles, one exchange of warp totals through shared
// memory when several warps share a row, and, when a thread block cluster
// shares the row, an exchange of block totals through distributed shared
// memory (st.async onto mbarriers), or, for a block group, through global
// memory (BlockGroups.cpp).
//
//===----------------------------------------------------------------------===//

#include "RowReductions.h"

#include "GPUKernelBuilders.h"
#include "PtxBuilders.h"
#include "RowMoments.h"

#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::norm;

/// Shared memory for the reductions, as workgroup attributions of `func`:
/// warp totals [parity][reduction][warp] when several warps share a row;
/// in a cluster, block totals [parity][reduction][rank] that every block of
/// the cluster pushes here, and the mbarriers [parity][reduction] their
/// bytes complete on. Buffers alternate with the row's parity: a buffer is
/// written again only two rows later, after every thread has passed a
/// barrier that follows its last read, so each exchange needs a single
/// barrier.
void RowReductions::allocate(gpu::GPUFuncOp func, Location loc) {
  if (reductionsPerRow == 0)
    return;
  MLIRContext *ctx = func.getContext();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Type f32 = Float32Type::get(ctx);
  if (layout.rowGroups == 1 && layout.threadsPerRow() > 32)
    warpSlots = addWorkgroupBuffer(
        func,
        MemRefType::get({2, reductionsPerRow, 32}, f32, AffineMap(), workgroup),
        loc);
  if (layout.clusterSize > 1 && !layout.globalExchange) {
    clusterSlots = addWorkgroupBuffer(
        func,
        MemRefType::get({2, reductionsPerRow, layout.clusterSize}, f32,
                        AffineMap(), workgroup),
        loc);
    clusterBarriers = addWorkgroupBuffer(
        func,
        MemRefType::get({2, reductionsPerRow}, IntegerType::get(ctx, 64),
                        AffineMap(), workgroup),
        loc);
  }
}

/// Before the first row of a cluster kernel: thread 0 initializes the
/// mbarriers (one arrival each: its own expect-tx), makes them visible to
/// the cluster, and a cluster barrier keeps peers from pushing into a
/// block whose barriers are not initialized yet.
void RowReductions::initClusterBarriers(OpBuilder &b, Location loc) {
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        threadId, indexConst(b, loc, 0));
  scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &tb, Location l) {
    for (int64_t i = 0; i < 2 * reductionsPerRow; ++i)
      emitMbarrierInit(
          tb, l,
          elementAddress(tb, l, clusterBarriers, indexConst(tb, l, i), 8));
    emitInlinePtx(tb, l, {}, "fence.mbarrier_init.release.cluster;");
    scf::YieldOp::create(tb, l);
  });
  NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
}

/// Butterfly of xor shuffles over `width` lanes (a power of two): every
/// lane ends with the same, bitwise identical total.
Value RowReductions::warpReduce(OpBuilder &b, Location loc, Combiner combiner,
                                Value v, int64_t width) {
  for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
    Value other =
        gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    v = combine(b, loc, combiner, v, other);
  }
  return v;
}

/// Lane 0 of each warp stores its warp's `values` in the warp slots of
/// reductions `slots` (buffer `parity`), then one barrier for the block.
void RowReductions::publishWarpValues(OpBuilder &b, Location loc,
                                      ArrayRef<Value> values,
                                      ArrayRef<int64_t> slots, Value parity) {
  Value warp = arith::DivUIOp::create(b, loc, threadId, indexConst(b, loc, 32));
  Value isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                         indexConst(b, loc, 0));
  scf::IfOp::create(b, loc, isLeader, [&](OpBuilder &tb, Location l) {
    for (auto [value, slot] : llvm::zip(values, slots))
      memref::StoreOp::create(
          tb, l, value, warpSlots,
          ValueRange{parity, indexConst(tb, l, slot), warp});
    scf::YieldOp::create(tb, l);
  });
  gpu::BarrierOp::create(b, loc);
}

/// The row totals of each thread's `partials` (reductions `indices` of the
/// row body, with `combiners`), identical in every thread of the row.
/// Several warps: lane 0 of each warp stores its warp's totals, one
/// barrier for the whole batch, and every thread combines the warp totals:
/// with shuffles, or, where the kernel is a chain of latencies
/// (RowLayout::latencyBoundReductions), reading them all.
/// gpu.all_reduce would take two barriers per value and, since its shared
/// buffer is reused by the next reduction, a third.
SmallVector<Value> RowReductions::blockReduce(OpBuilder &b, Location loc,
                                              ArrayRef<Combiner> combiners,
                                              SmallVector<Value> partials,
                                              ArrayRef<int64_t> indices,
                                              Value parity) {
  // A row group narrower than a warp shuffles within its own lanes.
  int64_t width = std::min<int64_t>(32, layout.threadsPerRow());
  for (size_t i = 0; i < partials.size(); ++i)
    partials[i] = warpReduce(b, loc, combiners[i], partials[i], width);
  if (!warpSlots)
    return partials;
  int64_t warps = layout.threadsPerRow() / 32;
  publishWarpValues(b, loc, partials, indices, parity);
  SmallVector<Value> totals;
  for (auto [combiner, index] : llvm::zip(combiners, indices)) {
    Value slot = indexConst(b, loc, index);
    // The layouts that ask for it span at most this many warps; a wider
    // one would read more totals than the shuffles it saves.
    if (layout.latencyBoundReductions &&
        warps <= kMaxWarpTotalsReadByEveryThread) {
      SmallVector<Value> warpTotals;
      for (int64_t w = 0; w < warps; ++w)
        warpTotals.push_back(memref::LoadOp::create(
            b, loc, warpSlots,
            ValueRange{parity, slot, indexConst(b, loc, w)}));
      totals.push_back(treeCombine(b, loc, combiner, std::move(warpTotals)));
      continue;
    }
    if (llvm::isPowerOf2_64(warps)) {
      // Each group of `warps` lanes holds every warp total once.
      Value source =
          arith::RemUIOp::create(b, loc, lane, indexConst(b, loc, warps));
      Value v = memref::LoadOp::create(b, loc, warpSlots,
                                       ValueRange{parity, slot, source});
      totals.push_back(warpReduce(b, loc, combiner, v, warps));
      continue;
    }
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         lane, indexConst(b, loc, warps));
    Value v =
        scf::IfOp::create(
            b, loc, inside,
            [&](OpBuilder &tb, Location l) {
              scf::YieldOp::create(
                  tb, l,
                  memref::LoadOp::create(tb, l, warpSlots,
                                         ValueRange{parity, slot, lane})
                      .getResult());
            },
            [&](OpBuilder &eb, Location l) {
              scf::YieldOp::create(eb, l, combinerIdentity(eb, l, combiner));
            })
            .getResult(0);
    totals.push_back(warpReduce(b, loc, combiner, v, 32));
  }
  return totals;
}

/// The cluster-wide total of each block's `blockTotal` (reduction `index`
/// of local row `localRow`). Thread 0 pushes the total into slot [its
/// rank] of every block's buffer with st.async, which completes bytes on
/// the receiving block's mbarrier; every thread waits on its own block's
/// mbarrier, then combines the C slots in rank order, so every block gets
/// the bitwise identical total. Unlike a cluster barrier (whose release
/// semantics would wait for the next row's prefetched loads to land), no
/// thread waits for anything but the C totals. Buffers and barriers
/// alternate with the local row's parity: a block pushes row i + 2 only
/// after it received every block's row i + 1 total, which each block
/// sends after a block barrier that follows its reads of row i. Inline
/// PTX because st.async has no NVVM op, and the mbarrier ops of nvgpu
/// would need their own barrier groups outside this buffer.
SmallVector<Value> RowReductions::clusterReduce(OpBuilder &b, Location loc,
                                                ArrayRef<Combiner> combiners,
                                                ArrayRef<Value> blockTotals,
                                                ArrayRef<int64_t> indices,
                                                Value localRow) {
  int64_t c = layout.clusterSize;
  Value one = indexConst(b, loc, 1);
  Value buffer = arith::AndIOp::create(b, loc, localRow, one);
  Value phase = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(),
      arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, localRow, one), one));
  // Linear index of [buffer][index] in the barrier array, per value.
  SmallVector<Value> pairs, barriers;
  for (int64_t index : indices) {
    pairs.push_back(arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, buffer,
                              indexConst(b, loc, reductionsPerRow)),
        indexConst(b, loc, index)));
    barriers.push_back(
        elementAddress(b, loc, clusterBarriers, pairs.back(), 8));
  }
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        threadId, indexConst(b, loc, 0));
  scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &tb, Location l) {
    Value bytes = arith::ConstantOp::create(tb, l, tb.getI32IntegerAttr(4 * c));
    for (auto [pair, barrier, total] :
         llvm::zip(pairs, barriers, blockTotals)) {
      emitArriveExpectTx(tb, l, barrier, bytes);
      Value mySlot = elementAddress(
          tb, l, clusterSlots,
          arith::AddIOp::create(
              tb, l, arith::MulIOp::create(tb, l, pair, indexConst(tb, l, c)),
              clusterRank),
          4);
      for (int64_t rank = 0; rank < c; ++rank) {
        Value r = arith::ConstantOp::create(tb, l, tb.getI32IntegerAttr(rank));
        emitInlinePtx(
            tb, l, {mySlot, barrier, r, total},
            "{ .reg .u64 slot, bar; "
            "mapa.shared::cluster.u64 slot, $0, $2; "
            "mapa.shared::cluster.u64 bar, $1, $2; "
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 "
            "[slot], $3, [bar]; }");
      }
    }
    scf::YieldOp::create(tb, l);
  });
  SmallVector<Value> totals;
  for (auto [combiner, barrier, index] :
       llvm::zip(combiners, barriers, indices)) {
    emitMbarrierWaitParity(b, loc, barrier, phase, "waitTotals");
    Value total = combinerIdentity(b, loc, combiner);
    for (int64_t rank = 0; rank < c; ++rank) {
      Value v =
          memref::LoadOp::create(b, loc, clusterSlots,
                                 ValueRange{buffer, indexConst(b, loc, index),
                                            indexConst(b, loc, rank)});
      total = combine(b, loc, combiner, total, v);
    }
    totals.push_back(total);
  }
  return totals;
}

SmallVector<Value> RowReductions::reduce(OpBuilder &b, Location loc,
                                         ArrayRef<Combiner> combiners,
                                         SmallVector<Value> partials,
                                         ArrayRef<int64_t> indices, Value row,
                                         Value firstRow) {
  // Buffers alternate with the row's parity (see allocate).
  Value parity = arith::AndIOp::create(b, loc, row, indexConst(b, loc, 1));
  SmallVector<Value> totals =
      blockReduce(b, loc, combiners, std::move(partials), indices, parity);
  if (layout.clusterSize > 1) {
    Value localRow = arith::SubIOp::create(b, loc, row, firstRow);
    totals = blockGroups
                 ? blockGroups->reduce(b, loc, combiners, totals, indices,
                                       localRow, threadId, lane)
                 : clusterReduce(b, loc, combiners, totals, indices, localRow);
  }
  return totals;
}

/// Butterfly of xor shuffles over `width` lanes, each step merging two
/// sets of equal counts (`count` elements each at the first step, doubling
/// at each).
std::pair<Value, Value>
RowReductions::butterflyMoments(OpBuilder &b, Location loc, Value mean,
                                Value m2, int64_t width, double count) {
  for (int64_t offset = width / 2; offset >= 1; offset /= 2, count *= 2) {
    Value otherMean =
        gpu::ShuffleOp::create(b, loc, mean, offset, 32, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    Value otherM2 =
        gpu::ShuffleOp::create(b, loc, m2, offset, 32, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    std::tie(mean, m2) =
        mergeEqualCounts(b, loc, mean, m2, otherMean, otherM2, count);
  }
  return {mean, m2};
}

std::pair<Value, Value> RowReductions::reduceMoments(OpBuilder &b, Location loc,
                                                     Value mean, Value m2,
                                                     int64_t elementsPerThread,
                                                     Value row) {
  int64_t threads = layout.threadsPerRow();
  int64_t width = std::min<int64_t>(threads, 32);
  std::tie(mean, m2) = butterflyMoments(b, loc, mean, m2, width,
                                        static_cast<double>(elementsPerThread));
  if (!warpSlots)
    return {mean, m2};
  // Lane 0 of each warp stores its warp's moments (reduction slots 0 and
  // 1), one barrier, and each group of `warps` lanes merges all of them.
  int64_t warps = threads / 32;
  Value parity = arith::AndIOp::create(b, loc, row, indexConst(b, loc, 1));
  publishWarpValues(b, loc, {mean, m2}, {0, 1}, parity);
  Value source =
      arith::RemUIOp::create(b, loc, lane, indexConst(b, loc, warps));
  Value warpMean = memref::LoadOp::create(
      b, loc, warpSlots, ValueRange{parity, indexConst(b, loc, 0), source});
  Value warpM2 = memref::LoadOp::create(
      b, loc, warpSlots, ValueRange{parity, indexConst(b, loc, 1), source});
  return butterflyMoments(b, loc, warpMean, warpM2, warps,
                          static_cast<double>(32 * elementsPerThread));
}

void RowReductions::finishCluster(OpBuilder &b, Location loc) {
  if (layout.clusterSize <= 1 || layout.globalExchange || reductionsPerRow == 0)
    return;
  NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
}
