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

  /// Clusters of `clusterSize` blocks, one block per SM, that the GPU holds
  /// at once (what cuOccupancyMaxActiveClusters reports). The GPCs decide,
  /// not only the SM count: on the H200 (132 SMs) 66, 30, 15 and 7 for
  /// clusters of 2, 4, 8 and 16 (as measured), which is what a
  /// 132-SM target gets; other SM counts get 85% of numSMs / clusterSize,
  /// since a grid one cluster over the real count runs a second wave.
  int64_t residentClusters(int64_t clusterSize) const;
};

/// The largest DeviceInfo::registerBudget: elements a thread keeps of all
/// its full operands cannot outnumber the 255 registers ptxas gives a
/// thread, and larger budgets only make the layout searches longer.
constexpr int64_t kMaxRegisterBudget = 255;

/// Returns an empty string when `budget` is a usable register budget (1 to
/// kMaxRegisterBudget elements a thread), else why not.
std::string validateRegisterBudget(int64_t budget);

/// Returns an empty string when an SM's resources can hold a block of
/// `maxThreadsPerBlock` threads (its threads, a block's shared memory within
/// the SM's, at least 48 KB a block, registers for 32 a thread), else why
/// not.
std::string validateSMResources(int64_t maxThreadsPerBlock,
                                int64_t sharedMemoryPerBlock,
                                int64_t sharedMemoryPerSM, int64_t threadsPerSM,
                                int64_t registersPerSM);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_DEVICE_INFO_H
