//===- Tuning.h - launch and split decisions for norm kernels ---*- C++ -*-===//
//
// Every tuning decision of the compiler lives here, as functions of shapes,
// element sizes and device properties (never of IR), so unit tests and the
// autotuner can call them directly.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_TUNING_H
#define NORMDIALECT_TUNING_TUNING_H

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::norm {

/// What the tuning rules need to know about the target GPU.
struct DeviceInfo {
  /// Streaming multiprocessors (H100 SXM and H200: 132).
  int64_t numSMs = 132;
  /// Largest block the target launches.
  int64_t maxThreadsPerBlock = 1024;
  /// 32-bit registers a thread may use before spilling matters.
  int64_t registersPerThread = 255;
};

/// Rows per partial sum for a split column reduction over an M x N space.
/// `m` is std::nullopt when M is only known at run time. The rule aims at a
/// persistent grid of a few blocks per SM (each block reduces its rows in
/// registers and writes one partial row), bounded so that the workspace stays
/// small next to the inputs.
int64_t chooseSplitSize(std::optional<int64_t> m, int64_t n,
                        const DeviceInfo &device);

/// How one row of a norm kernel is spread over a thread block.
struct RowLayout {
  /// Threads per block (a multiple of 32).
  int64_t threads = 0;
  /// Elements per vector access (16 bytes when N allows).
  int64_t vectorWidth = 1;
  /// Vector chunks per thread covering the row: threads * vectorWidth *
  /// chunks >= N.
  int64_t chunksPerThread = 1;

  /// Elements of one operand a thread holds in registers.
  int64_t elementsPerThread() const { return vectorWidth * chunksPerThread; }
};

/// Chooses the row layout for a kernel over rows of `n` elements of
/// `elementBytes` bytes, holding `fullOperands` full-size operands (x, dy...)
/// in registers. Vector width is the widest power of two with at most 16
/// bytes that divides N (so every row starts aligned); threads grow with N
/// until each thread holds at most a register budget of elements.
RowLayout chooseRowLayout(int64_t n, int64_t elementBytes,
                          int64_t fullOperands, const DeviceInfo &device);

/// Returns an empty string when `split` is a usable split size, else why not.
std::string validateSplitSize(int64_t split);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_TUNING_H
