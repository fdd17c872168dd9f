//===- Float8Form.cpp - the PTX form of an f32 -> FP8 rounding ------------===//

#include "Float8Form.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

static bool isFloat8(Type type) {
  auto f = dyn_cast<FloatType>(type);
  return f && f.getWidth() == 8;
}

bool mlir::norm::isUnsupportedFloat8Conversion(Operation *op,
                                               std::string &why) {
  if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
    if (isFloat8(ext.getIn().getType())) {
      why = "reads FP8, which the kernels cannot (they write f8E4M3FN)";
      return true;
    }
    return false;
  }
  auto trunc = dyn_cast<arith::TruncFOp>(op);
  if (!trunc || !isFloat8(trunc.getType()))
    return false;
  if (!isa<Float8E4M3FNType>(trunc.getType())) {
    why = "rounds to an FP8 format the kernels cannot write (f8E4M3FN only)";
    return true;
  }
  if (!trunc.getIn().getType().isF32()) {
    why = "rounds to f8E4M3FN from a type other than f32";
    return true;
  }
  return false;
}

void mlir::norm::lowerFloat8Truncs(gpu::GPUModuleOp module) {
  SmallVector<arith::TruncFOp> ops;
  module.walk([&](arith::TruncFOp op) {
    if (isa<Float8E4M3FNType>(op.getType()) && op.getIn().getType().isF32())
      ops.push_back(op);
  });
  for (arith::TruncFOp op : ops) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    // The value converted from b is the low byte of the pair.
    Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, Type(b.getI16Type()), zero, op.getIn(),
        NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
        /*relu=*/false, op.getType());
    Value byte = arith::TruncIOp::create(b, loc, b.getI8Type(), pair);
    Value result = arith::BitcastOp::create(b, loc, op.getType(), byte);
    op.replaceAllUsesWith(result);
    op.erase();
  }
}
