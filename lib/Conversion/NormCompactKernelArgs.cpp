//===- NormCompactKernelArgs.cpp - kernels take pointers and sizes --------===//
//
// Each memref argument of identity layout becomes its aligned pointer and
// its dynamic sizes (see the pass description in Passes.td for why). The
// kernel rebuilds the descriptor the GPU lowering would have passed, as an
// LLVM struct cast back to the memref type, so nothing else in the kernel
// changes and convert-gpu-to-nvvm's materializations of the same struct
// cancel against the cast (reconcile-unrealized-casts).
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMCOMPACTKERNELARGS
#include "NormDialect/Conversion/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

/// A memref whose descriptor follows from its aligned pointer and dynamic
/// sizes: identity layout (offset 0, row-major strides) in the default
/// memory space (the descriptor's pointers are generic).
bool isCompactable(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getLayout().isIdentity() &&
         !memref.getMemorySpace();
}

/// The LLVM struct convert-gpu-to-nvvm gives a memref of rank `rank` in the
/// default memory space: allocated and aligned pointer, offset, sizes,
/// strides.
LLVM::LLVMStructType descriptorType(MLIRContext *context, int64_t rank) {
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  SmallVector<Type> fields = {ptr, ptr, i64};
  if (rank > 0) {
    auto array = LLVM::LLVMArrayType::get(i64, rank);
    fields.append({array, array});
  }
  return LLVM::LLVMStructType::getLiteral(context, fields);
}

/// Builds at `b` the memref of `type` that the pointer `aligned` and the
/// dynamic sizes `sizes` (i64, in dimension order) describe.
Value rebuildMemRef(OpBuilder &b, Location loc, MemRefType type, Value aligned,
                    ValueRange sizes) {
  MLIRContext *context = b.getContext();
  auto i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value ptr = LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(context),
                                       aligned);
  Value desc = LLVM::PoisonOp::create(
      b, loc, descriptorType(context, type.getRank()));
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc, constant(0),
                                     ArrayRef<int64_t>{2});
  SmallVector<Value> extents;
  unsigned next = 0;
  for (int64_t size : type.getShape())
    extents.push_back(ShapedType::isDynamic(size) ? sizes[next++]
                                                  : constant(size));
  // Row-major strides: the product of the sizes to the right.
  Value stride = constant(1);
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    desc = LLVM::InsertValueOp::create(b, loc, desc, extents[d],
                                       ArrayRef<int64_t>{3, d});
    desc = LLVM::InsertValueOp::create(b, loc, desc, stride,
                                       ArrayRef<int64_t>{4, d});
    if (d > 0)
      stride = LLVM::MulOp::create(b, loc, stride, extents[d]);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}

struct NormCompactKernelArgsPass
    : public mlir::norm::impl::NormCompactKernelArgsBase<
          NormCompactKernelArgsPass> {
  /// Rewrites the arguments of `kernel` in place.
  LogicalResult compactKernel(gpu::GPUFuncOp kernel) {
    auto i64 = IntegerType::get(kernel.getContext(), 64);
    Block &entry = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    // From the last argument back, so the indices before stay valid.
    for (int64_t i = kernel.getNumArguments() - 1; i >= 0; --i) {
      auto type = dyn_cast<MemRefType>(kernel.getArgumentTypes()[i]);
      if (!type || !isCompactable(type))
        continue;
      Location loc = kernel.getArgument(i).getLoc();
      int64_t dynamic = type.getNumDynamicDims();
      for (int64_t k = 0; k <= dynamic; ++k)
        if (failed(kernel.insertArgument(i + 1 + k, i64, DictionaryAttr(),
                                         loc)))
          return kernel.emitOpError("cannot add a compact argument");
      Value aligned = kernel.getArgument(i + 1);
      SmallVector<Value> sizes;
      for (int64_t k = 0; k < dynamic; ++k)
        sizes.push_back(kernel.getArgument(i + 2 + k));
      b.setInsertionPointToStart(&entry);
      Value memref = rebuildMemRef(b, loc, type, aligned, sizes);
      kernel.getArgument(i).replaceAllUsesWith(memref);
      if (failed(kernel.eraseArgument(i)))
        return kernel.emitOpError("cannot remove a memref argument");
    }
    return success();
  }

  /// The operands `launch` passes a compacted kernel for `operand`.
  static SmallVector<Value> compactOperands(OpBuilder &b, Location loc,
                                            Value operand) {
    auto type = cast<MemRefType>(operand.getType());
    auto i64 = b.getI64Type();
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand);
    SmallVector<Value> operands = {
        arith::IndexCastOp::create(b, loc, i64, pointer)};
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d)) {
        Value size = memref::DimOp::create(b, loc, operand, d);
        operands.push_back(arith::IndexCastOp::create(b, loc, i64, size));
      }
    return operands;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The kernels rewritten, whose launches follow.
    llvm::DenseSet<Operation *> compacted;
    WalkResult result = module.walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel())
        return WalkResult::advance();
      compacted.insert(kernel);
      return failed(compactKernel(kernel)) ? WalkResult::interrupt()
                                           : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel || !compacted.contains(kernel))
        return;
      OpBuilder b(launch);
      SmallVector<Value> operands;
      for (Value operand : launch.getKernelOperands()) {
        if (isCompactable(operand.getType()))
          llvm::append_range(operands,
                             compactOperands(b, launch.getLoc(), operand));
        else
          operands.push_back(operand);
      }
      launch.getKernelOperandsMutable().assign(operands);
    });
  }
};

} // namespace
