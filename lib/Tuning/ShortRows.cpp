//===- ShortRows.cpp - the short-rows versions: row limits, column blocks -===//
//
// At a few rows, the mixed-order kernel's saving (x and dy read once) is
// worth less than the latency of its partial rows' round trip through a
// second, dependent kernel. Below the limit chosen here the norm-short-rows
// pass runs the row reductions (and dx) and the column reductions (dW, dB)
// as two independent kernels that overlap, the column kernel summing whole
// columns over all rows without partials.
//
//===----------------------------------------------------------------------===//

#include "TuningHelpers.h"

#include <algorithm>

using namespace mlir::norm;
using namespace mlir::norm::detail;

/// Widest rows the two kernels are used for: beyond, rows go over clusters
/// or split rows, whose kernels were not measured this way.
constexpr int64_t kShortRowsMaxN = 8192;

int64_t mlir::norm::chooseShortRowsLimit(const KernelShape &shape,
                                         const DeviceInfo &device) {
  bool mixed = shape.columnOutputs > 0 &&
               (shape.fullOutputs > 0 || shape.rowReductions > 0);
  if (!mixed || shape.n <= 0 || shape.n > kShortRowsMaxN)
    return 0;
  // The column kernel walks its rows in rounds of groups x unroll, each a
  // round of memory latency, while the fused kernel's time grows with the
  // bytes: the two cross after about two rounds with one column output and
  // three with two. Measured on the H200 (bf16, kernel time, both versions
  // forced, bench/results/ab-2026-12-01-short-rows.log): RMSNorm 1.26x at
  // 256 x 4096 (2 rounds) and 0.91x at 512, 1.03x at 512 x 1024 and 0.78x
  // at 1024, 1.38x at 128 x 8192 and 0.79x at 256; LayerNorm 1.50x at
  // 256 x 4096 and 1.13x at 512 (4 rounds), 1.22x at 512 x 1024 and 0.90x
  // at 1024, 1.76x at 128 x 8192 and 1.02x at 256.
  CombineLayout columns = chooseColumnKernelLayout(shape, device);
  int64_t rounds = 1 + std::min<int64_t>(shape.columnOutputs, 2);
  return columns.groups() * columns.unroll * rounds;
}

int64_t mlir::norm::chooseSingleBlockRows(const KernelShape &shape,
                                          const DeviceInfo &device) {
  if (chooseShortRowsLimit(shape, device) <= 0)
    return 0;
  // One row. On the H200 (ncu, bf16, N = 4096, M = 1,
  // bench/results/ncu-2026-12-01f-m1-backward.txt) the row kernel took 3.4 us
  // and the whole-column kernel beside it 3.0-3.1 us, Inductor's single
  // kernel 3.3 us (RMSNorm) and 4.1 us (LayerNorm); in the timed run the
  // second launch's start made the pair 1.25-1.5x Inductor's. From two rows
  // on, one block walks the rows one after another while the pair spreads
  // them.
  return 2;
}

/// M x N elements below which the streamed RMSNorm forward wins, and the
/// rows it was measured on. On the H200 (bf16, kernel time, inference
/// forwards, bench/results/ab-2026-12-01-streamed-short-forwards.log):
/// 1.07-1.31x at M = 16-1024 for N = 4096 and 0.89x at 2048; 1.06-1.24x at
/// M = 64-2048 for N = 1024, 1.04x at 4096, 0.99x at 32768; 1.14x at
/// 512 x 1000, 0.99x at 4096.
constexpr int64_t kStreamedForwardElements = int64_t(6) << 20;
constexpr int64_t kStreamedForwardMinN = 1000;
constexpr int64_t kStreamedForwardMaxN = 4096;

/// The rows where the streamed LayerNorm forward wins at N = 1000-1024. On
/// the H200 (bf16, kernel time, inference forwards, streamed against the
/// staged kernel, bench/results/ab-2026-12-02-ln-streamed-range.log):
/// 1.03x at 256-512 x 1000-1024, 1.16x at 2048 x 1024; level or lost from
/// 4096 rows (1.03x at N = 1024, 0.97x at 1000; 0.92x at 6143, 0.83x at
/// 8192 in ab-2026-12-02-short-forward-layouts.log); below 256 within the
/// spread, and lost at 16-64 rows (ab-2026-12-01-streamed-short-forwards
/// .log). At N = 4096 it won only at 512 rows (1.07x; 0.93x at 16, 1.00x
/// at 128, 0.79x at 2048) and is left staged.
constexpr RowRange kStreamedLayerNormRows{256, 4096};
constexpr int64_t kStreamedLayerNormMaxN = 1024;

RowRange mlir::norm::chooseStreamedRows(const KernelShape &shape,
                                        const DeviceInfo &device) {
  (void)device;
  bool forward = shape.fullOperands == 1 && shape.columnOutputs == 0 &&
                 shape.fullOutputs > 0;
  if (!forward || shape.n < kStreamedForwardMinN)
    return {};
  if (shape.rowReductions == 1 && shape.n <= kStreamedForwardMaxN)
    return {0, kStreamedForwardElements / shape.n};
  if (shape.rowReductions == 2 && shape.n <= kStreamedLayerNormMaxN)
    return kStreamedLayerNormRows;
  return {};
}

std::string mlir::norm::validateShortRowsLimit(int64_t limit) {
  if (limit < -1)
    return "short-rows must be -1 (the tuning rule), 0 (off) or a positive "
           "row count, got " +
           std::to_string(limit);
  return {};
}

CombineLayout mlir::norm::chooseColumnKernelLayout(const KernelShape &shape,
                                                   const DeviceInfo &device) {
  CombineLayout layout;
  // 16-byte loads of the narrowest full input where N is whole vectors of
  // them (narrower vectors of a power of two otherwise).
  int64_t bytes = shape.narrowestInputBytes > 0 ? shape.narrowestInputBytes
                                                : shape.elementBytes;
  int64_t width = std::max<int64_t>(1, 16 / std::max<int64_t>(1, bytes));
  while (width > 1 && (shape.n <= 0 || shape.n % width != 0))
    width /= 2;
  layout.vectorWidth = width;
  // The kernel is a chain of rounds of memory latency (ceil(M / (groups x
  // unroll)) of them): 256 threads, 4 rows in flight per thread, and as few
  // lanes across the columns (at least 4: 64-byte runs of a row) as give a
  // quarter of the SMs a block, so that each block has many row groups.
  layout.threads =
      std::min<int64_t>(256, powerOfTwoFloor(blockThreadLimit(device)));
  layout.unroll = 4;
  layout.lanes = 32;
  int64_t wanted = std::max<int64_t>(1, device.numSMs / 4);
  while (layout.lanes > 4 && shape.n > 0 &&
         ceilDiv(shape.n, layout.lanes * width) < wanted)
    layout.lanes /= 2;
  layout.lanes = std::min(layout.lanes, layout.threads);
  return layout;
}
