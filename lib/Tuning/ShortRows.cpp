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

/// Widest rows the two kernels are used for. Past N = 8192 the mixed-order
/// kernel spreads each row over a cluster and sums its column partials in
/// a second kernel, which at a few rows costs more than the pair: measured
/// on the H200 (bf16 backwards, kernel time, 4 rounds, the pair against the
/// cluster kernel and its combine at the rule's limit) RMSNorm 1.63-2.11x
/// at 8-63 x 12288, 16 x 16384 and 1.27x at 32 x 32768, LayerNorm
/// 1.72-2.44x at 8-90 rows of 12288-32768. Wider rows (split rows) were not
/// measured.
constexpr int64_t kShortRowsMaxN = 32768;

/// The fewest rows of a round that the short-rows limit counts where the
/// mixed-order kernel's rows do not fit a block's registers and go over
/// clusters (bf16 from N = 12288, rowsFitInRegisters as planKernel asks).
/// The cluster kernel and its combine cost more at a few rows than the
/// rounds of the column kernel say (16-32 rows a round at N = 12288-32768,
/// a limit of 64 rows for RMSNorm and 96 for LayerNorm). Measured on the
/// H200 (bf16 backwards, kernel time, 3 rounds, the pair below 256 rows
/// against the rule's limit): RMSNorm 1.84x / 1.42x at 64 / 96 x 16384
/// and 1.40x at 64 x 32768, but 0.81x at 128 rows of both; LayerNorm 1.64x
/// / 1.17x at 96 / 128 x 16384, 1.18x at 128 x 32768 and 0.93x at 200 x 32768
/// (1.23x at 200 x 16384). At 64 rows a round: RMSNorm's pair below 128 rows,
/// LayerNorm's below 192. At N = 12288 the pair
/// won 1.35-2.0x at 64-112 rows and was level at 127, where its 127 row
/// blocks (768 threads, 78 registers) left the column kernel 5 SMs; there
/// the row blocks now leave the column blocks SMs and the limit is
/// kShutOutShortRowsLimit.
constexpr int64_t kClusterRowsMinRoundRows = 64;

/// The short-rows limit where the pair's row kernel shuts the column
/// blocks out of its SMs (shutsOutColumnBlocks) and spreads its rows, up to
/// four a block, over the SMs they leave. Measured on the H200 at N = 12288
/// (bf16 backwards, kernel time, 3 rounds, the pair against the cluster
/// kernel): RMSNorm
/// 1.65x / 1.33x / 1.13x at 128 / 191 / 255 rows and 0.87x at 320,
/// LayerNorm 1.28x / 1.05x at 192 / 255 rows and 0.87x at 320. The limit
/// sits midway between 255 and 320 rows: the cluster kernel at 256 rows was
/// 0.96x torch.compile for RMSNorm.
constexpr int64_t kShutOutShortRowsLimit = 288;

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
  // forced): RMSNorm 1.26x at
  // 256 x 4096 (2 rounds) and 0.91x at 512, 1.03x at 512 x 1024 and 0.78x
  // at 1024, 1.38x at 128 x 8192 and 0.79x at 256; LayerNorm 1.50x at
  // 256 x 4096 and 1.13x at 512 (4 rounds), 1.22x at 512 x 1024 and 0.90x
  // at 1024, 1.76x at 128 x 8192 and 1.02x at 256.
  CombineLayout columns = chooseColumnKernelLayout(shape, device);
  int64_t rounds = 1 + std::min<int64_t>(shape.columnOutputs, 2);
  int64_t roundRows = columns.groups() * columns.unroll;
  if (!rowsFitInRegisters(shape.n, shape.elementBytes, shape.fullOperands,
                          shape.columnOutputs, device))
    roundRows = std::max(roundRows, kClusterRowsMinRoundRows);
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
  // One row. On the H200 (ncu, bf16, N = 4096, M = 1) the row kernel took 3.4
  // us and the whole-column kernel beside it 3.0-3.1 us, Inductor's single
  // kernel 3.3 us (RMSNorm) and 4.1 us (LayerNorm); in the timed run the
  // second launch's start made the pair 1.25-1.5x Inductor's. From two rows
  // on, one block walks the rows one after another while the pair spreads
  // them.
  return 2;
}

