//===- DeviceInfo.h - the target GPU for the tuning rules -------*- C++ -*-===//
//
// What the tuning rules know of the target: SMs, block and register limits,
// shared memory and thread block clusters.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_DEVICE_INFO_H
#define NORMDIALECT_TUNING_DEVICE_INFO_H

#include <cstdint>
#include <string>

namespace mlir::norm {

/// The first compute capability with Hopper's thread block clusters, bulk
/// copies, mbarrier transaction counts and dependent launches.
constexpr int64_t kHopperCapability = 90;
/// The oldest compute capability the kernels compile for (Ampere: bf16
/// arithmetic, cp.async, L2 cache hints).
constexpr int64_t kOldestCapability = 80;
/// Most blocks that share a row on a target without thread block clusters:
/// a block group, whose blocks exchange their row totals through global
/// memory (RowLayout::globalExchange). As many as Hopper's largest cluster,
/// so the same layouts hold the same rows.
constexpr int64_t kMaxBlockGroupSize = 16;

/// What the tuning rules need to know about the target GPU.
struct DeviceInfo {
  /// Streaming multiprocessors (H100 SXM and H200: 132).
  int64_t numSMs = 132;
  /// Largest block the target launches.
  int64_t maxThreadsPerBlock = 1024;
  /// Elements of all full (M x N) operands together that one thread keeps in
  /// registers while a row is processed. About 32 f32 values keeps kernels
  /// far from spilling with room for column accumulators.
  int64_t registerBudget = 32;
  /// Shared memory one block may use (bytes): Hopper's opt-in limit for
  /// dynamic shared memory, which the runtimes request at launch
  /// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) above the 48 KB
  /// every kernel gets.
  int64_t sharedMemoryPerBlock = 227 * 1024;
  /// Shared memory of one SM (bytes), shared by its resident blocks.
  int64_t sharedMemoryPerSM = 228 * 1024;
  /// Threads and 32-bit registers one SM holds (Hopper: 2048, 64K).
  int64_t threadsPerSM = 2048;
  int64_t registersPerSM = 65536;
  /// Largest thread block cluster a kernel may use to share a row (1: no
  /// clusters). Hopper guarantees 8; 16 is a non-portable size the runtime
  /// enables per kernel (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED).
  int64_t maxClusterSize = 16;
  /// Compute capability, major * 10 + minor (H100 / H200: 90). It says
  /// which of the chip's instructions the kernels may use.
  int64_t computeCapability = kHopperCapability;

  /// Hopper's asynchronous bulk copies with mbarrier transaction counts
  /// (staged rows, bulk stores, bulk L2 prefetch): sm_90 and newer.
  bool hasBulkCopies() const { return computeCapability >= kHopperCapability; }
  /// Thread block clusters (a row shared through distributed shared
  /// memory); without them rows too long for a block are shared by block
  /// groups instead (kMaxBlockGroupSize).
  bool hasClusters() const { return maxClusterSize > 1; }
  /// Programmatic dependent launch (griddepcontrol): sm_90 and newer.
  bool hasDependentLaunch() const {
    return computeCapability >= kHopperCapability;
  }
  /// A conversion from f32 to FP8 (cvt.rn.satfinite.e4m3x2.f32): sm_89 and
  /// newer; older chips round in integer arithmetic.
  bool hasFloat8Conversion() const { return computeCapability >= 89; }

  /// Clusters of `clusterSize` blocks, one block per SM, that the GPU holds
  /// at once (what cuOccupancyMaxActiveClusters reports). The GPCs decide,
  /// not only the SM count: on the H200 (132 SMs) 66, 30, 15 and 7 for
  /// clusters of 2, 4, 8 and 16 (as measured), which is what a
  /// 132-SM target gets; other SM counts get 85% of numSMs / clusterSize,
  /// since a grid one cluster over the real count runs a second wave.
  int64_t residentClusters(int64_t clusterSize) const;
  /// Block groups of `groupSize` blocks (RowLayout::globalExchange) the GPU
  /// holds at once with `blocksPerSM` blocks an SM: no GPC places them, so
  /// every SM counts.
  int64_t residentBlockGroups(int64_t groupSize, int64_t blocksPerSM) const;
};

/// The GPU the tuning rules assume for `computeCapability` where nothing
/// else is said of it: the data-center part of its generation (80: A100
/// SXM, 108 SMs and 163 KB of shared memory a block; 90: H100 SXM / H200;
/// 100: B200, 148 SMs; 120: RTX 5090, 170 SMs, 99 KB a block, 1536 threads
/// an SM and clusters of up to 8), else that of the newest generation
/// before it. Their values are the CUDA driver's for those GPUs.
DeviceInfo deviceOfCapability(int64_t computeCapability);

/// The largest DeviceInfo::registerBudget: elements a thread keeps of all
/// its full operands cannot outnumber the 255 registers ptxas gives a
/// thread, and larger budgets only make the layout searches longer.
constexpr int64_t kMaxRegisterBudget = 255;

/// Returns an empty string when `budget` is a usable register budget (1 to
/// kMaxRegisterBudget elements a thread), else why not.
std::string validateRegisterBudget(int64_t budget);

/// Returns an empty string when the kernels compile for `computeCapability`
/// (major * 10 + minor, 80 or more) with clusters of up to `maxClusterSize`
/// blocks (chips before Hopper have none: 1), else why not.
std::string validateComputeCapability(int64_t computeCapability,
                                      int64_t maxClusterSize);

/// The most SMs, and threads a block or an SM, a target may declare; and
/// the most bytes of shared memory and registers an SM or a block may. Far
/// beyond any GPU's, they keep the tuning rules' products of a few of them
/// within 64 bits.
constexpr int64_t kMaxDeviceCount = int64_t(1) << 16;
constexpr int64_t kMaxDeviceAmount = int64_t(1) << 30;

/// Returns an empty string when an SM's resources can hold a block of
/// `maxThreadsPerBlock` threads (its threads, a block's shared memory within
/// the SM's, at least 48 KB a block, registers for 32 a thread) and none
/// exceeds kMaxDeviceCount (threads) or kMaxDeviceAmount, else why not.
std::string validateSMResources(int64_t maxThreadsPerBlock,
                                int64_t sharedMemoryPerBlock,
                                int64_t sharedMemoryPerSM, int64_t threadsPerSM,
                                int64_t registersPerSM);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_DEVICE_INFO_H
