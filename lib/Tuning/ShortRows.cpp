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

#include "NormDialect/Tuning/ShortRows.h"

#include "TuningHelpers.h"

#include <algorithm>

using namespace mlir::norm;
using namespace mlir::norm::detail;

/// Widest rows the two kernels are used for. Wider rows were not measured.
/// Evidence: docs/tuning.md, kShortRowsMaxN.
constexpr int64_t kShortRowsMaxN = 131072;

/// The fewest rows of a round that the short-rows limit counts where the
/// mixed-order kernel's rows do not fit a block's registers and go over
/// clusters, up to kClusterRowsFloorMaxN (bf16 N = 12288-32768,
/// rowsFitInRegisters as planKernel asks). The cluster kernel and its combine
/// cost more at a few rows than the rounds of the column kernel say (16-32
/// rows a round at N = 12288-32768, a limit of 64 rows for RMSNorm and 96 for
/// LayerNorm). At 64 rows a round: RMSNorm's pair below 128 rows,
/// LayerNorm's below 192. Wider rows (N = 65536 and 131072) take the rounds
/// alone: 64 and 96 rows. Evidence: docs/tuning.md, kClusterRowsMinRoundRows.
constexpr int64_t kClusterRowsMinRoundRows = 64;
constexpr int64_t kClusterRowsFloorMaxN = 32768;

/// How many times the rounds of the column kernel (1 + column outputs, up to
/// three) the pair still wins by where the mixed-order kernel's rows fit a
/// block and the column kernel has a block on a quarter of the SMs or more
/// (chooseColumnKernelLayout): 4 rounds for RMSNorm's backward, 6 for
/// LayerNorm's. With fewer column blocks (N = 1024 bf16: 32) and over
/// clusters, once. Evidence: docs/tuning.md, chooseShortRowsLimit.
constexpr int64_t kHeldRowsRoundsFactor = 2;

/// The short-rows limit where the pair's row kernel shuts the column blocks out
/// of its SMs (shutsOutColumnBlocks) and spreads its rows, up to four a block,
/// over the SMs they leave. Evidence: docs/tuning.md, kShutOutShortRowsLimit.
constexpr int64_t kShutOutShortRowsLimit = 288;

/// The blocks the whole-column kernel's layout aims for: one on a quarter of
/// the SMs, so that each block has many row groups (chooseColumnKernelLayout).
static int64_t columnKernelWantedBlocks(const DeviceInfo &device) {
  return std::max<int64_t>(1, device.numSMs / 4);
}

int64_t mlir::norm::chooseShortRowsLimit(const KernelShape &shape,
                                         const DeviceInfo &device) {
  bool mixed = shape.columnOutputs > 0 &&
               (shape.fullOutputs > 0 || shape.rowReductions > 0);
  if (!mixed || shape.n <= 0 || shape.n > kShortRowsMaxN)
    return 0;
  // The column kernel walks its rows in rounds of groups x unroll, each a round
  // of memory latency, while the fused kernel's time grows with the bytes: the
  // two cross after a number of rounds that grows with the column outputs.
  // Evidence: docs/tuning.md, chooseShortRowsLimit.
  CombineLayout columns = chooseColumnKernelLayout(shape, device);
  int64_t rounds = 1 + std::min<int64_t>(shape.columnOutputs, 2);
  int64_t roundRows = columns.groups() * columns.unroll;
  if (rowsFitInRegisters(shape.n, shape.elementBytes, shape.fullOperands,
                         shape.columnOutputs, device)) {
    if (columnKernelBlocks(shape, device) >= columnKernelWantedBlocks(device))
      rounds *= kHeldRowsRoundsFactor;
  } else if (shape.n <= kClusterRowsFloorMaxN) {
    roundRows = std::max(roundRows, kClusterRowsMinRoundRows);
  }
  int64_t limit = roundRows * rounds;
  // The pair's halves: the row kernel without the column outputs, and the
  // column kernel with nothing else. The row kernel's plan is the rule's:
  // the limit, like the rest of this function, reads no tuning table.
  KernelShape rows = shape;
  rows.columnOutputs = 0;
  KernelShape wholeColumns = shape;
  wholeColumns.fullOutputs = 0;
  wholeColumns.rowReductions = 0;
  wholeColumns.rowOutputs = 0;
  wholeColumns.columnInputs = 0;
  KernelPlan rowPlan = planKernel(rows, device, /*table=*/nullptr);
  if (rowPlan.kind != KernelPlan::Kind::OffChip &&
      shutsOutColumnBlocks(rows, rowPlan, wholeColumns, device))
    limit = std::max(limit, kShutOutShortRowsLimit);
  return limit;
}

