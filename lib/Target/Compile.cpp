//===- Compile.cpp - norm program text to a kernel bundle -----------------===//

#include "NormDialect/Target/Compile.h"

#include "ProgramSource.h"

#include "NormDialect/Target/KernelBundle.h"
#include "NormDialect/Target/NVVMTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

const char *mlir::norm::compilerVersion() { return "norm 0.1.0 (MLIR 22.1)"; }

std::string mlir::norm::defaultTuningTable(const std::string &requested) {
  if (requested == "none")
    return "";
  if (!requested.empty())
    return requested;
  if (const char *env = std::getenv("NORM_TUNING_TABLE"))
    return std::string(env) == "none" ? "" : env;
#ifdef NORM_DEFAULT_TUNING_TABLE
  if (llvm::sys::fs::exists(NORM_DEFAULT_TUNING_TABLE))
    return NORM_DEFAULT_TUNING_TABLE;
#endif
  return "";
}

bool mlir::norm::compileToBundle(const std::string &source,
                                 const std::string &sourceName,
                                 const NormToPTXOptions &options,
                                 CompiledBundle &out,
                                 std::string &diagnostics) {
  // A target the kernels cannot be compiled for fails before any work, not
  // after the GPU lowering (where clusters on an older chip already fail
  // NVVM's verifier with a less direct message).
  if (std::string why = validateNVVMTarget(
          options.chip, nvvmFeatures(options.chip, options.features));
      !why.empty()) {
    diagnostics += "error: " + why + "\n";
    return false;
  }
  ProgramSource program(source, sourceName, diagnostics);
  MLIRContext &context = program.getContext();
  OwningOpRef<ModuleOp> module = program.parse();
  if (!module)
    return false;
  // The pass managers do not verify the IR after every pass (mlir-opt's
  // --verify-each, which the lit tests run every pass under): that took a
  // fifth of the compile time (the LayerNorm backward 0.25 s -> 0.20 s on
  // the 2-core development machine). The IR is verified once where each
  // pipeline ends instead, before the launches are read from it and
  // before its PTX is taken.
  PassManager toGPU(&context);
  toGPU.enableVerifier(false);
  buildNormToGPUPipeline(toGPU, options);
  if (failed(toGPU.run(*module)) || failed(verify(*module)))
    return false;
  llvm::json::Array functions;
  for (auto func : module->getOps<func::FuncOp>()) {
    FailureOr<llvm::json::Object> described = describeLaunches(func);
    if (failed(described))
      return false;
    functions.push_back(std::move(*described));
  }
  PassManager toPTX(&context);
  toPTX.enableVerifier(false);
  buildGPUToPTXPipeline(toPTX, options);
  if (failed(toPTX.run(*module)) || failed(verify(*module)))
    return false;
  FailureOr<std::string> ptx = extractPTX(*module);
  if (failed(ptx))
    return false;
  llvm::json::Object manifest{{"format", "norm-kernel-bundle"},
                              {"version", 1},
                              {"compiler", compilerVersion()},
                              {"target", options.chip.getValue()},
                              {"ptx", "kernels.ptx"},
                              {"functions", std::move(functions)}};
  out.ptx = std::move(*ptx);
  out.manifest =
      llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest))).str() +
      "\n";
  return true;
}
