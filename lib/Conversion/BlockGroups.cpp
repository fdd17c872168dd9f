//===- BlockGroups.cpp - rows shared by block groups ----------------------===//
//
// The tickets and the exchange of row totals of a block group: a thread
// block cluster's work on a target without clusters, through global memory
// instead of distributed shared memory.
//
//===----------------------------------------------------------------------===//

#include "BlockGroups.h"

#include "GPUKernelBuilders.h"
#include "PtxBuilders.h"

#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::norm;

/// Bytes of one slot: the total's bits, then the group's local row + 1 it
/// belongs to (0: nothing published yet, as the zeroed workspace starts).
constexpr int64_t kSlotBytes = 8;

int64_t mlir::norm::blockGroupWorkspaceRow(int64_t groupSize,
                                           int64_t reductionsPerRow) {
  return (kBlockGroupTicketBytes +
          2 * std::max<int64_t>(1, reductionsPerRow) * groupSize * kSlotBytes) /
         4;
}

void BlockGroups::allocate(gpu::GPUFuncOp func, Location loc) {
  MLIRContext *ctx = func.getContext();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  ticketSlot = addWorkgroupBuffer(
      func,
      MemRefType::get({1}, IntegerType::get(ctx, 32), AffineMap(), workgroup),
      loc);
  if (reductionsPerRow > 0)
    totals = addWorkgroupBuffer(func,
                                MemRefType::get({2, reductionsPerRow},
                                                Float32Type::get(ctx),
                                                AffineMap(), workgroup),
                                loc);
}

std::pair<Value, Value> BlockGroups::takeTicket(OpBuilder &b, Location loc,
                                                Value workspace,
                                                Value threadId) {
  base = emitGlobalBase(b, loc, workspace);
  rowBytes = 4 * cast<MemRefType>(workspace.getType()).getDimSize(1);
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        threadId, indexConst(b, loc, 0));
  scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &tb, Location l) {
    Value ticket =
        NVVM::InlinePtxOp::create(tb, l, TypeRange{tb.getI32Type()},
                                  ValueRange{base}, ValueRange{},
                                  "atom.global.add.u32 $0, [$1], 1;", Value())
            .getResult(0);
    memref::StoreOp::create(tb, l, ticket, ticketSlot,
                            ValueRange{indexConst(tb, l, 0)});
    scf::YieldOp::create(tb, l);
  });
  gpu::BarrierOp::create(b, loc);
  Value ticket = arith::IndexCastUIOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, ticketSlot,
                             ValueRange{indexConst(b, loc, 0)}));
  Value size = indexConst(b, loc, layout.clusterSize);
  group = arith::DivUIOp::create(b, loc, ticket, size);
  rank = arith::RemUIOp::create(b, loc, ticket, size);
  return {group, rank};
}