int64_t mlir::norm::chooseSingleBlockRows(const KernelShape &shape,
                                          const DeviceInfo &device) {
  if (chooseShortRowsLimit(shape, device) <= 0)
    return 0;
  // One row. From two rows on, one block walks the rows one after another while
  // the pair spreads them. Evidence: docs/tuning.md, chooseSingleBlockRows.
  return 2;
}

/// The row lengths whose forwards stream (up to 4096 bf16 elements one vector a
/// thread covers the row, which then stays in registers:
/// chooseStreamingLayout). Evidence: docs/tuning.md, kStreamedForwardMinN.
constexpr int64_t kStreamedForwardMinN = 256;
constexpr int64_t kStreamedForwardMaxN = 4096;

/// M x N elements below which a streamed RMSNorm forward whose block does
/// not hold its row (f32 at N > 2048: two vectors a thread, re-read from
/// L2) still wins; measured with that kernel for bf16 before rows were held
/// (1.07-1.31x at
/// M = 16-1024 for N = 4096, 0.89x at 2048 rows).
constexpr int64_t kRereadForwardElements = int64_t(6) << 20;

/// Longest LayerNorm rows streamed at every M, and the M x N elements below
/// which longer ones stream.
constexpr int64_t kStreamedLayerNormAllRowsMaxN = 1024;
constexpr int64_t kStreamedLayerNormElements = int64_t(5) << 20;

/// The streamed layout of `shape`'s rows (chooseStreamingLayout with the
/// kernel's full operands), `vectorWidth` > 0 replacing the widest vector.
static RowLayout streamedLayoutOf(const KernelShape &shape,
                                  const DeviceInfo &device,
                                  int64_t vectorWidth = 0) {
  return chooseStreamingLayout(shape.n, shape.elementBytes, device, vectorWidth,
                               shape.fullOperands);
}

RowRange mlir::norm::chooseStreamedRows(const KernelShape &shape,
                                        const DeviceInfo &device) {
  // A forward with a prologue (the residual add: its full inputs make x).
  bool prologue = isForward(shape) && shape.fullOperands > 1;
  bool forward = (shape.fullOperands == 1 && shape.columnOutputs == 0 &&
                  shape.fullOutputs > 0) ||
                 prologue;
  if (!forward || shape.n < kStreamedForwardMinN ||
      shape.n > kStreamedForwardMaxN)
    return {};
  // What follows was measured with rows of one vector a thread held in
  // registers (bf16); blocks of longer rows (f32 at N > 2048), measured
  // re-reading their row, keep the earlier limit.
  RowLayout streamedLayout = streamedLayoutOf(shape, device);
  bool holds = streamedLayout.holdsRow && streamedLayout.chunksPerThread == 1;
  // A forward with a prologue streams at every M where its block holds the
  // row: its staged kernel would stage every input, and re-reading them
  // was not measured. Evidence: docs/tuning.md, chooseStreamedRows.
  if (prologue)
    return holds ? RowRange::all() : RowRange{};
  if (!holds)
    return shape.rowReductions == 1
               ? RowRange{0, kRereadForwardElements / shape.n}
               : RowRange{};
  // Measured on the H200 since the streamed kernels reduce through
  // RowReductions (bf16, kernel time, inference forwards, every forward
  // streamed against these rules' predecessor, 3 rounds). Evidence:
  // docs/tuning.md, chooseStreamedRows.
  if (shape.rowReductions == 1)
    return RowRange::all();
  // LayerNorm: 1.23-1.29x at 16-128 x 1024, level (0.98-1.02x) from 256 to
  // 131072 rows at N = 1000-1024; at N = 2048-4096 1.09-1.30x up to about
  // 4M elements (2048 x 2048, 1024 x 4096) and 0.87-0.97x from 6M (1536 x
  // 4096, 8192 x 2048), 0.94x at 16384 x 4096: its second pass over the
  // row, from L2, loses to a staged row's overlap there.
  if (shape.rowReductions == 2) {
    if (shape.n <= kStreamedLayerNormAllRowsMaxN)
      return RowRange::all();
    return {0, kStreamedLayerNormElements / shape.n};
  }
  return {};
}

