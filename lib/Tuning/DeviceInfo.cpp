//===- DeviceInfo.cpp - properties of the target GPU ----------------------===//
//
// What DeviceInfo derives from its fields (the clusters and block groups
// the GPU holds at once) and the checks of its register budget and SM
// resources.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Tuning/DeviceInfo.h"

#include <algorithm>

using namespace mlir::norm;

int64_t DeviceInfo::residentClusters(int64_t clusterSize) const {
  clusterSize = std::max<int64_t>(1, clusterSize);
  if (numSMs == 132) {
    switch (clusterSize) {
    case 1:
      return 132;
    case 2:
      return 66;
    case 4:
      return 30;
    case 8:
      return 15;
    case 16:
      return 7;
    default:
      break;
    }
  }
  return std::max<int64_t>(1, numSMs * 85 / (100 * clusterSize));
}

int64_t DeviceInfo::residentBlockGroups(int64_t groupSize,
                                        int64_t blocksPerSM) const {
  return std::max<int64_t>(1, numSMs * std::max<int64_t>(1, blocksPerSM) /
                                  std::max<int64_t>(1, groupSize));
}

DeviceInfo mlir::norm::deviceOfCapability(int64_t computeCapability) {
  DeviceInfo device; // H100 SXM / H200
  device.computeCapability = computeCapability;
  if (computeCapability < kHopperCapability) {
    // A100 SXM.
    device.numSMs = 108;
    device.sharedMemoryPerBlock = 163 * 1024;
    device.sharedMemoryPerSM = 164 * 1024;
    device.maxClusterSize = 1;
  } else if (computeCapability >= 120) {
    // RTX 5090: its clusters hold the portable 8 blocks.
    device.numSMs = 170;
    device.sharedMemoryPerBlock = 99 * 1024;
    device.sharedMemoryPerSM = 100 * 1024;
    device.threadsPerSM = 1536;
    device.maxClusterSize = 8;
  } else if (computeCapability >= 100) {
    // B200.
    device.numSMs = 148;
  }
  return device;
}

std::string mlir::norm::validateRegisterBudget(int64_t budget) {
  if (budget < 1 || budget > kMaxRegisterBudget)
    return "register-budget must be 1 to " +
           std::to_string(kMaxRegisterBudget) + " elements a thread, got " +
           std::to_string(budget);
  return {};
}

std::string mlir::norm::validateComputeCapability(int64_t computeCapability,
                                                  int64_t maxClusterSize) {
  if (computeCapability < kOldestCapability)
    return "compute_capability must be at least " +
           std::to_string(kOldestCapability) +
           " (Ampere: the kernels use bf16 arithmetic), got " +
           std::to_string(computeCapability);
  if (computeCapability < kHopperCapability && maxClusterSize > 1)
    return "max_cluster_size must be 1 below compute capability " +
           std::to_string(kHopperCapability) +
           " (thread block clusters are Hopper's), got " +
           std::to_string(maxClusterSize);
  return {};
}

std::string mlir::norm::validateSMResources(int64_t maxThreadsPerBlock,
                                            int64_t sharedMemoryPerBlock,
                                            int64_t sharedMemoryPerSM,
                                            int64_t threadsPerSM,
                                            int64_t registersPerSM) {
  auto str = [](int64_t v) { return std::to_string(v); };
  if (maxThreadsPerBlock > kMaxDeviceCount || threadsPerSM > kMaxDeviceCount)
    return "threads a block and an SM must be at most " + str(kMaxDeviceCount) +
           ", got " + str(maxThreadsPerBlock) + " and " + str(threadsPerSM);
  if (sharedMemoryPerSM > kMaxDeviceAmount || registersPerSM > kMaxDeviceAmount)
    return "shared memory and registers of an SM must be at most " +
           str(kMaxDeviceAmount) + ", got " + str(sharedMemoryPerSM) +
           " bytes and " + str(registersPerSM) + " registers";
  // Every kernel may use 48 KB of shared memory without opting in.
  constexpr int64_t kStaticSharedMemory = 48 * 1024;
  if (threadsPerSM < maxThreadsPerBlock || threadsPerSM % 32)
    return "threads_per_sm must be a multiple of 32 that holds a block of " +
           str(maxThreadsPerBlock) + " threads, got " + str(threadsPerSM);
  if (sharedMemoryPerBlock < kStaticSharedMemory ||
      sharedMemoryPerSM < sharedMemoryPerBlock)
    return "shared memory must be at least 48 KB a block and no more a block "
           "than an SM has, got " +
           str(sharedMemoryPerBlock) + " a block and " +
           str(sharedMemoryPerSM) + " an SM";
  if (registersPerSM < 32 * maxThreadsPerBlock)
    return "registers_per_sm must hold 32 registers for each thread of a "
           "block of " +
           str(maxThreadsPerBlock) + ", got " + str(registersPerSM);
  return {};
}
