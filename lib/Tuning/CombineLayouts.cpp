//===- CombineLayouts.cpp - the finishing reductions' blocks --------------===//
//
// The blocks of the finishing reductions (norm.combine): threads across the
// columns and over the partial rows, and the check of the options that
// override them.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Tuning/CombineLayouts.h"

#include "TuningHelpers.h"

#include <algorithm>

using namespace mlir::norm;
using namespace mlir::norm::detail;

static bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

CombineLayout mlir::norm::chooseCombineLayout(int64_t n, int64_t vectorWidth,
                                              const DeviceInfo &device,
                                              int64_t lanes, int64_t threads) {
  CombineLayout layout;
  int64_t limit = powerOfTwoFloor(blockThreadLimit(device));
  layout.threads = std::min<int64_t>(256, limit);
  layout.lanes = std::min<int64_t>(32, layout.threads);
  int64_t vectors = vectorWidth == 4 && n > 0 ? n / 4 : 0;
  if (vectors >= 32 * device.numSMs) {
    // Wide rows (N >= 16K in all, partials from one wave of clusters: 7 to
    // 90 rows): 16-byte loads, 256 threads, and the most lanes (up to 256)
    // that still give every SM a block, so each block has few groups.
    // Measured on the H200 (bf16, the whole backward against 32 lanes of
    // scalars): LayerNorm 512x131072 +5%, 300x131072 +11%,
    // 1024x65536 +2%, RMSNorm 512x131072 +3%, 300x131072 +5%, within 1% at
    // N = 16K-32K.
    layout.vectorWidth = 4;
    while (layout.lanes * 2 <= layout.threads &&
           ceilDiv(vectors, layout.lanes * 2) >= device.numSMs)
      layout.lanes *= 2;
  } else if (n > 0) {
    // Narrow rows (hundreds of partial rows): a warp of scalar lanes across
    // 32 columns, and the fewer the blocks, the more row groups each gets
    // (fewer rounds of L2 latency), up to the device's block limit.
    // Measured on the H200 (ncu): 256-thread combines of the
    // LayerNorm backward at 32768 x 1024 (512 partials, 32 blocks) took
    // 7 us each beside 68 us for the fused kernel. 16-byte loads with fewer
    // lanes and more groups (2-16 lanes, 256-1024 threads) measured 0-4%
    // slower at N = 1024-8192 (same log).
    //
    // Rows too narrow for 32 lanes to give half the SMs a block (N < 2112
    // across the combined outputs on 132 SMs) halve the lanes, down to 8
    // (32-byte runs of a partial row, one L2 sector), for the largest grid
    // that still stays within half the SMs: more blocks load at once and
    // each group walks fewer rows. Measured on the H200 (bf16, whole
    // backwards): N = 256 with
    // its 4096 partial rows at 65536 x 256 spent 9 us in 8 combine blocks
    // beside 29 us of split kernel; 8 lanes (32 blocks, 4.4 us) made RMSNorm
    // +12-25% at 4096-65536 rows and +4% at 262144, LayerNorm (64 blocks)
    // +10-21%; N = 384 / 512 +5-13% at 4096 rows and +2-6% at 16384; RMSNorm
    // N = 768 / 1024 (48 / 64 blocks at 16 lanes) +1-4%. Grids past half the
    // SMs lost: LayerNorm N = 512 at 128 blocks 0.97-0.98x of 64, N = 768 /
    // 1024 at 192 / 256 blocks 0.95-0.98x of 96 / 128.
    while (layout.lanes > 8 &&
           ceilDiv(n, layout.lanes / 2) <= device.numSMs / 2)
      layout.lanes /= 2;
    int64_t blocks = ceilDiv(n, layout.lanes);
    if (blocks <= 2 * device.numSMs)
      layout.threads = limit;
    else if (blocks <= 4 * device.numSMs)
      layout.threads = std::min<int64_t>(512, limit);
  }
  // Overrides: an override of one of the two keeps the rule's other within
  // it (lanes never exceed threads).
  if (lanes > 0)
    layout.lanes = lanes;
  if (threads > 0) {
    layout.threads = threads;
    if (lanes <= 0)
      layout.lanes = std::min(layout.lanes, threads);
  }
  layout.threads = std::max(layout.threads, layout.lanes);
  return layout;
}

std::string mlir::norm::validateCombineLayout(int64_t lanes, int64_t threads,
                                              const DeviceInfo &device) {
  int64_t limit = blockThreadLimit(device);
  if (lanes < 0 || (lanes > 0 && (!isPowerOfTwo(lanes) || lanes > limit)))
    return "combine-lanes must be 0 (the rule) or a power of two up to " +
           std::to_string(limit) + ", got " + std::to_string(lanes);
  if (threads < 0 ||
      (threads > 0 && (!isPowerOfTwo(threads) || threads > limit ||
                       threads < 32)))
    return "combine-threads must be 0 (the rule) or a power of two from 32 "
           "to " +
           std::to_string(limit) + ", got " + std::to_string(threads);
  if (lanes > 0 && threads > 0 && lanes > threads)
    return "combine-lanes (" + std::to_string(lanes) +
           ") must not exceed combine-threads (" + std::to_string(threads) +
           ")";
  return {};
}
