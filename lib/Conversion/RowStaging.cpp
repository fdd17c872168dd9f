//===- RowStaging.cpp - rows staged in shared memory ----------------------===//
//
// Protocol, per block (one row at a time, rows rowBegin, rowBegin + 1, ...;
// a block of a cluster stages only its column slice of each row):
// thread 0 issues the bulk copies of local row i into stage i % S, arming
// that stage's mbarrier with the bytes to expect; every thread waits on the
// mbarrier (parity (i / S) & 1) before reading the row from shared memory.
// Row i + S - 1 is issued at the start of row i, into the stage row i - 1
// was read from: every thread read it before the block barrier of row
// i - 1's reduction, which thread 0 has passed. A kernel that reads its
// rows again after each reduction (RowLayout::rereadStaged) issues row
// i + S - 1 after row i's first reduction barrier instead, which every
// thread passes only after its last read of row i - 1. That is why staging
// needs a kernel with a block-wide reduction per row (convert-norm-to-gpu's
// plan checks). Column inputs (weights) of a re-reading kernel get one
// shared-memory copy, written and read by the same thread. The copies are
// asynchronous-proxy writes into memory the threads read through the generic
// proxy, hence fence.proxy.async before reuse. The stages live in dynamic
// shared memory (an extern shared array, see allocate): 2-4 rows of 8K-16K bf16
// elements need more than the 48 KB of static shared memory a kernel may
// declare.
//
// Bulk stores (layout.bulkStores) run the same ring the other way for the
// full outputs: the threads write row i's outputs into slot i % 2 and fence
// them for the async proxy; after row i + 1's first reduction barrier
// (which every thread reaches after those writes) thread 0 stores the slot
// with one bulk copy per output, and at the start of row i + 2 it waits
// until the copies have read their slots (cp.async.bulk.wait_group.read)
// before that row's barrier, after which the slot is written again. The
// last row's copy is issued after the loop, behind one more barrier.
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

/// `index` as an i32 (folded for constants).
static Value toI32(OpBuilder &b, Location loc, Value index) {
  return b.createOrFold<arith::IndexCastUIOp>(loc, b.getI32Type(), index);
}

void RowStaging::allocate(OpBuilder &b, gpu::GPUFuncOp func, Location loc,
                          ArrayRef<Value> fullInputs,
                          ArrayRef<Value> columnInputs,
                          ArrayRef<Value> fullOutputs) {
  MLIRContext *ctx = func.getContext();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  // Dynamic shared memory is an external, zero-sized shared array (PTX
  // `.extern .shared .b8 name[]`). Not gpu.dynamic_shared_memory: its NVVM
  // lowering (LLVM 22) gives the array internal linkage, which the NVPTX
  // backend demotes to a one-byte static variable inside the kernel.
  auto bytesType = MemRefType::get({0}, b.getI8Type(), AffineMap(), workgroup);
  auto gpuModule = func->getParentOfType<gpu::GPUModuleOp>();
  constexpr llvm::StringLiteral name = "norm_dynamic_shared";
  if (!gpuModule.lookupSymbol(name)) {
    OpBuilder mb = OpBuilder::atBlockBegin(gpuModule.getBody());
    memref::GlobalOp::create(mb, loc, name, mb.getStringAttr("public"),
                             bytesType, Attribute(), /*constant=*/false,
                             mb.getI64IntegerAttr(16));
  }
  Value dynamic = memref::GetGlobalOp::create(b, loc, bytesType, name);
  int64_t vw = layout.vectorWidth;
  int64_t offset = 0;
  // A buffer of `shape` VW-vectors of `element` at the next offset.
  auto carve = [&](ArrayRef<int64_t> shape, Type element) -> Value {
    return memref::ViewOp::create(
        b, loc,
        MemRefType::get(shape, VectorType::get({vw}, element), AffineMap(),
                        workgroup),
        dynamic, indexConst(b, loc, offset), ValueRange{});
  };
  for (Value input : fullInputs) {
    Type element = cast<MemRefType>(input.getType()).getElementType();
    sources.push_back(input);
    elementBytes.push_back(element.getIntOrFloatBitWidth() / 8);
    bytesPerColumn += elementBytes.back();
    // Stage sizes are 16-byte multiples (chooseSharedStages), so every
    // buffer stays 16-byte aligned for the bulk copies.
    buffers.push_back(carve({stages, stageElements / vw}, element));
    offset += stages * stageElements * elementBytes.back();
  }
  for (Value input : columnInputs) {
    Type element = cast<MemRefType>(input.getType()).getElementType();
    int64_t bytes = element.getIntOrFloatBitWidth() / 8;
    columnBuffers.push_back(carve({stageElements / vw}, element));
    // Keeps the next buffer 16-byte aligned.
    offset += llvm::alignTo(stageElements * bytes, 16);
  }
  // Bulk stores: whole output rows of 16-byte multiples (allowsBulkStores).
  for (Value output : layout.bulkStores ? fullOutputs : ArrayRef<Value>()) {
    Type element = cast<MemRefType>(output.getType()).getElementType();
    outputs.push_back(output);
    outputElementBytes.push_back(element.getIntOrFloatBitWidth() / 8);
    outputBuffers.push_back(carve({kBulkStoreSlots, n / vw}, element));
    offset += kBulkStoreSlots * n * outputElementBytes.back();
  }
  func->setAttr(kDynamicSharedBytesAttr, b.getI64IntegerAttr(offset));
  barriers =
      addWorkgroupBuffer(func,
                         MemRefType::get({stages}, IntegerType::get(ctx, 64),
                                         AffineMap(), workgroup),
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
  // In 32 bits (a block's local row count is far below 2^32): the index
  // type's 64-bit remainder by a constant is a 128-bit multiply-high, about
  // ten instructions per row where the 32-bit one takes three.
  Value rem = arith::RemUIOp::create(
      b, loc, toI32(b, loc, localRow),
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), stages));
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), rem);
}

