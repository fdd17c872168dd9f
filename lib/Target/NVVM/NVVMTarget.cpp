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

/// The chips the kernels compile for, with the oldest PTX ISA version that
/// names each (PTX ISA: sm_100a from 8.6, sm_120a from 8.7): sm_80, whose
/// kernels any GPU since Ampere runs (the target's compute capability keeps
/// them off clusters, bulk copies and dependent launches), and Hopper's and
/// Blackwell's, which have them.
static constexpr std::pair<const char *, unsigned> kChips[] = {
    {"sm_80", kMinPtx}, {"sm_90", kMinPtx}, {"sm_90a", kMinPtx}, {"sm_100", 86},
    {"sm_100a", 86},    {"sm_120", 87},     {"sm_120a", 87}};

/// The entry of `chip` in kChips, or the end.
static const std::pair<const char *, unsigned> *findChip(StringRef chip) {
  return llvm::find_if(kChips,
                       [&](const auto &entry) { return chip == entry.first; });
}

int64_t mlir::norm::chipComputeCapability(StringRef chip) {
  StringRef digits = chip;
  if (!digits.consume_front("sm_"))
    return 0;
  if (digits.ends_with("a") || digits.ends_with("f"))
    digits = digits.drop_back();
  int64_t capability = 0;
  if (digits.getAsInteger(10, capability))
    return 0;
  return capability;
}

std::string mlir::norm::nvvmFeatures(StringRef chip, StringRef features) {
  if (!features.trim().empty())
    return features.str();
  const auto *found = findChip(chip);
  unsigned minPtx = found == std::end(kChips) ? kMinPtx : found->second;
  for (unsigned version : knownPtxVersions())
    if (version >= minPtx)
      return "+ptx" + std::to_string(version);
  return features.str();
}

std::string mlir::norm::validateNVVMTarget(StringRef chip, StringRef features) {
  const auto *found = findChip(chip);
  if (found == std::end(kChips))
    return "chip must be sm_80 (any GPU since Ampere), sm_90, sm_90a, "
           "sm_100, sm_100a, sm_120 or sm_120a, got '" +
           chip.str() + "'";
  unsigned minPtx = found->second;
  std::vector<unsigned> known = knownPtxVersions();
  std::string allowed;
  for (unsigned version : known)
    if (version >= minPtx)
      allowed +=
          (allowed.empty() ? "+ptx" : ", +ptx") + std::to_string(version);
  if (allowed.empty())
    return "this LLVM's NVPTX target knows no PTX ISA version for " +
           chip.str();
  StringRef digits = features.trim();
  unsigned version = 0;
  if (!digits.consume_front("+ptx") || digits.getAsInteger(10, version) ||
      version < minPtx || !llvm::is_contained(known, version))
    return "features must name one PTX ISA version that the kernels can use "
           "on " +
           chip.str() + " and LLVM knows: " + allowed + "; got '" +
           features.str() + "'";
  return {};
}
