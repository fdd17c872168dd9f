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
    // Wide rows (N >= 16K in all, partials from one wave of clusters: 7 to 90
    // rows): 16-byte loads, 256 threads, and the most lanes (up to 256) that
    // still give every SM a block, so each block has few groups. Evidence:
    // docs/tuning.md, chooseCombineLayout.
    layout.vectorWidth = 4;
    while (layout.lanes * 2 <= layout.threads &&
           ceilDiv(vectors, layout.lanes * 2) >= device.numSMs)
      layout.lanes *= 2;
  } else if (n > 0) {
    // Narrow rows (hundreds of partial rows): a warp of scalar lanes across 32
    // columns, and the fewer the blocks, the more row groups each gets (fewer
    // rounds of L2 latency), up to the device's block limit. Rows too narrow
    // for 32 lanes to give half the SMs a block (N < 2112 across the combined
    // outputs on 132 SMs) halve the lanes, down to 8 (32-byte runs of a partial
    // row, one L2 sector), for the largest grid that still stays within half
    // the SMs: more blocks load at once and each group walks fewer rows.
    // Evidence: docs/tuning.md, chooseCombineLayout.
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