/// Registers of LayerNorm's forwards holding two rows a block of one vector
/// a thread: the inference forward's by ptxas (40-42 at N = 2048-4096
/// bf16); the statistics forward asks for them (left to itself ptxas takes
/// 44-48 at N = 1536-3072 and 58 at 4096; at 40 none spill, at 32 they
/// spill 20-40 bytes).
constexpr int64_t kLayerNormTwoRowRegisters = 40;
/// Registers of LayerNorm's inference forward holding four rows a block of
/// one vector a thread (ptxas: 64 at N = 2048 and 4096, 68 at 3072; no
/// spills).
constexpr int64_t kLayerNormFourRowRegisters = 64;

/// The held rows of a streamed forward whose blocks are wider than the
/// four-row bands' 128 threads (`layout`, within the streamed rows
/// `streamed`).
static std::vector<HeldRows>
wideHeldRows(const KernelShape &shape, const RowLayout &layout,
             RowRange streamed, const DeviceInfo &device, int64_t warpRows) {
  // Two rows a block where each thread holds one vector of the row (two-byte N
  // = 1536-4096: 192-512 threads), from where a row a block would take a second
  // wave; the inference forwards. Four-byte rows were not measured; the
  // warp-rows option leaves these blocks a row each. Where LayerNorm's
  // inference forward's two-row blocks (three an SM of 512 threads at N = 4096)
  // take two waves and four rows a block (64 registers: two blocks an SM, 8
  // rows against 6) one, four rows a block up to that wave; two rows again past
  // it. RMSNorm's first rows past the wave: where a row a block's blocks are
  // eight or more an SM (N = 1536-2048, 192-256 threads), the few blocks of
  // their second wave cost less than the warps two-row blocks leave idle.
  // LayerNorm's statistics forward also takes four rows a block from where its
  // two-row blocks would take a second wave up to one wave of four-row blocks
  // (64 registers, no spills at N = 1536-4096), and a row a block past it.
  // Evidence: docs/tuning.md, wideHeldRows.
  constexpr int64_t kTwoRows = 2, kFourRows = 4;
  constexpr int64_t kShortSecondWaveBlocks = 8;
  if (warpRows >= 0 || shape.elementBytes != 2 || shape.rowReductions > 2 ||
      layout.chunksPerThread != 1 || layout.rowGroups != 1 ||
      layout.sliceWidth() <= 0 || shape.n % layout.sliceWidth() != 0)
    return {};
  int64_t oneRowBlocks = device.threadsPerSM / layout.threads;
  int64_t bandStart = oneRowBlocks * device.numSMs + 1;
  if (shape.rowReductions == 1 && oneRowBlocks >= kShortSecondWaveBlocks)
    bandStart += device.numSMs / 4;
  RowRange rows{std::max(streamed.begin, bandStart), streamed.end};
  if (rows.empty())
    return {};
  bool writesStatistics = shape.rowOutputs != 0;
  if (shape.rowReductions == 1)
    return {HeldRows{kTwoRows, rows, /*warpRows=*/false,
                     writesStatistics ? oneRowBlocks : 0}};
  int64_t twoRowBlocks =
      blocksPerSMAtRegisters(layout.threads, kLayerNormTwoRowRegisters, device);
  int64_t fourRowBlocks = blocksPerSMAtRegisters(
      layout.threads, kLayerNormFourRowRegisters, device);
  int64_t twoRowWave = kTwoRows * twoRowBlocks * device.numSMs;
  int64_t fourRowWave = kFourRows * fourRowBlocks * device.numSMs;
  RowRange four{std::max(rows.begin, twoRowWave + 1),
                std::min(rows.end, fourRowWave + 1)};
  std::vector<HeldRows> bands;
  RowRange below{rows.begin, four.empty() ? rows.end : four.begin};
  if (writesStatistics)
    below.end = std::min(below.end, twoRowWave + 1);
  if (!below.empty())
    bands.push_back(HeldRows{kTwoRows, below, /*warpRows=*/false,
                             writesStatistics ? twoRowBlocks : 0});
  if (four.empty())
    return bands;
  bands.push_back(HeldRows{kFourRows, four, /*warpRows=*/false, fourRowBlocks});
  if (!writesStatistics && four.end < rows.end)
    bands.push_back(HeldRows{kTwoRows, RowRange{four.end, rows.end}});
  return bands;
}

