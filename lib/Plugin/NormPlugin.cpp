//===- NormPlugin.cpp - norm as an mlir-opt plugin ------------------------===//
//
// Lets an unmodified mlir-opt (Debian's, dylib-linked) use norm:
//   mlir-opt --load-dialect-plugin=libNormPlugin.so \
//            --load-pass-plugin=libNormPlugin.so \
//            --pass-pipeline='builtin.module(norm-decompose)' prog.mlir
//
//===----------------------------------------------------------------------===//

#include "NormDialect/InitAllNorm.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NormDialect", LLVM_VERSION_STRING,
          [](::mlir::DialectRegistry *registry) {
            ::mlir::norm::registerAllNorm(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NormPasses", LLVM_VERSION_STRING,
          []() { ::mlir::norm::registerAllNormPasses(); }};
}
