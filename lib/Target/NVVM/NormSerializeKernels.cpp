//===- NormSerializeKernels.cpp - gpu.modules to binaries in parallel -----===//
//
// Upstream gpu-module-to-binary serializes one gpu.module after the other.
// convert-norm-to-gpu gives each kernel a module of its own, so the modules'
// LLVM optimization and code generation, most of the time from norm IR to
// PTX, can run side by side: each module translates into an LLVMContext of
// its own. Creating the gpu.binary ops and erasing the modules mutates the
// parent, so that happens on this thread, in module order, afterwards.
// NVVM targets' PTX text goes through serializeToPTX (PtxSerializer.h),
// which differs from upstream's in its LLVM pipeline; other targets and
// formats through the target's own serializeToObject.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Target/NVVMTarget.h"
#include "NormDialect/Target/Passes.h"
#include "NormDialect/Utils/PassOptions.h"

#include "PtxSerializer.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMSERIALIZEKERNELS
#include "NormDialect/Target/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

/// One module's serialized objects, one per target attribute.
struct SerializedModule {
  gpu::GPUModuleOp module;
  /// Its operations: what orders the modules for the threads.
  int64_t size = 0;
  SmallVector<std::pair<gpu::TargetAttrInterface, SmallVector<char, 0>>>
      objects;
};

struct NormSerializeKernelsPass
    : public mlir::norm::impl::NormSerializeKernelsBase<
          NormSerializeKernelsPass> {
  using Base::Base;

  /// The objects' format, from the option.
  gpu::CompilationTarget target = gpu::CompilationTarget::Assembly;

  /// Options are checked once, before the pass sees any IR
  /// (reportOptionError).
  LogicalResult initialize(MLIRContext *context) override {
    std::optional<gpu::CompilationTarget> parsed =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
            .Cases({"offloading", "llvm"}, gpu::CompilationTarget::Offload)
            .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
            .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
            .Cases({"fatbinary", "fatbin"}, gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!parsed)
      return reportOptionError(
          context, getArgument(),
          "format '" + std::string(format) +
              "' is none of isa, bin, fatbin, offloading (or their long "
              "names assembly, binary, fatbinary, llvm)");
    target = *parsed;
    return success();
  }

  void runOnOperation() override {
    ModuleOp root = getOperation();

    SmallVector<SerializedModule> modules;
    for (auto module : root.getOps<gpu::GPUModuleOp>()) {
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets || targets.empty()) {
        module.emitError("has no target attributes to serialize for (run "
                         "nvvm-attach-target first)");
        return signalPassFailure();
      }
      // LLVM aborts the process on a target the kernels cannot be compiled
      // for, so the targets are checked before any thread starts.
      for (Attribute attr : targets) {
        auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr);
        if (!nvvm)
          continue;
        std::string why =
            validateNVVMTarget(nvvm.getChip(), nvvm.getFeatures());
        if (!why.empty()) {
          module.emitError(why);
          return signalPassFailure();
        }
      }
      int64_t size = 0;
      module.walk([&](Operation *) { ++size; });
      modules.push_back({module, size, {}});
    }
    // The symbol table a target may ask for is built before the threads
    // start and only read by them.
    SymbolTable table(root);
    auto getTable = [&]() -> SymbolTable * { return &table; };
    gpu::TargetOptions options(toolkitPath, /*librariesToLink=*/{},
                               /*cmdOptions=*/{}, /*elfSection=*/{}, target,
                               getTable);

    // Upstream's targets record compile times on their module
    // (serializeToObject), which touches that module only.
    auto serialize = [&](SerializedModule &entry) -> LogicalResult {
      for (Attribute attr : entry.module.getTargetsAttr()) {
        auto targetAttr = dyn_cast<gpu::TargetAttrInterface>(attr);
        if (!targetAttr)
          return entry.module.emitError("target ")
                 << attr << " is not a gpu target (TargetAttrInterface)";
        std::optional<SmallVector<char, 0>> object;
        auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr);
        if (nvvm && target == gpu::CompilationTarget::Assembly) {
          FailureOr<SmallVector<char, 0>> ptx =
              serializeToPTX(entry.module, nvvm, options);
          if (succeeded(ptx))
            object = std::move(*ptx);
        } else {
          object = targetAttr.serializeToObject(entry.module, options);
        }
        if (!object)
          return entry.module.emitError(
              "an error happened while serializing the module");
        entry.objects.emplace_back(targetAttr, std::move(*object));
      }
      return success();
    };
    // The largest modules first: the threads take modules in this order, and
    // a large one taken last would leave the other threads idle while it
    // finishes (the LayerNorm backward's column kernel alone takes a third
    // of the serialization's CPU time).
    SmallVector<SerializedModule *> bySize;
    for (SerializedModule &entry : modules)
      bySize.push_back(&entry);
    llvm::stable_sort(bySize, [](SerializedModule *a, SerializedModule *b) {
      return a->size > b->size;
    });
    auto serializeEntry = [&](SerializedModule *entry) {
      return serialize(*entry);
    };
    if (failed(failableParallelForEach(&getContext(), bySize, serializeEntry)))
      return signalPassFailure();

    for (SerializedModule &entry : modules) {
      SmallVector<Attribute> objects;
      for (auto &[targetAttr, object] : entry.objects) {
        Attribute created =
            targetAttr.createObject(entry.module, object, options);
        if (!created) {
          entry.module.emitError("an error happened while creating the object");
          return signalPassFailure();
        }
        objects.push_back(created);
      }
      OpBuilder b(entry.module);
      b.setInsertionPointAfter(entry.module);
      auto handler =
          dyn_cast_or_null<gpu::OffloadingLLVMTranslationAttrInterface>(
              entry.module.getOffloadingHandlerAttr());
      gpu::BinaryOp::create(b, entry.module.getLoc(), entry.module.getName(),
                            handler, b.getArrayAttr(objects));
      entry.module->erase();
    }
  }
};

} // namespace
