//===- NormSetTarget.cpp - declare the module's planning target -----------===//
//
// Writes the module's norm.target from the pass options: the one place the
// device that the tuning rules plan for is declared.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/Transforms/Passes.h"
#include "NormDialect/Utils/PassOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMSETTARGET
#include "NormDialect/Transforms/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

struct NormSetTargetPass
    : public mlir::norm::impl::NormSetTargetBase<NormSetTargetPass> {
  using Base::Base;

  /// The options' target, checked once before the pass sees any IR
  /// (TargetAttr's verifier; reportOptionError).
  TargetAttr target;

  LogicalResult initialize(MLIRContext *context) override {
    // The verifier's message, without a location: an option error.
    std::string error;
    {
      ScopedDiagnosticHandler capture(context, [&](Diagnostic &d) {
        error = d.str();
        return success();
      });
      if (succeeded(TargetAttr::verify(
              [&] { return emitError(UnknownLoc::get(context)); }, numSMs,
              registerBudget, maxClusterSize, maxThreads, sharedMemoryPerBlock,
              sharedMemoryPerSM, threadsPerSM, registersPerSM)))
        target =
            TargetAttr::get(context, numSMs, registerBudget, maxClusterSize,
                            maxThreads, sharedMemoryPerBlock, sharedMemoryPerSM,
                            threadsPerSM, registersPerSM);
    }
    return reportOptionError(context, getArgument(), error);
  }

  void runOnOperation() override {
    getContext().getLoadedDialect<NormDialect>()->getTargetAttrHelper().setAttr(
        getOperation(), target);
  }
};

} // namespace
