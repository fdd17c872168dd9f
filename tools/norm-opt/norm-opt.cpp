//===- norm-opt.cpp - the norm optimizer driver ---------------------------===//
//
// mlir-opt with the norm dialect, passes and pipelines added to every
// upstream dialect, extension, pass and LLVM IR translation, so norm passes
// mix with any upstream pass in one pipeline (including gpu-module-to-binary,
// which needs the translations).
//
//===----------------------------------------------------------------------===//

#include "NormDialect/InitAllNorm.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::norm::registerAllNormPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mlir::norm::registerAllNorm(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "norm optimizer driver\n", registry));
}
