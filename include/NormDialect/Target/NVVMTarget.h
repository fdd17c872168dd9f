//===- NVVMTarget.h - the GPU targets norm kernels compile for --*- C++ -*-===//
//
// Which NVVM chips and PTX versions the kernels can be compiled for, checked
// by norm-serialize-kernels on each module and by the bundle compiler before
// it starts.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_CONVERSION_NVVMTARGET_H
#define NORMDIALECT_CONVERSION_NVVMTARGET_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::norm {

/// Empty when the kernels can be compiled for `chip` with `features`, else
/// why not. The chip is sm_80 (kernels without Hopper's clusters, bulk
/// copies and dependent launches, which every GPU since Ampere runs through
/// the driver's PTX JIT), sm_90 or sm_90a (the targets the kernels are
/// built and measured for) or Blackwell's sm_100(a) / sm_120(a), which keep
/// Hopper's features (ptxas-checked, not run here), and the features name
/// one PTX ISA version (+ptxNN) that has everything the kernels use and
/// names the chip (8.1; 8.6 for sm_100a, 8.7 for sm_120a) and that this
/// LLVM's NVPTX target knows (knownPtxVersions);
/// options left empty are resolved first (nvvmFeatures). LLVM itself
/// aborts on anything else: an unknown chip or an older PTX version cannot
/// select the shuffles and copies, and a chip newer than the PTX version is
/// a fatal error.
std::string validateNVVMTarget(llvm::StringRef chip, llvm::StringRef features);

/// `features`, or where they are empty the oldest PTX ISA version the
/// kernels can use on `chip` (+ptx81 for sm_90, +ptx86 for sm_100a). For a
/// target validateNVVMTarget accepts.
std::string nvvmFeatures(llvm::StringRef chip, llvm::StringRef features);

/// The compute capability (major * 10 + minor) of `chip`, the digits of
/// sm_NN[a|f] (sm_80: 80, sm_100a: 100), or 0 for a name not of that form.
int64_t chipComputeCapability(llvm::StringRef chip);

/// The PTX ISA versions (NN of +ptxNN) this LLVM's NVPTX target knows, in
/// increasing order: its subtarget features named ptxNN.
std::vector<unsigned> knownPtxVersions();

} // namespace mlir::norm

#endif // NORMDIALECT_CONVERSION_NVVMTARGET_H