SmallVector<Value>
BlockGroups::reduce(OpBuilder &b, Location loc, ArrayRef<Combiner> combiners,
                    ArrayRef<Value> blockTotals, ArrayRef<int64_t> indices,
                    Value localRow, Value threadId, Value lane) {
  int64_t c = layout.clusterSize;
  int64_t count = static_cast<int64_t>(indices.size());
  Type i32 = b.getI32Type();
  Value parity = arith::AndIOp::create(b, loc, localRow, indexConst(b, loc, 1));
  Value tag = arith::IndexCastUIOp::create(
      b, loc, i32,
      arith::AddIOp::create(b, loc, localRow, indexConst(b, loc, 1)));
  // Slot [parity][reduction][rank] of the group's row of the workspace, as
  // a global address.
  auto slotAddress = [&](OpBuilder &ob, Location l, Value reduction,
                         Value slotRank) {
    Value linear = parity;
    linear = arith::MulIOp::create(ob, l, linear,
                                   indexConst(ob, l, reductionsPerRow));
    linear = arith::AddIOp::create(ob, l, linear, reduction);
    linear = arith::MulIOp::create(ob, l, linear, indexConst(ob, l, c));
    linear = arith::AddIOp::create(ob, l, linear, slotRank);
    Value offset = arith::AddIOp::create(
        ob, l, arith::MulIOp::create(ob, l, group, indexConst(ob, l, rowBytes)),
        arith::AddIOp::create(
            ob, l, indexConst(ob, l, kBlockGroupTicketBytes),
            arith::MulIOp::create(ob, l, linear,
                                  indexConst(ob, l, kSlotBytes))));
    return arith::AddIOp::create(
               ob, l, base,
               arith::IndexCastUIOp::create(ob, l, ob.getI64Type(), offset))
        .getResult();
  };
  // Thread 0 publishes the block's totals, each in one 8-byte store with
  // its tag, so a peer that sees the tag sees the total: relaxed accesses,
  // no fence (a release would wait for the next row's loads in flight).
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        threadId, indexConst(b, loc, 0));
  scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &tb, Location l) {
    for (auto [index, total] : llvm::zip(indices, blockTotals)) {
      Value bits = arith::BitcastOp::create(tb, l, i32, total);
      emitInlinePtx(
          tb, l,
          {slotAddress(tb, l, indexConst(tb, l, index), rank), bits, tag},
          "{ .reg .b64 slot; mov.b64 slot, {$1, $2}; "
          "st.relaxed.gpu.global.b64 [$0], slot; }");
    }
    scf::YieldOp::create(tb, l);
  });
  // Warp 0: lane k * C + r waits for rank r's total of reduction k, then
  // each reduction's C lanes combine theirs in a butterfly, and the first
  // of them leaves the total in shared memory.
  Value inWarp0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        threadId, indexConst(b, loc, 32));
  scf::IfOp::create(b, loc, inWarp0, [&](OpBuilder &wb, Location l) {
    Value size = indexConst(wb, l, c);
    Value which = arith::DivUIOp::create(wb, l, lane, size);
    Value peer = arith::RemUIOp::create(wb, l, lane, size);
    Value polls = arith::CmpIOp::create(wb, l, arith::CmpIPredicate::ult, lane,
                                        indexConst(wb, l, c * count));
    // The reduction lane `which` waits for (the last for idle lanes, which
    // do not wait).
    Value reduction = indexConst(wb, l, indices.back());
    for (int64_t k = count - 2; k >= 0; --k)
      reduction = arith::SelectOp::create(
          wb, l,
          arith::CmpIOp::create(wb, l, arith::CmpIPredicate::eq, which,
                                indexConst(wb, l, k)),
          indexConst(wb, l, indices[k]), reduction);
    Value word =
        scf::IfOp::create(
            wb, l, polls,
            [&](OpBuilder &pb, Location pl) {
              Value bits =
                  NVVM::InlinePtxOp::create(
                      pb, pl, TypeRange{i32},
                      ValueRange{slotAddress(pb, pl, reduction, peer), tag},
                      ValueRange{},
                      "{ .reg .pred wait; .reg .b64 slot; "
                      ".reg .b32 seen; pollSlot: "
                      "ld.relaxed.gpu.global.b64 slot, [$1]; "
                      "mov.b64 {$0, seen}, slot; "
                      "setp.ne.u32 wait, seen, $2; "
                      "@wait bra pollSlot; }",
                      Value())
                      .getResult(0);
              scf::YieldOp::create(pb, pl, bits);
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(
                  eb, el,
                  arith::ConstantOp::create(eb, el, eb.getI32IntegerAttr(0))
                      .getResult());
            })
            .getResult(0);
    Value value = arith::BitcastOp::create(wb, l, wb.getF32Type(), word);
    for (int64_t k = 0; k < count; ++k) {
      Value mine = arith::CmpIOp::create(wb, l, arith::CmpIPredicate::eq, which,
                                         indexConst(wb, l, k));
      Value v = arith::SelectOp::create(wb, l, mine, value,
                                        combinerIdentity(wb, l, combiners[k]));
      for (int64_t offset = c / 2; offset >= 1; offset /= 2)
        v = combine(
            wb, l, combiners[k], v,
            gpu::ShuffleOp::create(wb, l, v, offset, 32, gpu::ShuffleMode::XOR)
                .getShuffleResult());
      Value first = arith::CmpIOp::create(wb, l, arith::CmpIPredicate::eq, lane,
                                          indexConst(wb, l, k * c));
      scf::IfOp::create(wb, l, first, [&](OpBuilder &sb, Location sl) {
        memref::StoreOp::create(
            sb, sl, v, totals,
            ValueRange{parity, indexConst(sb, sl, indices[k])});
        scf::YieldOp::create(sb, sl);
      });
    }
    scf::YieldOp::create(wb, l);
  });
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> result;
  for (int64_t index : indices)
    result.push_back(memref::LoadOp::create(
        b, loc, totals, ValueRange{parity, indexConst(b, loc, index)}));
  return result;
}