/// The row lengths whose forwards stream (up to 4096 bf16 elements one
/// vector a thread covers the row, which then stays in registers:
/// chooseStreamingLayout). Inference forwards from N = 768 (GPT-2's and
/// BERT's rows, 96 threads), measured on the H200 against the staged row
/// kernel (bf16, kernel time, 3 rounds): RMSNorm 1.02-1.11x at
/// 64-65536 x 768, LayerNorm 1.01-1.05x at 512-65536 rows, 0.98x at 64.
/// The forwards that write their statistics, measured the same way against
/// the staged row kernel (5 rounds, variants expC and, for LayerNorm's
/// three warp rows a
/// block below 24 rows per SM, expD: chooseHeldRows' bands): RMSNorm
/// 1.02-1.14x at 512-4096 x 768, 0.94x at 6144, 1.03-1.07x from 8192 rows;
/// LayerNorm 1.07-1.12x at 512-3000 rows, 1.04x at 4096, 0.99-1.00x at
/// 6144-8192, 1.05-1.08x from 12288. Down to N = 256 (a warp of one
/// vector a lane), both forwards, measured the same way at 256-65536 rows
/// (3 rounds):
/// N = 512 and 640 RMSNorm 1.01-1.17x, LayerNorm 1.01-1.23x; N = 256 and
/// 384 RMSNorm 1.03-1.32x, LayerNorm 0.96-0.99x at 4096-16384 x 384 and
/// 4096 x 256 (inference), 1.00-1.25x elsewhere.
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
  bool forward = shape.fullOperands == 1 && shape.columnOutputs == 0 &&
                 shape.fullOutputs > 0;
  if (!forward || shape.n < kStreamedForwardMinN ||
      shape.n > kStreamedForwardMaxN)
    return {};
  // What follows was measured with rows of one vector a thread held in
  // registers (bf16); blocks of longer rows (f32 at N > 2048), measured
  // re-reading their row, keep the earlier limit.
  RowLayout streamedLayout = streamedLayoutOf(shape, device);
  if (!streamedLayout.holdsRow || streamedLayout.chunksPerThread != 1)
    return shape.rowReductions == 1
               ? RowRange{0, kRereadForwardElements / shape.n}
               : RowRange{};
  // Measured on the H200 since the streamed kernels reduce through
  // RowReductions (bf16, kernel time, inference forwards, every forward
  // streamed against these rules' predecessor, 3 rounds). RMSNorm: level or
  // ahead at every M, 1.19x at 6144 x 1024, 1.09x at 3072 x 2048, 1.01-1.04x
  // from 8192 rows (32768 x 2048 1.01x, 65536 x 4096 1.00x).
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
  // Two rows a block where each thread holds one vector of the row
  // (two-byte N = 1536-4096: 192-512 threads), from where a row a block
  // would take a second wave; the inference forwards. RMSNorm, measured on the
  // H200 (bf16, kernel time, 5 rounds, two rows a block at every M against
  // one):
  // 1.19x at 1024 x 4096 (1024 one-row blocks of 512 threads, four an SM,
  // took two waves where 512 two-row blocks take one), 1.02x at 4096-65536
  // x 4096, 1.01x at 8192-32768 x 2048; within one wave of one-row blocks
  // they lost (16 x 4096 0.84x, 256 x 4096 0.98x, 64 x 2048 0.89x, 1024 x
  // 2048 0.97x). Rows of two or more vectors a thread spilled and ran at
  // 0.32-0.56x. The two versions
  // as built here against one row a block (5
  // rounds): 1.17-1.20x at 529-1024 x 4096, 1.12x at 2048 x 2048, 1.01-1.02x
  // at 4096-65536 rows, 0.97-1.03x below the band (its version drops the
  // L2 prefetch code, norm.rows_below). At the model sizes it also reaches: N =
  // 2560-3072 (320-384 threads) 1.19-1.23x at 661-1024 rows, 1.00-1.03x at
  // 4096-65536; N = 1536 (192 threads) 0.96x at 1321 rows where its band
  // starts, 1.07x at 2048, 1.01x at 8192-32768. LayerNorm, whose streamed rows
  // end at 5M elements (1280 rows at N = 4096; its staged kernel beyond, where
  // the table's two rows measured 0.96-1.00x), at 40 registers for the two rows
  // (one block an SM fewer) : 1.08-1.19x over most of the band at N =
  // 1536-4096, level at 2048 x 2048 and 800-1024 x 4096, 0.96x at 1500 x 2560.
  // Four-byte rows were not measured; the warp-rows option leaves these blocks
  // a row each.
  //
  // The forwards that write their statistics take more registers for the
  // two rows (ptxas: RMSNorm 37-39 at N = 2048 and 4096, LayerNorm 44-58),
  // so left to ptxas their blocks an SM drop below one row's and the wave
  // the band assumes ends earlier: the same band measured 0.90-1.20x. RMSNorm's
  // asks for one row's blocks an SM (.minnctapersm: 32 registers, no spills at
  // N = 2048-4096): 1.11-1.25x over most of the band (529-1024 x 4096,
  // 1200-2048 x 2048, 661-1024 x 3072, 800-1024 x 2560, 1400-1600 x 1536),
  // level at 4096-16384 rows; where it started, 0.92-0.96x at 1321 x 1536 and
  // 0.98x at 1057 x 2048 (one-row blocks' second wave is a single block there;
  // the band starts later there now, below) . LayerNorm's spilled at 32
  // registers (0.71-0.91x), so it asks for the blocks an SM that
  // kLayerNormTwoRowRegisters allow and keeps two rows a block only while they
  // take one wave and a row a block would take two: with ptxas's
  // registers 1.09-1.23x over those bands at N = 1536-3072, 0.93-1.02x past
  // them; at 40 registers the bands reach further, 1.14-1.24x in what they add
  // (1800-2100 x 1536, 1400-1584 x 2048, 900-1056 x 3072, 529-792 x 4096;
  // N = 4096 had none), 0.96-1.05x where both hold two rows, level past
  // them.
  //
  // Where LayerNorm's inference forward's two-row blocks (three an SM of
  // 512 threads at N = 4096) take two waves and four rows a block (64
  // registers: two blocks an SM, 8 rows against 6) one, four rows a block
  // up to that wave; two rows again past it. Measured on the H200 (bf16,
  // kernel time, 7 rounds, four rows against two): 1.12-1.19x at
  // 800-1056 x 4096, 1.20-1.25x at 1700-2112 x 2048, 1.14-1.24x at
  // 1200-1584 x 2560, 1.09-1.17x at 2300-2640 x 1536, where the waves say;
  // 0.87-0.93x below; 0.96-1.00x past the four rows' wave.
  //
  // RMSNorm's first rows past the wave: where a row a block's blocks are
  // eight or more an SM (N = 1536-2048, 192-256 threads), the few blocks of
  // their second wave cost less than the warps two-row blocks leave idle.
  // Measured on the H200 (bf16, kernel time, 7 rounds, a row a block against
  // two), both forwards alike: 1.06-1.07x
  // at 1321 x 1536 and 1.02-1.04x at 1057 x 2048 for a row a block, 0.95x at
  // 1400 x 1536 and 0.96x at 1100 x 2048; at N = 2560-4096 two rows win from
  // the wave's first row on (0.79-0.88x for a row a block). So the band
  // starts a quarter of a row per SM later there (1354 and 1090 rows):
  // 1.01-1.05x at 1330-1353 x 1536 and 1070-1089 x 2048. LayerNorm's two rows
  // win from the wave's first row at every N (a row a block 0.94x at 1321 x
  // 1536, 0.89x at 1057 x 2048, 0.80-0.91x at N = 2560-4096, both forwards), so
  // its band starts there.
  //
  // LayerNorm's statistics forward also takes four rows a block from where
  // its two-row blocks would take a second wave up to one wave of four-row
  // blocks (64 registers, no spills at N = 1536-4096), and a row a block past
  // it. Measured on the H200 (bf16, kernel time, 7 rounds, against a row a
  // block there): 1.15-1.16x at 900-1056 x 4096,
  // 1.16-1.21x at 1800-2112 x 2048, 1.13-1.17x at 1300-1584 x 2560,
  // 1.15-1.16x at 2400-2640 x 1536; 0.99-1.04x on either side.
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
  // Four rows a block of 128 threads put 64 bytes of loads a thread in
  // flight (Inductor's warp rows: 32 threads, 4 vectors each) where one
  // row's 16 bytes leave an SM's short-lived blocks short of loads in
  // flight, and pay one barrier per reduction for all four. Measured on the
  // H200 (bf16 inference forwards, kernel time, 3 rounds, four rows a block
  // against one):
  // RMSNorm 4096 x 1000 1.08-1.12x, 4096 x 1024 1.05x, 16384-131072 x 1024
  // 1.00-1.01x; LayerNorm 4096 x 1024 1.07x (0.98x in a second run), 8192 x
  // 1024 1.07x, 16384 x 1024 1.04x, 100000 x 1000 1.04-1.05x. At 512-1056
  // rows they lost 0.66-0.87x, at 1057-2000 rows with two rows a block
  // 0.84-0.96x: a block per row there. Four rows a block at every M
  // won at 2560 and 3167 rows (1.05-1.11x; 3072 rows
  // 0.99-1.05x) and lost 0.86-0.97x at 512-2048 (2048 x 1000 RMSNorm
  // 1.01x), hence the version from 24 rows per SM (3168 rows on 132 SMs).
  // Two rows a block gained nothing (0.90-1.02x), nor did four at N =
  // 2048-4096 (256-512 threads, 0.99-1.01x). Since the held rows load the
  // weights with the rows, ragged rows (N = 1000: 125 of 128 threads
  // with a vector, every load predicated) gain from 16 rows per SM: 2500
  // and 3000 x 1000 RMSNorm 1.07x / 1.14x, LayerNorm 1.07x / 1.07x; rows
  // the block covers exactly (N = 1024) lost 0.92-0.97x there. Confirmed in a
  // second run: 2112-3167 x 1000 RMSNorm 1.07-1.17x, LayerNorm 1.00-1.08x, 2048
  // and 4096 rows level.
  constexpr int64_t kRowsPerBlock = 4;
  constexpr int64_t kMaxThreads = 128;
  constexpr int64_t kFromRowsPerSM = 24, kRaggedFromRowsPerSM = 16;
  RowRange streamed = chooseStreamedRows(shape, device);
  RowLayout layout = streamedLayoutOf(shape, device);
  if (streamed.empty() || !layout.holdsRow)
    return {};
  if (layout.threads > kMaxThreads)
    return wideHeldRows(shape, layout, streamed, device, warpRows);
  bool ragged = shape.n % layout.sliceWidth() != 0;
  // Ragged rows in blocks of two warps (N = 264-504 bf16; at N = 384 the
  // half-width warp rows below replace this) hold rows from
  // fewer rows per SM: LayerNorm's from 8, RMSNorm's from 12. Measured at
  // N = 384 only, on the H200 (bf16, kernel time, 5 rounds, held rows from
  // 8 rows per SM against 16): LayerNorm 1.03-1.05x at
  // 1100 rows, 1.10-1.12x at 1500 and 1.15-1.18x at 2000, both forwards;
  // RMSNorm 0.97x at 1100, 0.99x at 1500 and 1.11x at 2000, hence its start
  // past 1500 rows (11.4 rows per SM).
  constexpr int64_t kRaggedTwoWarpLayerNormFromRowsPerSM = 8,
                    kRaggedTwoWarpRMSNormFromRowsPerSM = 12;
  int64_t raggedFrom = layout.threads != 64 ? kRaggedFromRowsPerSM
                       : shape.rowReductions == 2
                           ? kRaggedTwoWarpLayerNormFromRowsPerSM
                           : kRaggedTwoWarpRMSNormFromRowsPerSM;
  // Ragged rows whose vectors of half the width fill whole warps (N = 384
  // bf16: 48 vectors of 16 bytes leave 16 of a second warp's lanes idle,
  // 96 of 8 bytes fill three warps) give each warp a row of its own in
  // three vectors a lane, Inductor's layout there, below 24 rows per SM,
  // and hold rows shared by the block only from there. Measured on the
  // H200 (bf16, kernel time, 5 rounds, both orders). LayerNorm's inference
  // forward as built: 1.04-1.18x at 200-3167 x 384 against the previous
  // bands (a row a block below 1056
  // rows, four rows over two warps above). The statistics forward and
  // RMSNorm's two (// against their held rows from 8 and 12 rows per SM):
  // LayerNorm's statistics forward 1.05-1.20x at 200-2000 rows,
  // RMSNorm 1.02-1.18x at 200-3167 rows, level at 4096; the band ending at 12
  // rows per SM instead lost 0.85-0.96x past it. Vectors of half the width
  // everywhere (the session-46 hook's global layouts) lost 0.67-0.95x at
  // 4096-65536 rows, where four rows a block hold them.
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
  // Past one wave of four-row blocks (32 rows per SM: 8 blocks of four
  // rows an SM, as the registers allow) three rows a block where the block
  // covers the row exactly, up to 128 rows per SM. Measured on the H200
  // (bf16 inference forwards, kernel time, 3 rounds, two runs, three rows a
  // block against four)
  // RMSNorm 6144 x 1024 1.06-1.08x, 7000 1.06x, 5000 1.05x / 0.96x, 8192
  // 1.00-1.01x; LayerNorm 5000 1.08x twice, 6144 1.03x twice, 7000-8192
  // 1.00-1.02x. Below (LayerNorm 4096 x 1024 0.86-0.88x) and for ragged
  // rows (N = 1000, 0.86-0.91x) four. Where the band ends (the same A/B
  // with the end at 64, 96, 128 rows per SM and none, 3-5 rounds, two
  // runs): up to 128 rows per SM RMSNorm
  // 1.00-1.04x and LayerNorm 1.00-1.04x at 8192-16384 x 1024 against four
  // rows; beyond, level at 24576-131072 rows with LayerNorm 32768 x 1024
  // 0.99-1.00x, so four rows keep the largest M.
  constexpr int64_t kOneWaveRowsPerSM = 32, kThreeRowsToRowsPerSM = 128;
  // A four-row block of the inference forward needs 63-64 registers a
  // thread (128 threads): eight of them an SM, one wave up to 32 rows per
  // SM; past it the three-row blocks' 46-56 registers allow nine or ten (27
  // or 30 rows per SM), so their grid spills into a second wave just the
  // same. Asking ptxas for nine four-row blocks an SM instead
  // (.minnctapersm 9: 56 registers, 4 bytes of spill for RMSNorm, 16 for
  // LayerNorm) keeps one wave up to 36 rows per SM. Measured on the H200 (bf16
  // inference forwards, kernel time, 5 rounds, nine four-row blocks an SM
  // against three rows a block): RMSNorm (warp rows)
  // 4500 and 4752 x 1024 1.09-1.10x, 5000 1.02x, 5280-6144 0.90-1.00x;
  // LayerNorm 4500-4752 1.04-1.05x, 5000-6144 0.92-0.96x. Within one wave the
  // cap only costs (3960-4224 x 1024 against eight an SM: RMSNorm 0.99x,
  // LayerNorm 0.90-0.92x). Only the inference forward: the forwards that also
  // write the statistics spill 20-32 bytes at 56 registers and lost 0.95-0.98x
  // at 4225-4752 x 1024.
  constexpr int64_t kCappedWaveRowsPerSM = 36;
  constexpr int64_t kLayerNormStatsHeldRegisters = 72;
  // Within that wave, RMSNorm's warps own a row each (32 threads x 4
  // vectors, no barrier). Measured on the H200 (bf16, kernel time, 3
  // rounds, warp rows against four rows shared by the block): RMSNorm N = 1024
  // 1.04x at 3168 rows, 1.10-1.12x at 3500, 1.07-1.13x at 4096 (inference
  // and statistics forwards, three runs); past one wave mixed, then behind
  // (5000 0.96x, 6144 1.09x, 7000 0.97x, 10000-131072 0.92-0.96x).
  // LayerNorm lost 0.83-0.99x at 3168-4096, and ragged rows (N = 1000, the
  // last vectors predicated) 0.83-0.91x: their block rows.
  // RMSNorm's warp rows win below 24 rows per SM too, where four rows
  // shared by the block lost: measured on the H200 (bf16 inference forward,
  // kernel time, 4 rounds, warp rows against a row a block) 1.04-1.11x at 128,
  // 256 and 1536-3167 x 1024, level at 512-1024, 0.96x at 64 rows (16
  // blocks). A second A/B (warp rows from
  // 32 rows): 0.94x at 64, level at 96, 1.06-1.08x at 128-131 rows: from
  // three quarters of a row per SM (99 rows on 132 SMs).
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
    // warps a row of its own below 24 rows per SM, where a row a block ran
    // a second wave from 21 rows per SM (blocks of 96 threads). Measured on
    // the H200 (bf16, kernel time, 5 rounds, against a row a block below
    // 3168 rows,, variant expD): the inference forward
    // 1.03-1.22x at 512-3000 x 768 (3000 rows 1.22x), the statistics forward
    // 1.01-1.22x against the streamed row a block (1.07-1.12x against the
    // staged kernel); from 24 rows per SM, where the four-row blocks take
    // over, they lost (0.89-0.98x at 4096-65536 rows), and RMSNorm's were
    // level at best (0.93-1.01x).
    bool threeWarpRows =
        layerNorm && warps.has_value() && warps->rowGroups == 3;
    if (threeWarpRows && warpRowsFor(warps->rowGroups, true))
      add(warps->rowGroups, kWarpRowsFromQuarterRowsPerSM * device.numSMs / 4,
          from, true);
    // Where four rows do not divide among the block's warps (96 threads, N
    // = 768 bf16), blocks of one warp and one row (32 threads holding the
    // row in three vectors a lane, Inductor's launch there; 32 blocks an SM)
    // in two bands. RMSNorm's first starts where its blocks of a row and 96
    // threads (21 an SM) leave one wave, up to the four-row blocks. The
    // second, past one wave of those (ten blocks of 96 threads an SM at 64
    // registers, 40 rows per SM), spreads the last wave finer: RMSNorm's
    // up to 80 rows per SM, LayerNorm's from 44 up to 64. Measured on the
    // H200 (bf16, kernel time, 3 rounds, both forwards, one-warp blocks
    // against the previous bands):
    // RMSNorm 1.02-1.09x at 3000-3167 rows, 1.10-1.20x at 5281-8192, 1.01-1.04x
    // at 9000-10560, level at 2000-2500 and 11000-16384; LayerNorm (its
    // weight and bias preloaded, preloadsColumns) 1.01-1.06x at 6144-8192,
    // 0.95x (inference) at 5281, 0.96-0.99x (statistics) at 9000-10560, and
    // 0.84-0.99x at 1000-4096 rows against its three warp rows a block. The
    // bands as built here against the previous ones (inference forward):
    // RMSNorm
    // 0.97x at 2773 rows, 1.02-1.18x at 3000-9000; LayerNorm 1.00-1.08x at
    // 5600-9000.
    int64_t oneWarpFromRowsPerSM = layerNorm ? 44 : 40;
    int64_t oneWarpToRowsPerSM = layerNorm ? 64 : 80;
    // The warp-rows option's 0 leaves those rows to the bands around them.
    bool oneWarpBlocks = warps.has_value() &&
                         kRowsPerBlock % warps->rowGroups != 0 &&
                         warpRowsFor(1, true);
    if (oneWarpBlocks && !layerNorm)
      add(1, device.threadsPerSM / layout.threads * device.numSMs + 1, from,
          true);
    // Below `from` only warp rows hold several rows (shared by the block
    // they lost): without them (the option's 0) a row a block. LayerNorm's
    // blocks of two warps (N = 512 bf16) take RMSNorm's bands there too;
    // their bands within the wave keep rows shared by the block (LayerNorm's
    // warp rows lost there at N = 1024, and were not tried at N = 512).
    // Measured on the H200 (bf16, kernel time, 5 rounds, against a row a
    // block): 1.00-1.04x at 300-1000 x
    // 512, 1.12-1.14x at 1500, 1.18x at 2048 and 1.28-1.29x at 3000, both
    // forwards, where a row a block had run at 0.83-0.88x of torch.compile.
    bool twoWarpLayerNorm =
        layerNorm && warps.has_value() && warps->rowGroups == 2;
    if ((warpRowsRule || twoWarpLayerNorm) &&
        warpRowsFor(kRowsPerBlock, true)) {
      int64_t begin = kWarpRowsFromQuarterRowsPerSM * device.numSMs / 4;
      // Between 3 and 5 rows per SM (396-660 rows on 132 SMs) a row a
      // block wins over the warp rows, which the A/B above called level at
      // 512-1024 rows and which were 0.99x of torch.compile at 512 x 1024
      // (7 rounds).
      // Measured on the H200 (bf16 RMSNorm N = 1024, kernel time, a row a
      // block against warp rows): at 512-1056 rows
      // (7 rounds) the inference
      // forward 1.03x / 1.06x at 512 / 640 rows, 0.99x at 768 and 900, 1.00x
      // at 1024, 0.96x at 1056, the statistics forward (5
      // rounds) 1.03x / 1.01x / 0.97x at 512 / 768 / 1024; this band
      // (5 rounds) 1.02x / 0.98x
      // / 1.02x / 1.04x / 1.01x at 396 / 450 / 512 / 600 / 660 rows, level
      // at 300 and 700 (warp rows in both). The option's warp rows
      // (warpRows = 1) keep the whole band.
      constexpr int64_t kRowABlockFromRowsPerSM = 3, kRowABlockToRowsPerSM = 5;
      if (warpRows < 0) {
        add(kRowsPerBlock, begin, kRowABlockFromRowsPerSM * device.numSMs,
            true);
        begin = kRowABlockToRowsPerSM * device.numSMs + 1;
      }
      add(kRowsPerBlock, begin, from, true);
    }
    // LayerNorm's blocks of one warp (N = 256 bf16) hold four rows, the
    // warp's own, from 12 rows per SM up to the four-row band above, where
    // a row a block ran 1000-3000 x 256 at 0.68-0.99x of torch.compile
    // (whose blocks there are one warp of four rows). Measured on the H200
    // (bf16, kernel time, 7 rounds, against a row a block): the
    // inference forward 1.17-1.18x at 1500 rows, 1.24-1.30x at 2048 and
    // 1.28-1.47x at 2500-3000 (both orders), 1.03-1.04x at 1000 and
    // 0.91-1.02x at 100-700; the statistics forward 0.99x at 1500, 1.09x at
    // 2048 and 1.22-1.30x at 2500-3000, but 0.78-0.89x below 1500.
    constexpr int64_t kLayerNormWarpRowsFromRowsPerSM = 12;
    if (layerNorm && warps.has_value() && warps->rowGroups == 1 &&
        warpRowsFor(kRowsPerBlock, true))
      add(kRowsPerBlock, kLayerNormWarpRowsFromRowsPerSM * device.numSMs, from,
          true);
    // A LayerNorm forward that writes its statistics holds 72 registers in
    // its four-row blocks (ptxas, N = 1024 bf16): seven blocks of 128
    // threads an SM where one wave needs eight, so from 28 rows per SM its
    // grid ran a second wave. Bounded to eight (64 registers, 4-8 bytes of
    // spill), measured on the H200 (bf16, kernel time, 5 rounds):
    // 1.17-1.19x at 4096 and 4224 x 1024; below 28 rows per SM the bound
    // only cost (0.95-0.96x at 3168 and 3500 rows), so it starts there.
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
    // LayerNorm's one-warp blocks within the wave tell ptxas the eight
    // blocks an SM they launch: unbounded, it keeps to 64 registers (32
    // blocks an SM) and issues the fourth row's load only after the first
    // row's data arrived (SASS of the forward at N = 256 bf16: 63 registers;
    // bounded, 72 and all four rows' loads first). Measured on the H200
    // (bf16, kernel time, 5 rounds): the
    // LayerNorm forwards 1.04-1.13x at 3168-4224 x 256; RMSNorm's, whose
    // loads come first unbounded, 0.93-1.01x, so not theirs. Past the wave
    // (.minnctapersm 16 on every one-warp kernel, 16384 x 256 and 8192 x
    // 768) the bound lost up to 11%.
    int64_t waveBlocksPerSM =
        layerNorm && layout.threads == 32 ? wantedBlocksPerSM : 0;
    add(kRowsPerBlock, from, boundFrom, warpRowsRule, waveBlocksPerSM);
    add(kRowsPerBlock, boundFrom, oneWaveEnd, warpRowsRule, wantedBlocksPerSM);
    add(kRowsPerBlock, oneWaveEnd, cappedWaveEnd, warpRowsRule,
        kCappedWaveRowsPerSM / kRowsPerBlock);
    // Blocks of fewer than 128 threads (N = 256-768 bf16) keep four rows
    // past the wave, except RMSNorm's inference forward in blocks of more
    // than one warp. Three rows spill in a
    // forward that writes its statistics (RMSNorm: 48 registers and 8 bytes
    // from ptxas); four measured on the H200 (bf16, kernel time, 5 rounds,,
    // expC against exp): RMSNorm 1.01-1.05x at 6144-16384 x 768, LayerNorm
    // level. LayerNorm's inference forward (against three, 5 rounds): 1.21x at
    // 5000 x 768 (1250 four-row blocks fit the wave of ten an SM where 1667
    // three-row ones did not fit twelve), 1.00-1.02x at 6144-16384; two rows a
    // block lost (0.95-0.98x). RMSNorm's inference forward in blocks of one
    // warp (N = 256, four against three, 5 rounds): 1.02-1.11x at 4800-32768 x
    // 256 (16384 rows: 4096 blocks, Inductor's grid, 1.11x), level at 65536.
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
  // Blocks of one warp (N = 256 two-byte: 32 threads, four rows) spend
  // what Inductor's warp of four rows (static M, no bounds) does not
  // on the rows' bounds: a 64-bit comparison and a predicated, zeroed load
  // per later row, and LLVM sinks each row's normalization into the branch
  // of its store, so the four rows' rsqrt chains run one after another.
  // Where M is a multiple of the block's rows none of it is needed: a
  // version for such M (its launch condition one remainder). Measured on
  // the H200 (bf16, kernel time, 7 rounds, no bounds against bounds at M a
  // multiple of four): RMSNorm 1.03x / 1.07x at 4096 x 256 (inference /
  // statistics forward), 1.01-1.03x at 16384, level at 65536; under ncu from L2
  // 4647 cycles against
  // Inductor's 4716, where the bounded kernel takes 4934. The versions as
  // built here (7 rounds): RMSNorm's
  // inference forward 1.02-1.04x at multiples of four from 200 to 65536 x
  // 256, its statistics forward level (0.99-1.04x). LayerNorm's versions
  // fence their weight and bias loads (fencesColumnLoads), which ptxas
  // otherwise sinks past the first reduction: its inference forward
  // 1.01-1.07x at 2048-65536 x 256 (9 rounds; 1.00-1.04x without the
  // fence); its statistics forward
  // lost, 0.94-0.99x with the fence and 0.85-0.94x at 6000-32768 rows
  // without, so it keeps its bounds.
  bool inference = shape.rowOutputs == 0;
  if ((shape.rowReductions == 1 || (shape.rowReductions == 2 && inference)) &&
      layout.threads == 32)
    for (HeldRows &band : bands)
      band.wholeBlocksVersion = band.rowsPerBlock > 1;
  // Blocks of two warps that cover the row (N = 512 two-byte; not N = 384's
  // ragged ones), each warp holding rows of its own: LayerNorm's inference
  // forward takes the whole-block versions (and branches, below) there too.
  // Measured on the H200 (bf16, kernel time, 5 rounds, versions and branches in
  // every band against none): its warp
  // bands 1.01x / 1.05x / 1.11x at 996 / 1500 / 3000 x 512, where Inductor's
  // one-warp blocks ran ours at 0.96x (1500 x 512, 11% fewer instructions
  // a warp under ncu); its bands of four rows shared by both warps lost
  // (0.94-0.95x at 4096-4097 rows), RMSNorm's warp bands lost 0-7%, and the
  // statistics forwards 1-4%.
  if (shape.rowReductions == 2 && inference && shape.columnInputs >= 2 &&
      shape.elementBytes == 2 && layout.threads == 64 &&
      layout.sliceWidth() == shape.n)
    for (HeldRows &band : bands)
      band.wholeBlocksVersion = band.warpRows && band.rowsPerBlock > 1;
  // The version for other M branches in the kernel where whole blocks gain
  // from more than the bounds: LayerNorm's, whose whole blocks fence their
  // weight and bias loads (two column inputs, fencesColumnLoads), runs all
  // blocks but the last that way. Measured on the H200 (bf16, kernel time,
  // 7 rounds, against no branch at M not a multiple of four): LayerNorm's
  // inference forward 1.12x at 8191 x 256, 1.18x at 16385, 1.03-1.05x at
  // 32767-65537, 0.96-1.02x at 1001-4098; RMSNorm's forwards level
  // (0.98-1.02x), so not theirs. LayerNorm's two-warp bands above (N =
  // 512) were measured with their branches.
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
  int64_t wanted = std::max<int64_t>(1, device.numSMs / 4);
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
  // reductions, measured on the H200 (bf16 inference forwards, a row a
  // block, kernel time, 4 rounds):
  // 1.02-1.08x at 32-128 rows of N = 768-4096 (64 x 1000 1.07x, 64 x 1024
  // 1.05x), level at 8192 rows, but 0.91-0.98x at 512-2048 rows (2048 x
  // 2048 0.91x), where several blocks an SM hide the late loads and the
  // early ones only crowd the row's. The band's end re-measured at 96-140
  // rows (6 rounds): 0.98-1.05x
  // at 96-140 rows of N = 768-4096, no step at 133 (132 x 1024 1.02x: the
  // 0.96x of the first run was noise).
  return {streamed.begin, std::min<int64_t>(streamed.end, device.numSMs + 1)};
}
