//===- DivForm.cpp - the PTX form of an approximate f32 division ----------===//

#include "DivForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

void mlir::norm::lowerApproxDivisions(gpu::GPUModuleOp module) {
  SmallVector<arith::DivFOp> ops;
  module.walk([&](arith::DivFOp op) {
    if (op.getType().isF32() &&
        arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      ops.push_back(op);
  });
  for (arith::DivFOp op : ops) {
    OpBuilder b(op);
    auto call = LLVM::CallIntrinsicOp::create(
        b, op.getLoc(), op.getType(), b.getStringAttr("llvm.nvvm.div.full"),
        ValueRange{op.getLhs(), op.getRhs()});
    op.replaceAllUsesWith(call.getResult(0));
    op.erase();
  }
}
