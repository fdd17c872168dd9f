//===- NormDialect.cpp - norm dialect ---------------------------*- C++ -*-===//

#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Tuning/DeviceInfo.h"
#include "NormDialect/Tuning/KernelPlan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::norm;

#include "NormDialect/IR/NormDialect.cpp.inc"
#include "NormDialect/IR/NormEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "NormDialect/IR/NormAttrs.cpp.inc"

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t numSms, int64_t registerBudget,
                                 int64_t maxClusterSize) {
  // The tuning library says which values its rules take.
  std::string problem =
      numSms > 0 ? validateRegisterBudget(registerBudget)
                 : "num_sms must be positive, got " + std::to_string(numSms);
  if (problem.empty())
    problem = validateClusterSize(maxClusterSize);
  if (!problem.empty())
    return emitError() << "invalid #norm.target: " << problem;
  return success();
}

void NormDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "NormDialect/IR/NormAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "NormDialect/IR/NormOps.cpp.inc"
      >();
}