std::vector<HeldRows> mlir::norm::chooseHeldRows(const KernelShape &shape,
                                                 const DeviceInfo &device,
                                                 int64_t warpRows) {
  // Four rows a block of 128 threads put 64 bytes of loads a thread in flight
  // (Inductor's warp rows: 32 threads, 4 vectors each) where one row's 16 bytes
  // leave an SM's short-lived blocks short of loads in flight, and pay one
  // barrier per reduction for all four. Evidence: docs/tuning.md,
  // chooseHeldRows.
  constexpr int64_t kRowsPerBlock = 4;
  constexpr int64_t kMaxThreads = 128;
  constexpr int64_t kFromRowsPerSM = 24, kRaggedFromRowsPerSM = 16;
  RowRange streamed = chooseStreamedRows(shape, device);
  RowLayout layout = streamedLayoutOf(shape, device);
  if (streamed.empty() || !layout.holdsRow)
    return {};
  // A forward of two full inputs (the gated norm's x and z) whose block is
  // one warp (N = 256 bf16) holds four rows, the warp's own, from 64 rows per
  // SM, where a row a block (at most 32 blocks an SM) takes two waves: 64
  // bytes of loads a thread in flight, as the one-input bands below. From 24
  // rows per SM, as those, it lost (0.80-0.84x at 3200-4096 x 256). Other
  // blocks of such forwards, and the residual add's (whose h is a second
  // full output), were not measured and hold a row a block. Evidence:
  // docs/tuning.md, chooseHeldRows.
  constexpr int64_t kTwoInputFromRowsPerSM = 64;
  if (shape.fullOperands > 1) {
    if (layout.threads != 32 || shape.n % layout.sliceWidth() != 0 ||
        shape.earlyOutputs > 0)
      return {};
    RowRange rows{
        std::max(streamed.begin, kTwoInputFromRowsPerSM * device.numSMs),
        streamed.end};
    if (rows.empty() || warpRows == 0)
      return {};
    return {HeldRows{kRowsPerBlock, rows, /*warpRows=*/true}};
  }
  if (layout.threads > kMaxThreads)
    return wideHeldRows(shape, layout, streamed, device, warpRows);
  bool ragged = shape.n % layout.sliceWidth() != 0;
  // Ragged rows in blocks of two warps (N = 264-504 bf16; at N = 384 the
  // half-width warp rows below replace this) hold rows from fewer rows per SM:
  // LayerNorm's from 8, RMSNorm's from 12. Evidence: docs/tuning.md,
  // chooseHeldRows.
  constexpr int64_t kRaggedTwoWarpLayerNormFromRowsPerSM = 8,
                    kRaggedTwoWarpRMSNormFromRowsPerSM = 12;
  int64_t raggedFrom = layout.threads != 64 ? kRaggedFromRowsPerSM
                       : shape.rowReductions == 2
                           ? kRaggedTwoWarpLayerNormFromRowsPerSM
                           : kRaggedTwoWarpRMSNormFromRowsPerSM;
  // Ragged rows whose vectors of half the width fill whole warps (N = 384 bf16:
  // 48 vectors of 16 bytes leave 16 of a second warp's lanes idle, 96 of 8
  // bytes fill three warps) give each warp a row of its own in three vectors a
  // lane, Inductor's layout there, below 24 rows per SM, and hold rows shared
  // by the block only from there. Evidence: docs/tuning.md, chooseHeldRows.
  std::optional<RowLayout> halfWarps;
  if (shape.elementBytes == 2 && ragged && layout.vectorWidth > 1) {
    int64_t width = layout.vectorWidth / 2;
    RowLayout half = streamedLayoutOf(shape, device, width);
    // Only as the rule's warp rows (the warp-rows option decides for
    // blocks of the widest vectors).
    if (warpRows < 0 && half.holdsRow && half.threads <= kMaxThreads &&
        shape.n % half.sliceWidth() == 0)
      halfWarps = warpRowsLayout(half);
  }
  int64_t from = std::max(streamed.begin,
                          (ragged && !halfWarps ? raggedFrom : kFromRowsPerSM) *
                              device.numSMs);
  // Past one wave of four-row blocks (32 rows per SM: 8 blocks of four rows an
  // SM, as the registers allow) three rows a block where the block covers the
  // row exactly, up to 128 rows per SM. Evidence: docs/tuning.md,
  // chooseHeldRows.
  constexpr int64_t kOneWaveRowsPerSM = 32, kThreeRowsToRowsPerSM = 128;
  // A four-row block of the inference forward needs 63-64 registers a thread
  // (128 threads): eight of them an SM, one wave up to 32 rows per SM; past it
  // the three-row blocks' 46-56 registers allow nine or ten (27 or 30 rows per
  // SM), so their grid spills into a second wave just the same. Asking ptxas
  // for nine four-row blocks an SM instead (.minnctapersm 9: 56 registers, 4
  // bytes of spill for RMSNorm, 24 for LayerNorm) keeps one wave up to 36 rows
  // per SM. Evidence: docs/tuning.md, chooseHeldRows.
  constexpr int64_t kCappedWaveRowsPerSM = 36;
  constexpr int64_t kLayerNormStatsHeldRegisters = 72;
  // Within that wave, RMSNorm's warps own a row each (32 threads x 4 vectors,
  // no barrier). Evidence: docs/tuning.md, chooseHeldRows.
  constexpr int64_t kWarpRowsFromQuarterRowsPerSM = 3;
  std::optional<RowLayout> warps = warpRowsLayout(layout);
  // Whether a band of `rows` rows a block gives its warps rows of their
  // own: the rule's `ruleWarps`, or the option's choice, which replaces it
  // (warp rows wherever the block's rows divide among its warps;
  // convert-norm-to-gpu rejects the rest).
  auto warpRowsFor = [&](int64_t rows, bool ruleWarps) {
    if (warpRows < 0)
      return ruleWarps;
    // One row makes a block of one warp (warpRowsLayout). Blocks of two or
    // three rows and more warps would have a warp a row too, but were never
    // run on the GPU: the option leaves them to the block's rows.
    return warpRows == 1 && warps &&
           (rows == 1 || rows % warps->rowGroups == 0);
  };
  // Adds rows [begin, end) (within the streamed rows) at `rows` a block
  // with the layout warpRowsFor decides; extends the last band instead
  // where that builds the same kernel (one version). A band whose layout
  // the option changes leaves the registers to ptxas: the cap was measured
  // with the rule's layout (LayerNorm's warp rows need 80 registers and
  // spilled 184 bytes at nine blocks an SM).
  std::vector<HeldRows> bands;
  auto add = [&](int64_t rows, int64_t begin, int64_t end, bool ruleWarps,
                 int64_t minBlocksPerSM = 0, int64_t vectorWidth = 0) {
    begin = std::max(begin, streamed.begin);
    end = std::min(end, streamed.end);
    if (begin >= end)
      return;
    bool byWarps = warpRowsFor(rows, ruleWarps);
    if (byWarps != ruleWarps)
      minBlocksPerSM = 0;
    if (!bands.empty() && bands.back().rows.end == begin &&
        bands.back().rowsPerBlock == rows && bands.back().warpRows == byWarps &&
        bands.back().minBlocksPerSM == minBlocksPerSM &&
        bands.back().vectorWidth == vectorWidth)
      bands.back().rows.end = end;
    else
      bands.push_back(
          {rows, RowRange{begin, end}, byWarps, minBlocksPerSM, vectorWidth});
  };
  if (ragged) {
    if (halfWarps)
      add(halfWarps->rowGroups,
          kWarpRowsFromQuarterRowsPerSM * device.numSMs / 4, from, true, 0,
          halfWarps->vectorWidth);
    add(kRowsPerBlock, from, streamed.end, false);
  } else {
    // Bands end past their last row: one wave is up to and including 32
    // rows per SM (at 4224 x 1024, 1056 four-row blocks fill the 132 SMs
    // exactly where 1408 three-row blocks took a second wave: 1.13-1.15x).
    int64_t oneWaveEnd = kOneWaveRowsPerSM * device.numSMs + 1;
    int64_t cappedWaveEnd = shape.rowOutputs == 0
                                ? kCappedWaveRowsPerSM * device.numSMs + 1
                                : oneWaveEnd;
    int64_t threeTo = kThreeRowsToRowsPerSM * device.numSMs;
    bool layerNorm = shape.rowReductions == 2;
    // The rule's warp rows need the block's four rows to divide among its
    // warps (not the three of a 96-thread block, N = 768 bf16).
    bool warpRowsRule = shape.rowReductions == 1 && warps.has_value() &&
                        kRowsPerBlock % warps->rowGroups == 0;
    // LayerNorm's 96-thread blocks (N = 768 bf16) give each of their three
    // warps a row of its own below 24 rows per SM, where a row a block ran a
    // second wave from 21 rows per SM (blocks of 96 threads). Evidence:
    // docs/tuning.md, chooseHeldRows.
    bool threeWarpRows =
        layerNorm && warps.has_value() && warps->rowGroups == 3;
    if (threeWarpRows && warpRowsFor(warps->rowGroups, true))
      add(warps->rowGroups, kWarpRowsFromQuarterRowsPerSM * device.numSMs / 4,
          from, true);
    // Where four rows do not divide among the block's warps (96 threads, N =
    // 768 bf16), blocks of one warp and one row (32 threads holding the row in
    // three vectors a lane, Inductor's launch there; 32 blocks an SM) in two
    // bands. RMSNorm's first starts where its blocks of a row and 96 threads
    // (21 an SM) leave one wave, up to the four-row blocks. The second, past
    // one wave of those (ten blocks of 96 threads an SM at 64 registers, 40
    // rows per SM), spreads the last wave finer: RMSNorm's up to 80 rows per
    // SM, LayerNorm's from 44 up to 64. Evidence: docs/tuning.md,
    // chooseHeldRows.
    int64_t oneWarpFromRowsPerSM = layerNorm ? 44 : 40;
    int64_t oneWarpToRowsPerSM = layerNorm ? 64 : 80;
    // The warp-rows option's 0 leaves those rows to the bands around them.
    bool oneWarpBlocks = warps.has_value() &&
                         kRowsPerBlock % warps->rowGroups != 0 &&
                         warpRowsFor(1, true);
    if (oneWarpBlocks && !layerNorm)
      add(1, device.threadsPerSM / layout.threads * device.numSMs + 1, from,
          true);
    // Below `from` only warp rows hold several rows (shared by the block they
    // lost): without them (the option's 0) a row a block. LayerNorm's blocks of
    // two warps (N = 512 bf16) take RMSNorm's bands there too; their bands
    // within the wave keep rows shared by the block (LayerNorm's warp rows lost
    // there at N = 1024, and were not tried at N = 512). Evidence:
    // docs/tuning.md, chooseHeldRows.
    bool twoWarpLayerNorm =
        layerNorm && warps.has_value() && warps->rowGroups == 2;
    if ((warpRowsRule || twoWarpLayerNorm) &&
        warpRowsFor(kRowsPerBlock, true)) {
      int64_t begin = kWarpRowsFromQuarterRowsPerSM * device.numSMs / 4;
      // The option's warp rows (warpRows = 1) keep the whole band. Evidence:
      // docs/tuning.md, chooseHeldRows.
      constexpr int64_t kRowABlockFromRowsPerSM = 3, kRowABlockToRowsPerSM = 5;
      if (warpRows < 0) {
        add(kRowsPerBlock, begin, kRowABlockFromRowsPerSM * device.numSMs,
            true);
        begin = kRowABlockToRowsPerSM * device.numSMs + 1;
      }
      add(kRowsPerBlock, begin, from, true);
    }
    // LayerNorm's blocks of one warp (N = 256 bf16) hold four rows, the warp's
    // own, from 12 rows per SM up to the four-row band above, where a row a
    // block ran 1000-3000 x 256 at 0.68-0.99x of torch.compile (whose blocks
    // there are one warp of four rows). Evidence: docs/tuning.md,
    // chooseHeldRows.
    constexpr int64_t kLayerNormWarpRowsFromRowsPerSM = 12;
    if (layerNorm && warps.has_value() && warps->rowGroups == 1 &&
        warpRowsFor(kRowsPerBlock, true))
      add(kRowsPerBlock, kLayerNormWarpRowsFromRowsPerSM * device.numSMs, from,
          true);
    // A LayerNorm forward that writes its statistics holds 72 registers in its
    // four-row blocks (ptxas, N = 1024 bf16): seven blocks of 128 threads an SM
    // where one wave needs eight, so from 28 rows per SM its grid ran a second
    // wave. Evidence: docs/tuning.md, chooseHeldRows.
    int64_t wantedBlocksPerSM = kOneWaveRowsPerSM / kRowsPerBlock;
    int64_t heldBlocksPerSM =
        blocksPerSMAtRegisters(std::max<int64_t>(1, layout.threads),
                               kLayerNormStatsHeldRegisters, device);
    bool bounded = layerNorm && shape.rowOutputs > 0 &&
                   heldBlocksPerSM < wantedBlocksPerSM;
    // Unbounded, the second band is empty, which add skips.
    int64_t boundFrom =
        bounded ? heldBlocksPerSM * kRowsPerBlock * device.numSMs + 1
                : oneWaveEnd;
    // LayerNorm's one-warp blocks within the wave tell ptxas the eight blocks
    // an SM they launch: unbounded, it keeps to 64 registers (32 blocks an SM)
    // and issues the fourth row's load only after the first row's data arrived
    // (SASS of the forward at N = 256 bf16: 63 registers; bounded, 72 and all
    // four rows' loads first). Evidence: docs/tuning.md, chooseHeldRows.
    int64_t waveBlocksPerSM =
        layerNorm && layout.threads == 32 ? wantedBlocksPerSM : 0;
    add(kRowsPerBlock, from, boundFrom, warpRowsRule, waveBlocksPerSM);
    add(kRowsPerBlock, boundFrom, oneWaveEnd, warpRowsRule, wantedBlocksPerSM);
    add(kRowsPerBlock, oneWaveEnd, cappedWaveEnd, warpRowsRule,
        kCappedWaveRowsPerSM / kRowsPerBlock);
    // Blocks of fewer than 128 threads (N = 256-768 bf16) keep four rows past
    // the wave, except RMSNorm's inference forward in blocks of more than one
    // warp. Evidence: docs/tuning.md, chooseHeldRows.
    int64_t pastWaveRows =
        layout.threads < 128 &&
                (shape.rowOutputs > 0 || layerNorm || layout.threads == 32)
            ? kRowsPerBlock
            : 3;
    int64_t oneWarpFrom =
        oneWarpBlocks ? oneWarpFromRowsPerSM * device.numSMs + 1 : threeTo;
    int64_t oneWarpTo =
        oneWarpBlocks ? oneWarpToRowsPerSM * device.numSMs + 1 : threeTo;
    add(pastWaveRows, cappedWaveEnd, oneWarpFrom, false);
    add(1, oneWarpFrom, oneWarpTo, true);
    add(pastWaveRows, oneWarpTo, threeTo, false);
    add(kRowsPerBlock, threeTo, streamed.end, false);
  }
  // Blocks of one warp (N = 256 two-byte: 32 threads, four rows) spend what
  // Inductor's warp of four rows (static M, no bounds) does not on the rows'
  // bounds: a 64-bit comparison and a predicated, zeroed load per later row,
  // and LLVM sinks each row's normalization into the branch of its store, so
  // the four rows' rsqrt chains run one after another. Where M is a multiple of
  // the block's rows none of it is needed: a version for such M (its launch
  // condition one remainder). Evidence: docs/tuning.md, chooseHeldRows.
  bool inference = shape.rowOutputs == 0;
  if ((shape.rowReductions == 1 || (shape.rowReductions == 2 && inference)) &&
      layout.threads == 32)
    for (HeldRows &band : bands)
      band.wholeBlocksVersion = band.rowsPerBlock > 1;
  // Blocks of two warps that cover the row (N = 512 two-byte; not N = 384's
  // ragged ones), each warp holding rows of its own: LayerNorm's inference
  // forward takes the whole-block versions (and branches, below) there too.
  // Evidence: docs/tuning.md, chooseHeldRows.
  if (shape.rowReductions == 2 && inference && shape.columnInputs >= 2 &&
      shape.elementBytes == 2 && layout.threads == 64 &&
      layout.sliceWidth() == shape.n)
    for (HeldRows &band : bands)
      band.wholeBlocksVersion = band.warpRows && band.rowsPerBlock > 1;
  // The version for other M branches in the kernel where whole blocks gain from
  // more than the bounds: LayerNorm's, whose whole blocks fence their weight
  // and bias loads (two column inputs, fencesColumnLoads), runs all blocks but
  // the last that way. LayerNorm's two-warp bands above (N = 512) were measured
  // with their branches. Evidence: docs/tuning.md, chooseHeldRows.
  for (HeldRows &band : bands)
    band.wholeBlocksBranch = band.wholeBlocksVersion && shape.columnInputs >= 2;
  return bands;
}

