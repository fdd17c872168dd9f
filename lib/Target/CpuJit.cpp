//===- CpuJit.cpp - run norm programs on the CPU --------------------------===//

#include "NormDialect/Target/CpuJit.h"

#include "ProgramSource.h"

#include "NormDialect/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;
using namespace mlir::norm;

CpuJit::~CpuJit() = default;

std::unique_ptr<CpuJit> CpuJit::create(const std::string &source,
                                       const std::string &sourceName,
                                       std::string &diagnostics) {
  static std::once_flag targetsReady;
  std::call_once(targetsReady, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  ProgramSource program(source, sourceName, diagnostics);
  MLIRContext &context = program.getContext();
  OwningOpRef<ModuleOp> module = program.parse();
  if (!module)
    return nullptr;
  // Every public function is callable through its C interface.
  for (auto func : module->getOps<func::FuncOp>())
    if (func.isPublic())
      func->setAttr("llvm.emit_c_interface", UnitAttr::get(&context));
  PassManager pm(&context);
  buildNormToCPUPipeline(pm, NormToPTXOptions());
  if (failed(pm.run(*module)))
    return nullptr;
  ExecutionEngineOptions options;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine) {
    diagnostics += llvm::toString(engine.takeError());
    return nullptr;
  }
  std::unique_ptr<CpuJit> jit(new CpuJit());
  jit->engine = std::move(*engine);
  return jit;
}

bool CpuJit::invoke(const std::string &function,
                    const std::vector<void *> &descriptors,
                    std::string &error) {
  // The C interface takes each descriptor by pointer; the packed wrapper
  // takes a pointer to each argument.
  std::vector<void *> arguments(descriptors);
  std::vector<void *> packed;
  for (void *&argument : arguments)
    packed.push_back(&argument);
  llvm::Error result =
      engine->invokePacked("_mlir_ciface_" + function, packed);
  if (result) {
    error = llvm::toString(std::move(result));
    return false;
  }
  return true;
}
