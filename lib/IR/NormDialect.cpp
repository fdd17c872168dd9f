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

LogicalResult NormDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  auto expect = [&](bool matches, StringRef kind) -> LogicalResult {
    if (matches)
      return success();
    return op->emitError() << "'" << name << "' must be " << kind << ", got "
                           << value;
  };
  if (name == TargetAttrHelper::getNameStr())
    return expect(isa<TargetAttr>(value), "a #norm.target");
  for (StringRef unit : {
           WholeColumnsAttrHelper::getNameStr(),
           StreamRowsAttrHelper::getNameStr(),
           PreloadColumnsAttrHelper::getNameStr(),
           WarpRowsAttrHelper::getNameStr(),
           WholeBlocksBranchAttrHelper::getNameStr(),
           ShortRowsAttrHelper::getNameStr(),
           PersistentAttrHelper::getNameStr(),
           StreamingAttrHelper::getNameStr(),
           BulkStoresAttrHelper::getNameStr(),
           ProgrammaticAttrHelper::getNameStr(),
           RowLoopAttrHelper::getNameStr(),
           PrefetchAttrHelper::getNameStr(),
           PredicateEpilogueAttrHelper::getNameStr(),
           FtzExactAttrHelper::getNameStr(),
       })
    if (name == unit)
      return expect(isa<UnitAttr>(value), "a unit attribute");
  for (StringRef integer : {
           SplitSizeAttrHelper::getNameStr(),
           NumStagesAttrHelper::getNameStr(),
           RowsPerBlockAttrHelper::getNameStr(),
           MinBlocksPerSmAttrHelper::getNameStr(),
           RowsBelowAttrHelper::getNameStr(),
           RowsMultipleAttrHelper::getNameStr(),
           VectorWidthAttrHelper::getNameStr(),
           BlockSizeAttrHelper::getNameStr(),
           ColsPerBlockAttrHelper::getNameStr(),
           RowsInParallelAttrHelper::getNameStr(),
           ColumnSlicesAttrHelper::getNameStr(),
           ClusterSizeAttrHelper::getNameStr(),
           SharedStagesAttrHelper::getNameStr(),
           DynamicSharedBytesAttrHelper::getNameStr(),
           PredicateOperandAttrHelper::getNameStr(),
       })
    if (name == integer)
      return expect(isa<IntegerAttr>(value), "an integer");
  return op->emitError() << "'" << name
                         << "' is not an attribute of the norm dialect";
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