Value RowStaging::vectorIndex(OpBuilder &b, Location loc, Value column) const {
  Value local =
      sliceBase ? arith::SubIOp::create(b, loc, column, sliceBase) : column;
  return arith::DivUIOp::create(b, loc, local,
                                indexConst(b, loc, layout.vectorWidth));
}

Value RowStaging::stagedElements(OpBuilder &b, Location loc) {
  return sliceElements(b, loc, n, stageElements, sliceBase);
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
    Value elements = stagedElements(tb, l);
    // Folded: whole rows (and slices of clusters whose slices divide N)
    // have constant sizes.
    auto times = [&](Value index, int64_t factor) {
      return tb.createOrFold<arith::MulIOp>(l, index,
                                            indexConst(tb, l, factor));
    };
    // The stage was last read through the generic proxy (row i - 1).
    emitInlinePtx(tb, l, {}, "fence.proxy.async.shared::cta;");
    emitArriveExpectTx(tb, l, barrier,
                       toI32(tb, l, times(elements, bytesPerColumn)));
    // First element of the staged part of the row.
    Value first = arith::MulIOp::create(tb, l, row, indexConst(tb, l, n));
    if (sliceBase)
      first = arith::AddIOp::create(tb, l, first, sliceBase);
    for (auto [source, buffer, bytes] :
         llvm::zip(sources, buffers, elementBytes)) {
      Value dst = elementAddress(tb, l, buffer, stage, stageElements * bytes);
      Value src = elementAddress(tb, l, source, first, bytes);
      Value size = toI32(tb, l, times(elements, bytes));
      emitInlinePtx(
          tb, l, {dst, src, size, barrier},
          "{ .reg .u64 global; cvta.to.global.u64 global, $1; "
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
          "bytes [$0], [global], $2, [$3]; }");
    }
    prefetchAhead(tb, l, row);
    scf::YieldOp::create(tb, l);
  });
}

void RowStaging::prefetchAhead(OpBuilder &b, Location loc, Value row) {
  if (layout.l2PrefetchRows <= 0)
    return;
  // The staged copy of that row later finds it in L2 (or reads HBM again
  // if it was evicted by then).
  Value ahead = arith::AddIOp::create(
      b, loc, row, indexConst(b, loc, layout.l2PrefetchRows));
  emitRowPrefetchL2(b, loc, sources, ahead, prefetchEnd, n, sliceBase,
                    stageElements);
}

Value RowStaging::outputSlot(OpBuilder &b, Location loc, Value localRow) {
  Value rem = arith::RemUIOp::create(
      b, loc, toI32(b, loc, localRow),
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), kBulkStoreSlots));
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), rem);
}

void RowStaging::fenceOutputWrites(OpBuilder &b, Location loc) {
  emitInlinePtx(b, loc, {}, "fence.proxy.async.shared::cta;");
}

void RowStaging::waitOutputSlotsRead(OpBuilder &b, Location loc,
                                     Value threadId) {
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        threadId, indexConst(b, loc, 0));
  scf::IfOp::create(b, loc, isFirst, [&](OpBuilder &tb, Location l) {
    // Only the reads of the slots: the writes to global memory may still
    // be in flight (they are visible when the kernel ends).
    emitInlinePtx(tb, l, {}, "cp.async.bulk.wait_group.read 0;");
    scf::YieldOp::create(tb, l);
  });
}

void RowStaging::storeOutputRow(OpBuilder &b, Location loc, Value threadId,
                                Value row, Value localRow, Value when) {
  Value go = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadId,
                                   indexConst(b, loc, 0));
  if (when)
    go = arith::AndIOp::create(b, loc, go, when);
  scf::IfOp::create(b, loc, go, [&](OpBuilder &tb, Location l) {
    Value slot = outputSlot(tb, l, localRow);
    Value first = arith::MulIOp::create(tb, l, row, indexConst(tb, l, n));
    for (auto [output, buffer, bytes] :
         llvm::zip(outputs, outputBuffers, outputElementBytes)) {
      Value src = elementAddress(tb, l, buffer, slot, n * bytes);
      Value dst = elementAddress(tb, l, output, first, bytes);
      Value size =
          arith::ConstantIntOp::create(tb, l, tb.getI32Type(), n * bytes);
      emitInlinePtx(tb, l, {dst, src, size},
                    "{ .reg .u64 global; cvta.to.global.u64 global, $0; "
                    "cp.async.bulk.global.shared::cta.bulk_group [global], "
                    "[$1], $2; }");
    }
    emitInlinePtx(tb, l, {}, "cp.async.bulk.commit_group;");
    scf::YieldOp::create(tb, l);
  });
}

Value RowStaging::wait(OpBuilder &b, Location loc, Value localRow) {
  Value stage = stageOf(b, loc, localRow);
  Value barrier = elementAddress(b, loc, barriers, stage, 8);
  Value phase = arith::AndIOp::create(
      b, loc,
      arith::DivUIOp::create(
          b, loc, toI32(b, loc, localRow),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), stages)),
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
  emitMbarrierWaitParity(b, loc, barrier, phase, "waitRow");
  return stage;
}
