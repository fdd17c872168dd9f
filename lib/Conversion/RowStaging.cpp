//===- RowStaging.cpp - rows staged in shared memory ----------------------===//
//
// Protocol, per block (one row at a time, rows rowBegin, rowBegin + 1, ...):
// thread 0 issues the bulk copies of local row i into stage i % S, arming
// that stage's mbarrier with the bytes to expect; every thread waits on the
// mbarrier (parity (i / S) & 1) before reading the row from shared memory.
// Row i + S - 1 is issued at the start of row i, into the stage row i - 1
// was read from: every thread read it before the block barrier of row
// i - 1's reduction, which thread 0 has passed. That is why staging needs a
// kernel with a block-wide reduction per row (convert-norm-to-gpu's plan
// checks). The copies are asynchronous-proxy writes into memory the threads
// read through the generic proxy, hence fence.proxy.async before reuse.
//
// Not built on scf::pipelineForLoop: the copies are issued by one thread,
// into buffers whose reuse is ordered by the kernel's own reduction
// barrier, which the upstream pipeliner does not model.
//
//===----------------------------------------------------------------------===//

#include "RowStaging.h"

#include "GPUKernelBuilders.h"
#include "PtxBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::norm;

void RowStaging::allocate(gpu::GPUFuncOp func, Location loc,
                          ArrayRef<Value> fullInputs) {
  MLIRContext *ctx = func.getContext();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  int64_t vw = layout.vectorWidth;
  for (Value input : fullInputs) {
    Type element = cast<MemRefType>(input.getType()).getElementType();
    sources.push_back(input);
    rowBytes.push_back(n * element.getIntOrFloatBitWidth() / 8);
    bytesPerRow += rowBytes.back();
    buffers.push_back(func.addWorkgroupAttribution(
        MemRefType::get({stages, n / vw}, VectorType::get({vw}, element),
                        AffineMap(), workgroup),
        loc));
  }
  barriers = func.addWorkgroupAttribution(
      MemRefType::get({stages}, IntegerType::get(ctx, 64), AffineMap(),
                      workgroup),
      loc);
}

void RowStaging::init(OpBuilder &b, Location loc, Value threadId) {
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        threadId, indexConst(b, loc, 0));
  scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &tb, Location l) {
    for (int64_t s = 0; s < stages; ++s)
      emitMbarrierInit(
          tb, l, elementAddress(tb, l, barriers, indexConst(tb, l, s), 8));
    // Visible to the bulk copy engine (async proxy) before its first use.
    emitInlinePtx(tb, l, {}, "fence.mbarrier_init.release.cluster;");
    scf::YieldOp::create(tb, l);
  });
  gpu::BarrierOp::create(b, loc);
}

Value RowStaging::stageOf(OpBuilder &b, Location loc, Value localRow) {
  return arith::RemUIOp::create(b, loc, localRow, indexConst(b, loc, stages));
}

void RowStaging::issue(OpBuilder &b, Location loc, Value threadId, Value row,
                       Value localRow, Value rowEnd) {
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        threadId, indexConst(b, loc, 0));
  Value exists =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rowEnd);
  Value go = arith::AndIOp::create(b, loc, isFirst, exists);
  scf::IfOp::create(b, loc, go, [&](OpBuilder &tb, Location l) {
    Value stage = stageOf(tb, l, localRow);
    Value barrier = elementAddress(tb, l, barriers, stage, 8);
    // The stage was last read through the generic proxy (row i - 1).
    emitInlinePtx(tb, l, {}, "fence.proxy.async.shared::cta;");
    emitArriveExpectTx(
        tb, l, barrier,
        arith::ConstantOp::create(tb, l, tb.getI32IntegerAttr(bytesPerRow)));
    for (auto [source, buffer, bytes] : llvm::zip(sources, buffers, rowBytes)) {
      Value dst = elementAddress(tb, l, buffer, stage, bytes);
      Value src = elementAddress(tb, l, source, row, bytes);
      Value size =
          arith::ConstantOp::create(tb, l, tb.getI32IntegerAttr(bytes));
      emitInlinePtx(
          tb, l, {dst, src, size, barrier},
          "{ .reg .u64 global; cvta.to.global.u64 global, $1; "
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
          "bytes [$0], [global], $2, [$3]; }");
    }
    scf::YieldOp::create(tb, l);
  });
}

Value RowStaging::wait(OpBuilder &b, Location loc, Value localRow) {
  Value stage = stageOf(b, loc, localRow);
  Value barrier = elementAddress(b, loc, barriers, stage, 8);
  Value phase = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(),
      arith::AndIOp::create(
          b, loc,
          arith::DivUIOp::create(b, loc, localRow, indexConst(b, loc, stages)),
          indexConst(b, loc, 1)));
  emitInlinePtx(b, loc, {barrier, phase},
                "{ .reg .pred done; waitRow: "
                "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1; "
                "@!done bra waitRow; }");
  return stage;
}
