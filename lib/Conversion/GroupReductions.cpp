//===- GroupReductions.cpp - group reductions of row kernels --------------===//
//
// norm.group_reduce in a row kernel: thread t's chunk c is vector c * T + t
// of the row, and a group's vectors are `lanes` consecutive ones, so in
// every chunk a group is an aligned run of `lanes` threads. A butterfly of
// xor shuffles over min(lanes, 32) lanes gives each lane its group's total
// (or its warp's part of it); a group of several warps then publishes the
// warp totals to shared memory and every thread combines its group's warps
// in warp order after one barrier, buffers alternating with the row's parity
// as the row reductions' do (RowReductions.cpp).
//
//===----------------------------------------------------------------------===//

#include "GroupReductions.h"

#include "GPUKernelBuilders.h"

#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::norm;

void GroupReductions::allocate(gpu::GPUFuncOp func, Location loc) {
  if (reductionsPerRow == 0 || lanes <= 32)
    return;
  MLIRContext *ctx = func.getContext();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  warpSlots = addWorkgroupBuffer(
      func,
      MemRefType::get({2, reductionsPerRow, layout.chunksPerThread,
                       layout.threadsPerRow() / 32},
                      Float32Type::get(ctx), AffineMap(), workgroup),
      loc);
}

SmallVector<Value> GroupReductions::reduce(OpBuilder &b, Location loc,
                                           Combiner combiner,
                                           ArrayRef<Value> partials,
                                           int64_t index, Value row,
                                           Value firstRow) {
  int64_t width = std::min<int64_t>(32, lanes);
  SmallVector<Value> totals;
  for (Value v : partials) {
    for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
      Value other =
          gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
              .getShuffleResult();
      v = combine(b, loc, combiner, v, other);
    }
    totals.push_back(v);
  }
  if (!warpSlots)
    return totals;
  // Lane 0 of each warp publishes its warp's part of every chunk's group.
  Value parity = arith::AndIOp::create(
      b, loc, arith::SubIOp::create(b, loc, row, firstRow),
      indexConst(b, loc, 1));
  Value slot = indexConst(b, loc, index);
  Value warp = arith::DivUIOp::create(b, loc, threadId, indexConst(b, loc, 32));
  Value isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                         indexConst(b, loc, 0));
  scf::IfOp::create(b, loc, isLeader, [&](OpBuilder &tb, Location l) {
    for (auto [c, total] : llvm::enumerate(totals))
      memref::StoreOp::create(
          tb, l, total, warpSlots,
          ValueRange{parity, slot, indexConst(tb, l, c), warp});
    scf::YieldOp::create(tb, l);
  });
  gpu::BarrierOp::create(b, loc);
  // The group's warps, combined in warp order: the same bits in each.
  int64_t groupWarps = lanes / 32;
  Value firstWarp = arith::MulIOp::create(
      b, loc,
      arith::DivUIOp::create(b, loc, warp, indexConst(b, loc, groupWarps)),
      indexConst(b, loc, groupWarps));
  for (auto [c, total] : llvm::enumerate(totals)) {
    SmallVector<Value> parts;
    for (int64_t w = 0; w < groupWarps; ++w)
      parts.push_back(memref::LoadOp::create(
          b, loc, warpSlots,
          ValueRange{parity, slot, indexConst(b, loc, c),
                     arith::AddIOp::create(b, loc, firstWarp,
                                           indexConst(b, loc, w))}));
    total = treeCombine(b, loc, combiner, std::move(parts));
  }
  return totals;
}

Value GroupReductions::isGroupLeader(OpBuilder &b, Location loc) {
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, threadId, indexConst(b, loc, lanes)),
      indexConst(b, loc, 0));
}
