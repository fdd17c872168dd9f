//===- TuningHelpers.h - helpers shared by the tuning rules ----*- C++ -*-===//
//
// Private to lib/Tuning: the arithmetic, limits and derived quantities that
// several of its files (row, cluster and combine layouts, staging, splits,
// the kernel plan) use. Everything here is plain C++ on shapes and device
// properties, like the public rules in NormDialect/Tuning/Tuning.h.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_TUNING_TUNINGHELPERS_H
#define LIB_TUNING_TUNINGHELPERS_H

#include "NormDialect/Tuning/Tuning.h"

#include <algorithm>
#include <optional>

namespace mlir::norm::detail {

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Largest power of two at most `v` (v >= 1).
inline int64_t powerOfTwoFloor(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v)
    p *= 2;
  return p;
}

/// Elements of one full operand a thread may keep in registers: `budget`
/// shared by the full operands, at least 8.
inline int64_t elementsPerOperand(int64_t budget, int64_t fullOperands) {
  return std::max<int64_t>(8, budget / std::max<int64_t>(1, fullOperands));
}

/// The largest block a kernel of ours launches: the device's, at most 1024
/// threads (the CUDA limit).
inline int64_t blockThreadLimit(const DeviceInfo &device) {
  return std::min<int64_t>(1024, device.maxThreadsPerBlock);
}

/// Registers a thread of a `threads`-thread block may use when one block
/// must fit an SM: what ptxas allows under .maxntid, which sizes the block
/// in units of four warps (128 threads) and allocates registers in units of
/// 8, at most 255. ptxas -v on one kernel under .maxntid 256 / 288-384 /
/// 416-512 / 1024: 255 / 168 / 128 / 64 registers, spilling the rest (448
/// threads: 128, not the 146 of 65536 / 448).
inline int64_t registerLimit(int64_t threads, const DeviceInfo &device) {
  int64_t sized = (threads + 127) / 128 * 128;
  return std::min<int64_t>(255, device.registersPerSM / sized / 8 * 8);
}

/// Registers ptxas allocates for `registers` a thread uses: whole units of 8.
inline int64_t allocatedRegisters(int64_t registers) {
  return ceilDiv(registers, 8) * 8;
}

/// Blocks of `threads` threads an SM holds by its threads and registers at
/// `registers` a thread (allocated in units of 8), at least one. Each of an
/// SM's four sub-partitions holds a quarter of the register file and whole
/// warps in it, so this counts whole warps per quarter: at 48 registers
/// and 192 threads six blocks of six warps, not the seven 64K registers
/// over 48 x 192 would give (LayerNorm's statistics forward at N = 1536
/// measured its two-row band's end there: 1.23x at 1584 rows, 0.93x at
/// 1650).
inline int64_t blocksPerSMAtRegisters(int64_t threads, int64_t registers,
                                      const DeviceInfo &device) {
  constexpr int64_t kSubPartitions = 4, kWarpSize = 32;
  int64_t warpRegisters = allocatedRegisters(registers) * kWarpSize;
  int64_t warps =
      kSubPartitions * (device.registersPerSM / kSubPartitions / warpRegisters);
  warps = std::min(warps, device.threadsPerSM / kWarpSize);
  return std::max<int64_t>(1, warps / ceilDiv(threads, kWarpSize));
}

/// 32-bit registers one full operand's slice of a row takes in a thread of
/// `layout`: a vector load fills whole registers, so a 2-byte vector (N odd,
/// one bf16 a vector) takes a register per element, not half of one.
inline int64_t rowSliceRegisters(const RowLayout &layout,
                                 int64_t elementBytes) {
  return layout.chunksPerThread * ceilDiv(layout.vectorWidth * elementBytes, 4);
}

/// Rows staged for kernels that re-read them (rereadsStagedRows): the one
/// being read again, the next one arriving, and one more in flight.
constexpr int64_t kRereadStages = 3;
/// Most blocks of a wide re-reading cluster (chooseWideRereadLayout): the
/// portable cluster size, of which an H200 holds 15 (120 SMs busy).
constexpr int64_t kWideRereadMaxBlocks = 8;

/// Vector chunks of `vectorWidth` within `elements`, at least one.
inline int64_t chunksWithin(int64_t elements, int64_t vectorWidth) {
  return std::max<int64_t>(1, elements / vectorWidth);
}

/// Registers a thread of a block that re-reads its staged rows holds
/// (ClusterLayouts.cpp).
int64_t rereadRegisters(const KernelShape &shape, const RowLayout &layout);

/// Whether `layout` re-reads its staged rows (ClusterLayouts.cpp).
bool rereads(const KernelShape &shape, const RowLayout &layout);

/// The re-reading layout of a backward whose rows no cluster within the
/// limit keeps, if it stages at the requested depth (ClusterLayouts.cpp).
std::optional<RowLayout> stagedClusterFallback(const KernelShape &shape,
                                               const DeviceInfo &device,
                                               int64_t sharedStages);

/// Shared memory a block with `stages` staged rows needs (Staging.cpp).
int64_t stagedBlockBytes(const KernelShape &shape, const RowLayout &layout,
                         int64_t stages);

} // namespace mlir::norm::detail

#endif // LIB_TUNING_TUNINGHELPERS_H
