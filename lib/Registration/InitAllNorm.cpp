//===- InitAllNorm.cpp - register everything norm provides ----------------===//

#include "NormDialect/InitAllNorm.h"

#include "NormDialect/Conversion/Passes.h"
#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/Pipelines/Pipelines.h"
#include "NormDialect/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::norm::registerAllNorm(DialectRegistry &registry) {
  registry.insert<NormDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);
}

void mlir::norm::registerAllNormPasses() {
  registerNormPasses();
  registerNormConversionPasses();
  registerNormPipelines();
}
