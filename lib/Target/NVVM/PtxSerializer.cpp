//===- PtxSerializer.cpp - gpu.module to PTX text -------------------------===//
//
// Builds on upstream's SerializeGPUModuleBase, which does the translation to
// LLVM IR and the linking of libdevice and the target's libraries; only the
// optimization pipeline and the PTX emission are written here (upstream's
// NVPTX serializer cannot be subclassed: it is private to its file).
//
//===----------------------------------------------------------------------===//

#include "PtxSerializer.h"

#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>

using namespace mlir;

namespace {

/// Upstream's NVVM serialization to PTX text with the pipeline of
/// serializeToPTX.
class PtxSerializer : public NVVM::SerializeGPUModuleBase {
public:
  using SerializeGPUModuleBase::SerializeGPUModuleBase;

protected:
  /// libdevice is linked only into modules that call it (`__nv_*`
  /// declarations). Upstream reads its bitcode for every module, and
  /// linking only what is needed drops all of it where nothing is called:
  /// the PTX is the same, without the read (about a millisecond a module,
  /// and the kernels here call none of it).
  std::optional<SmallVector<std::unique_ptr<llvm::Module>>>
  loadBitcodeFiles(llvm::Module &module) override {
    auto callee = llvm::find_if(module, [](const llvm::Function &f) {
      return f.isDeclaration() && f.getName().starts_with("__nv_");
    });
    if (callee == module.end())
      return SmallVector<std::unique_ptr<llvm::Module>>();
    auto libraries = SerializeGPUModuleBase::loadBitcodeFiles(module);
    // Upstream links nothing when it finds no CUDA toolkit, which would
    // leave the call unresolved in the PTX: an error here instead.
    if (libraries && libraries->empty()) {
      getOperation().emitError()
          << "calls libdevice (" << callee->getName()
          << ") but no libdevice was found: set CUDA_HOME or the toolkit "
             "path (norm-serialize-kernels toolkit=...)";
      return std::nullopt;
    }
    return libraries;
  }

  /// LLVM's default pipeline at `optLevel`, as upstream's (loop unrolling,
  /// interleaving and vectorization on), except for the SLP vectorizer and
  /// VectorCombine; code generation at `optLevel`, at most -O2.
  LogicalResult optimizeModule(llvm::Module &module, int optLevel) override {
    static const llvm::OptimizationLevel levels[] = {
        llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
        llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
    if (optLevel < 0 || optLevel > 3)
      return getOperation().emitError()
             << "optimization level " << optLevel << " is none of 0-3";
    FailureOr<llvm::TargetMachine *> machine = getOrCreateTargetMachine();
    if (failed(machine))
      return getOperation().emitError()
             << "no LLVM target machine for triple " << triple;
    // Code generation at most at -O2: NVPTX then runs EarlyCSE where -O3
    // runs GVN after strength reduction, about 5% of the LLVM time (10 ms of
    // the LayerNorm backward's column kernel). It changed the PTX of 47 of
    // the 194 default bundles (mostly backwards from N = 3072 and long
    // rows): on the H200 all passed gpu_check and ran level or faster
    // (kernel time, 5 rounds: 0.99-1.01x, the LayerNorm backward at
    // 2048 x 32771 1.08x).
    (*machine)->setOptLevel(
        static_cast<llvm::CodeGenOptLevel>(std::min(optLevel, 2)));

    llvm::PipelineTuningOptions tuning;
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = true;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = false;
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    // VectorCombine splits each 16-byte shared-memory load whose elements
    // are extracted one by one into scalar loads (scalarizeLoadExtract), and
    // the code generator's load/store vectorizer joins them again: the PTX
    // of every default bundle (and of f16 / f32 sweeps) is byte-identical
    // without it. In between, GVN (once in this pipeline, twice in NVPTX
    // code generation) worked on eight times the loads: the long-row
    // LayerNorm backward's cluster kernel took 127 ms of LLVM, 57 ms
    // without. The pass is optional, so the instrumentation
    // skips it, for this pipeline only.
    llvm::PassInstrumentationCallbacks instrumentation;
    instrumentation.registerShouldRunOptionalPassCallback(
        [](llvm::StringRef pass, llvm::Any) {
          return pass != "VectorCombinePass";
        });
    llvm::PassBuilder builder(*machine, tuning, std::nullopt, &instrumentation);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::OptimizationLevel level = levels[optLevel];
    llvm::ModulePassManager pipeline =
        level == llvm::OptimizationLevel::O0
            ? builder.buildO0DefaultPipeline(level)
            : builder.buildPerModuleDefaultPipeline(level);
    pipeline.run(module, modules);
    return success();
  }

  /// The optimized module's PTX text.
  FailureOr<SmallVector<char, 0>>
  moduleToObject(llvm::Module &module) override {
    FailureOr<llvm::TargetMachine *> machine = getOrCreateTargetMachine();
    if (failed(machine))
      return getOperation().emitError()
             << "no LLVM target machine for triple " << triple;
    FailureOr<SmallString<0>> ptx = translateModuleToISA(
        module, **machine, [&] { return getOperation().emitError(); });
    if (failed(ptx))
      return failure();
    if (isaCallback)
      isaCallback(*ptx);
    return SmallVector<char, 0>(ptx->begin(), ptx->end());
  }
};

} // namespace

FailureOr<SmallVector<char, 0>>
mlir::norm::serializeToPTX(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
                           const gpu::TargetOptions &options) {
  PtxSerializer serializer(*module, target, options);
  serializer.init();
  std::optional<SmallVector<char, 0>> ptx = serializer.run();
  if (!ptx)
    return failure();
  return std::move(*ptx);
}
