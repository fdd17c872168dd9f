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
  // The callers' contract comes from the program as written: lowering
  // erases the ops that relate the arguments' sizes.
  std::map<std::string, CpuSignature> signatures = cpuSignatures(*module);
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
  jit->signatures = std::move(signatures);
  return jit;
}

bool CpuJit::invoke(const std::string &function,
                    const std::vector<void *> &descriptors,
                    std::string &error) {
  const CpuSignature *found = signature(function);
  if (!found) {
    error = "no public function @" + function + " in the program";
    return false;
  }
  error = checkDescriptors(function, *found, descriptors);
  if (!error.empty())
    return false;
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

const CpuSignature *CpuJit::signature(const std::string &function) const {
  auto it = signatures.find(function);
  return it == signatures.end() ? nullptr : &it->second;
}
