//===- CombineLayouts.h - layouts of norm.combine kernels -------*- C++ -*-===//
//
// The layout of norm.combine kernels, which sum the f32 partial rows of a
// split column reduction.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_COMBINE_LAYOUTS_H
#define NORMDIALECT_TUNING_COMBINE_LAYOUTS_H

#include "NormDialect/Tuning/DeviceInfo.h"

#include <cstdint>
#include <string>

namespace mlir::norm {

/// Layout of a norm.combine kernel (the finishing reduction of split column
/// partials, lib/Conversion/CombineKernelBuilder.cpp): each block owns
/// blockColumns() columns, `lanes` threads across them with a vector of
/// `vectorWidth` f32 each, and groups() row groups that each sum every
/// groups()-th partial row, each thread keeping `unroll` loads in flight;
/// the first group adds the groups' totals in order.
struct CombineLayout {
  /// Threads per block (a power of two).
  int64_t threads = 256;
  /// Threads across the block's columns (a power of two, at most threads).
  int64_t lanes = 32;
  /// f32 partials per load: 4 (16 bytes) where every combined N allows it.
  int64_t vectorWidth = 1;
  int64_t unroll = 8;

  /// Row groups of a block, each summing every groups()-th partial row.
  int64_t groups() const { return threads / lanes; }
  /// Columns one block covers.
  int64_t blockColumns() const { return lanes * vectorWidth; }
};

/// The combine layout for N columns in all (N <= 0: unknown, e.g. dynamic),
/// loaded `vectorWidth` (1 or 4) f32 at a time. The combine is a chain of
/// dependent rounds of L2 latency (P / (groups x unroll) rounds for P
/// partial rows), so the rule sizes blocks by the grid: wide rows get the
/// most lanes of 16-byte loads that still give every SM a block, narrow
/// rows scalar lanes (a warp of them, fewer where 32 would leave more than
/// half the SMs without a block, down to 8) and the more row groups the
/// fewer blocks there are.
/// Narrow rows come from kernels with hundreds of partial rows (their
/// min_partials), wide ones (N >= 16K) from one wave of clusters (7 to 90):
/// the former get many groups of few lanes, the latter few groups of many.
/// `lanes` and `threads` override the rule where positive (see
/// validateCombineLayout).
CombineLayout chooseCombineLayout(int64_t n, int64_t vectorWidth,
                                  const DeviceInfo &device, int64_t lanes = 0,
                                  int64_t threads = 0);

/// Returns an empty string when `lanes` and `threads` (0: the rule) are a
/// usable combine layout override on `device`, else why not.
std::string validateCombineLayout(int64_t lanes, int64_t threads,
                                  const DeviceInfo &device);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_COMBINE_LAYOUTS_H
