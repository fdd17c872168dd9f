//===- Tuning.cpp - launch and split decisions for norm kernels -----------===//

#include "NormDialect/Tuning/Tuning.h"

#include <algorithm>

using namespace mlir::norm;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t mlir::norm::chooseSplitSize(std::optional<int64_t> m, int64_t n,
                                    const DeviceInfo &device) {
  // Unknown M: a split in the middle of the range that works well for the
  // large-M shapes split reductions are for (torch.compile clamps its RSPLIT
  // to [16, 128] for the same reason).
  if (!m)
    return 32;
  // Aim at about two blocks per SM, each walking ceil(M / blocks) rows. Fewer,
  // longer splits amortize the partial-row write; more blocks hide latency.
  int64_t blocks = 2 * device.numSMs;
  int64_t split = std::max<int64_t>(1, ceilDiv(*m, blocks));
  // Keep the f32 workspace (ceil(M/split) x N) at most 1/8 of the bf16 input
  // rows it summarizes: split >= 2 * 4 bytes / 2 bytes * ... -> at least 16
  // rows per partial once M is large enough.
  if (*m >= 16 * blocks)
    split = std::max<int64_t>(split, 16);
  (void)n;
  return std::min<int64_t>(split, *m);
}

RowLayout mlir::norm::chooseRowLayout(int64_t n, int64_t elementBytes,
                                      int64_t fullOperands,
                                      const DeviceInfo &device) {
  RowLayout layout;
  int64_t widest = std::max<int64_t>(1, 16 / elementBytes);
  layout.vectorWidth = 1;
  for (int64_t w = widest; w >= 1; w /= 2)
    if (n % w == 0) {
      layout.vectorWidth = w;
      break;
    }
  int64_t vectors = ceilDiv(n, layout.vectorWidth);
  // Register budget: about 32 f32 values per thread across all full operands
  // keeps the kernel far from spilling and leaves room for column
  // accumulators, while 128+ threads per block keep enough loads in flight.
  int64_t maxElementsPerOperand =
      std::max<int64_t>(8, 32 / std::max<int64_t>(1, fullOperands));
  int64_t maxChunks =
      std::max<int64_t>(1, maxElementsPerOperand / layout.vectorWidth);
  int64_t warpsOfWork = ceilDiv(vectors, 32) * 32;
  int64_t threads = std::min<int64_t>(128, warpsOfWork);
  while (threads < device.maxThreadsPerBlock &&
         ceilDiv(vectors, threads) > maxChunks)
    threads *= 2;
  threads = std::min(threads, std::max<int64_t>(32, warpsOfWork));
  layout.threads = threads;
  layout.chunksPerThread = ceilDiv(vectors, threads);
  return layout;
}

std::string mlir::norm::validateSplitSize(int64_t split) {
  if (split <= 0)
    return "split size must be a positive number of rows, got " +
           std::to_string(split);
  return {};
}
