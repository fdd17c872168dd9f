//===- PtxBuilders.cpp - inline PTX for GPU kernel bodies -----------------===//

#include "PtxBuilders.h"

#include "GPUKernelBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::norm;

void mlir::norm::emitInlinePtx(OpBuilder &b, Location loc, ValueRange operands,
                               StringRef ptx) {
  NVVM::InlinePtxOp::create(b, loc, TypeRange{}, operands, ValueRange{}, ptx,
                            Value());
}

Value mlir::norm::elementAddress(OpBuilder &b, Location loc, Value memref,
                                 Value index, int64_t elementBytes) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value offset =
      arith::MulIOp::create(b, loc, index, indexConst(b, loc, elementBytes));
  return arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(), arith::AddIOp::create(b, loc, base, offset));
}

void mlir::norm::emitMbarrierInit(OpBuilder &b, Location loc, Value barrier) {
  emitInlinePtx(b, loc, barrier, "mbarrier.init.shared::cta.b64 [$0], 1;");
}

void mlir::norm::emitArriveExpectTx(OpBuilder &b, Location loc, Value barrier,
                                    Value bytes) {
  emitInlinePtx(b, loc, {barrier, bytes},
                "{ .reg .b64 state; mbarrier.arrive.expect_tx.shared::cta.b64 "
                "state, [$0], $1; }");
}

void mlir::norm::emitMbarrierWaitParity(OpBuilder &b, Location loc,
                                        Value barrier, Value phase,
                                        StringRef label) {
  emitInlinePtx(b, loc, {barrier, phase},
                ("{ .reg .pred done; " + label +
                 ": mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1; "
                 "@!done bra " +
                 label + "; }")
                    .str());
}
