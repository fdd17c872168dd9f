//===- CpuJit.cpp - run norm programs on the CPU --------------------------===//

#include "NormDialect/Target/CpuJit.h"

#include "ProgramSource.h"

#include "NormDialect/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"

#include <cstring>
#include <mutex>
#include <vector>

using namespace mlir;
using namespace mlir::norm;

/// A memref as the LLVM lowering passes it unranked: its rank and its
/// ranked descriptor (allocated and aligned pointers, offset, sizes[rank],
/// strides[rank]).
struct UnrankedDescriptor {
  int64_t rank;
  void *descriptor;
};

/// MLIR's runtime function for memref.copy between memrefs whose layouts
/// are not both contiguous (finalize-memref-to-llvm calls it; upstream's
/// libmlir_c_runner_utils defines it, which the JIT does not load): copies
/// each element of `src` to the same index of `dst`.
static void copyMemref(int64_t elementSize, UnrankedDescriptor *src,
                       UnrankedDescriptor *dst) {
  int64_t rank = src->rank;
  auto base = [&](UnrankedDescriptor *d) {
    char *aligned = static_cast<char **>(d->descriptor)[1];
    int64_t offset = reinterpret_cast<int64_t *>(d->descriptor)[2];
    return aligned + offset * elementSize;
  };
  auto *sizes = reinterpret_cast<int64_t *>(src->descriptor) + 3;
  int64_t *srcStrides = sizes + rank;
  int64_t *dstStrides = reinterpret_cast<int64_t *>(dst->descriptor) + 3 + rank;
  char *from = base(src), *to = base(dst);
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] == 0)
      return;
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t srcOffset = 0, dstOffset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      srcOffset += index[d] * srcStrides[d];
      dstOffset += index[d] * dstStrides[d];
    }
    std::memcpy(to + dstOffset * elementSize, from + srcOffset * elementSize,
                elementSize);
    int64_t d = rank - 1;
    for (; d >= 0 && ++index[d] == sizes[d]; --d)
      index[d] = 0;
    if (d < 0)
      return;
  }
}

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
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("memrefCopy")] = {
        llvm::orc::ExecutorAddr::fromPtr(&copyMemref),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
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
