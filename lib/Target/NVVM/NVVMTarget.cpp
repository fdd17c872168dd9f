//===- NVVMTarget.cpp - the GPU targets norm kernels compile for ----------===//

#include "NormDialect/Target/NVVMTarget.h"

#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

using namespace llvm;

/// The oldest PTX ISA version with everything the kernels use (8.1).
static constexpr unsigned kMinPtx = 81;

std::vector<unsigned> mlir::norm::knownPtxVersions() {
  // Asked of this LLVM's NVPTX target, so that a newer LLVM's versions are
  // taken without a list to update here. Upstream's serializer initializes
  // the backend behind its own once-flag; sharing it avoids registering the
  // target twice from two threads.
  static const std::vector<unsigned> versions = [] {
    mlir::NVVM::SerializeGPUModuleBase::init();
    std::vector<unsigned> found;
    Triple triple("nvptx64-nvidia-cuda");
    std::string error;
    const Target *target = TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return found;
    std::unique_ptr<MCSubtargetInfo> subtarget(
        target->createMCSubtargetInfo(triple, "sm_90", ""));
    if (!subtarget)
      return found;
    for (const SubtargetFeatureKV &feature :
         subtarget->getAllProcessorFeatures()) {
      StringRef key(feature.Key);
      unsigned version = 0;
      if (key.consume_front("ptx") && !key.getAsInteger(10, version))
        found.push_back(version);
    }
    llvm::sort(found);
    return found;
  }();
  return versions;
}

std::string mlir::norm::validateNVVMTarget(StringRef chip, StringRef features) {
  if (chip != "sm_90" && chip != "sm_90a")
    return "chip must be sm_90 or sm_90a (the kernels use Hopper's clusters, "
           "bulk copies and mbarriers), got '" +
           chip.str() + "'";
  std::vector<unsigned> known = knownPtxVersions();
  std::string allowed;
  for (unsigned version : known)
    if (version >= kMinPtx)
      allowed +=
          (allowed.empty() ? "+ptx" : ", +ptx") + std::to_string(version);
  if (allowed.empty())
    return "this LLVM's NVPTX target knows no PTX ISA version from 8.1 on";
  StringRef digits = features.trim();
  unsigned version = 0;
  if (!digits.consume_front("+ptx") || digits.getAsInteger(10, version) ||
      version < kMinPtx || !llvm::is_contained(known, version))
    return "features must name one PTX ISA version that the kernels can use "
           "(8.1 or later) and LLVM knows: " +
           allowed + "; got '" + features.str() + "'";
  return {};
}