std::string mlir::norm::validateWarpRows(int64_t mode) {
  if (mode < -1 || mode > 1)
    return "warp-rows must be -1 (the tuning rule), 0 or 1, got " +
           std::to_string(mode);
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
  int64_t wanted = columnKernelWantedBlocks(device);
  while (layout.lanes > 4 && shape.n > 0 &&
         ceilDiv(shape.n, layout.lanes * width) < wanted)
    layout.lanes /= 2;
  layout.lanes = std::min(layout.lanes, layout.threads);
  return layout;
}

int64_t mlir::norm::columnKernelBlocks(const KernelShape &shape,
                                       const DeviceInfo &device) {
  CombineLayout layout = chooseColumnKernelLayout(shape, device);
  return ceilDiv(std::max<int64_t>(1, shape.n), layout.blockColumns());
}

RowRange mlir::norm::chooseOneRowForwardRows(const KernelShape &shape,
                                             const DeviceInfo &device) {
  RowRange streamed = chooseStreamedRows(shape, device);
  if (!streamed.contains(1))
    return {};
  RowLayout layout = streamedLayoutOf(shape, device);
  RowLayout one = chooseOneRowLayout(layout, shape.n, device);
  if (one.threads == layout.threads && one.vectorWidth == layout.vectorWidth)
    return {};
  return {1, 2};
}

RowRange mlir::norm::choosePreloadedColumnsRows(const KernelShape &shape,
                                                const DeviceInfo &device) {
  RowRange streamed = chooseStreamedRows(shape, device);
  RowLayout layout = streamedLayoutOf(shape, device);
  if (streamed.empty() || !layout.holdsRow ||
      preloadsColumns(shape, layout, /*rowsPerBlock=*/1))
    return {};
  // LayerNorm's weight and bias loaded with the row instead of after the
  // reductions, measured on the H200 (bf16 inference forwards, a row a block,
  // kernel time, 4 rounds): 1.02-1.08x at 32-128 rows of N = 768-4096 (64 x
  // 1000 1.07x, 64 x 1024 1.05x), level at 8192 rows, but 0.91-0.98x at
  // 512-2048 rows (2048 x 2048 0.91x), where several blocks an SM hide the late
  // loads and the early ones only crowd the row's. Evidence: docs/tuning.md,
  // choosePreloadedColumnsRows.
  return {streamed.begin, std::min<int64_t>(streamed.end, device.numSMs + 1)};
}
