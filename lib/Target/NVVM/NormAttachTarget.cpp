//===- NormAttachTarget.cpp - the NVVM target, checked before use ---------===//
//
// Upstream nvvm-attach-target builds #nvvm.target from whatever its options
// hold; an empty chip crashes the attribute's verification, and a chip or
// PTX version the kernels cannot use aborts LLVM later. This pass checks
// both once, before it sees IR, and then attaches the target as upstream's
// does.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Target/NVVMTarget.h"
#include "NormDialect/Target/Passes.h"
#include "NormDialect/Utils/PassOptions.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMATTACHTARGET
#include "NormDialect/Target/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

struct NormAttachTargetPass
    : public mlir::norm::impl::NormAttachTargetBase<NormAttachTargetPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    std::string why = validateNVVMTarget(chip, nvvmFeatures(chip, features));
    if (why.empty() && optLevel > 3)
      why = "O must be 0 to 3, got " + std::to_string(optLevel);
    return reportOptionError(context, getArgument(), why);
  }

  void runOnOperation() override {
    auto target = NVVM::NVVMTargetAttr::get(&getContext(), optLevel,
                                            "nvptx64-nvidia-cuda", chip,
                                            nvvmFeatures(chip, features));
    Builder builder(&getContext());
    getOperation().walk([&](gpu::GPUModuleOp module) {
      SmallVector<Attribute> targets;
      if (ArrayAttr present = module.getTargetsAttr())
        llvm::append_range(targets, present);
      if (!llvm::is_contained(targets, target))
        targets.push_back(target);
      module.setTargetsAttr(builder.getArrayAttr(targets));
    });
  }
};

} // namespace
