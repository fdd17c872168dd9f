//===- NVVMTargetTest.cpp - the GPU targets norm kernels compile for ------===//

#include "NormDialect/Target/NVVMTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "gtest/gtest.h"

using namespace mlir::norm;

namespace {

TEST(NVVMTarget, PtxVersionsComeFromLLVM) {
  std::vector<unsigned> versions = knownPtxVersions();
  EXPECT_TRUE(llvm::is_sorted(versions));
  // LLVM 22's NVPTX target knows 8.1 (what the kernels need) and 9.0, and
  // no 8.9.
  EXPECT_TRUE(llvm::is_contained(versions, 81u));
  EXPECT_TRUE(llvm::is_contained(versions, 90u));
  EXPECT_FALSE(llvm::is_contained(versions, 89u));
}

TEST(NVVMTarget, AdmitsHopperWithAKnownPtxVersion) {
  EXPECT_EQ(validateNVVMTarget("sm_90", "+ptx81"), "");
  EXPECT_EQ(validateNVVMTarget("sm_90a", " +ptx90 "), "");
  for (const char *features :
       {"+ptx78", "+ptx89", "+ptx", "ptx81", "+ptx81,+ptx82", "+ptx4294967377"})
    EXPECT_NE(validateNVVMTarget("sm_90", features)
                  .find("features must name one PTX ISA version"),
              std::string::npos)
        << features;
  for (const char *chip : {"sm_75", "sm_86", "sm_89", "", "0"})
    EXPECT_NE(validateNVVMTarget(chip, "+ptx81").find("chip must be sm_80"),
              std::string::npos)
        << chip;
}

TEST(NVVMTarget, AmpereAndBlackwellChips) {
  // sm_80: the portable kernels, from PTX ISA 8.1 like Hopper's; sm_120(a)
  // from 8.7.
  EXPECT_EQ(validateNVVMTarget("sm_80", nvvmFeatures("sm_80", "")), "");
  EXPECT_EQ(nvvmFeatures("sm_80", ""), "+ptx81");
  EXPECT_EQ(nvvmFeatures("sm_120a", ""), "+ptx87");
  EXPECT_EQ(validateNVVMTarget("sm_120", "+ptx87"), "");
  EXPECT_NE(validateNVVMTarget("sm_120a", "+ptx86").find("on sm_120a"),
            std::string::npos);
  // The compute capability each chip declares to the tuning rules.
  EXPECT_EQ(chipComputeCapability("sm_80"), 80);
  EXPECT_EQ(chipComputeCapability("sm_90a"), 90);
  EXPECT_EQ(chipComputeCapability("sm_100a"), 100);
  EXPECT_EQ(chipComputeCapability("sm_120"), 120);
  for (const char *chip : {"", "sm_", "sm_x0", "compute_90", "90"})
    EXPECT_EQ(chipComputeCapability(chip), 0) << chip;
}

TEST(NVVMTarget, BlackwellNeedsAPtxVersionThatNamesIt) {
  // sm_100a from PTX ISA 8.6; empty features take the chip's oldest.
  EXPECT_EQ(validateNVVMTarget("sm_100a", "+ptx86"), "");
  EXPECT_EQ(validateNVVMTarget("sm_100", nvvmFeatures("sm_100", "")), "");
  EXPECT_NE(validateNVVMTarget("sm_100a", "+ptx85").find("on sm_100a"),
            std::string::npos);
  EXPECT_EQ(nvvmFeatures("sm_100a", ""), "+ptx86");
  EXPECT_EQ(nvvmFeatures("sm_90", ""), "+ptx81");
  EXPECT_EQ(nvvmFeatures("sm_90", "+ptx83"), "+ptx83");
}

} // namespace
