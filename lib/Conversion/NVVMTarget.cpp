//===- NVVMTarget.cpp - the GPU targets norm kernels compile for ----------===//

#include "NormDialect/Conversion/NVVMTarget.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

std::string mlir::norm::validateNVVMTarget(StringRef chip, StringRef features) {
  if (chip != "sm_90" && chip != "sm_90a")
    return "chip must be sm_90 or sm_90a (the kernels use Hopper's clusters, "
           "bulk copies and mbarriers), got '" +
           chip.str() + "'";
  // One +ptxNN of the versions LLVM 22's NVPTX target knows from 8.1 on.
  static constexpr unsigned kKnownPtx[] = {81, 82, 83, 84, 85, 86, 87, 88, 90};
  StringRef digits = features.trim();
  unsigned version = 0;
  if (!digits.consume_front("+ptx") || digits.getAsInteger(10, version) ||
      !llvm::is_contained(kKnownPtx, version))
    return "features must name one PTX ISA version, +ptx81 to +ptx88 or "
           "+ptx90 (the kernels need 8.1), got '" +
           features.str() + "'";
  return {};
}
