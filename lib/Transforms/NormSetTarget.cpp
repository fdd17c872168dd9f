//===- NormSetTarget.cpp - declare the module's planning target -----------===//
//
// Writes the module's norm.target from the pass options: the one place the
// device that the tuning rules plan for is declared. Options left
// 0 take the values of the compute capability's GPU (deviceOfCapability).
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/Transforms/Passes.h"
#include "NormDialect/Tuning/DeviceInfo.h"
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
    // Options left 0 take the GPU of the compute capability
    // (deviceOfCapability), so that compute-capability=80 alone plans for
    // an A100.
    DeviceInfo known = deviceOfCapability(computeCapability);
    auto orKnown = [](int64_t option, int64_t value) {
      return option != 0 ? option : value;
    };
    int64_t numSMs = orKnown(this->numSMs, known.numSMs);
    int64_t maxClusterSize =
        orKnown(this->maxClusterSize, known.maxClusterSize);
    int64_t maxThreads = orKnown(this->maxThreads, known.maxThreadsPerBlock);
    int64_t sharedMemoryPerBlock =
        orKnown(this->sharedMemoryPerBlock, known.sharedMemoryPerBlock);
    int64_t sharedMemoryPerSM =
        orKnown(this->sharedMemoryPerSM, known.sharedMemoryPerSM);
    int64_t threadsPerSM = orKnown(this->threadsPerSM, known.threadsPerSM);
    int64_t registersPerSM =
        orKnown(this->registersPerSM, known.registersPerSM);
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
              sharedMemoryPerSM, threadsPerSM, registersPerSM,
              computeCapability)))
        target =
            TargetAttr::get(context, numSMs, registerBudget, maxClusterSize,
                            maxThreads, sharedMemoryPerBlock, sharedMemoryPerSM,
                            threadsPerSM, registersPerSM, computeCapability);
    }
    return reportOptionError(context, getArgument(), error);
  }

  void runOnOperation() override {
    getContext().getLoadedDialect<NormDialect>()->getTargetAttrHelper().setAttr(
        getOperation(), target);
  }
};

} // namespace
