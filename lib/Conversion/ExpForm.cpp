//===- ExpForm.cpp - the PTX form of an f32 exp ---------------------------===//

#include "ExpForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

void mlir::norm::lowerExpApprox(gpu::GPUModuleOp module) {
  SmallVector<math::ExpOp> ops;
  module.walk([&](math::ExpOp op) {
    if (op.getType().isF32())
      ops.push_back(op);
  });
  for (math::ExpOp op : ops) {
    OpBuilder b(op);
    Value log2e = arith::ConstantOp::create(
        b, op.getLoc(),
        b.getF32FloatAttr(static_cast<float>(llvm::numbers::log2e)));
    Value power = arith::MulFOp::create(b, op.getLoc(), op.getOperand(), log2e);
    auto call = LLVM::CallIntrinsicOp::create(
        b, op.getLoc(), op.getType(),
        b.getStringAttr("llvm.nvvm.ex2.approx.f32"), ValueRange{power});
    op.replaceAllUsesWith(call.getResult(0));
    op.erase();
  }
}
