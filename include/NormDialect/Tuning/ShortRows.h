//===- ShortRows.h - kernel versions by row count ---------------*- C++ -*-===//
//
// The row ranges norm-short-rows versions kernels on: short-M pairs, single
// blocks, streamed and held rows, one-row forwards.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_SHORT_ROWS_H
#define NORMDIALECT_TUNING_SHORT_ROWS_H

#include "NormDialect/Tuning/CombineLayouts.h"
#include "NormDialect/Tuning/KernelPlan.h"

#include <limits>
#include <string>
#include <vector>

namespace mlir::norm {

/// The grid of a whole-column kernel of `shape`: one block for each
/// CombineLayout::blockColumns() columns of chooseColumnKernelLayout.
int64_t columnKernelBlocks(const KernelShape &shape, const DeviceInfo &device);

/// The row count below which a kernel of `shape` that mixes row work (row
/// reductions, full outputs) with column outputs runs as two kernels side
/// by side (norm-short-rows): the row part, and a column kernel that sums
/// whole columns over every row. 0: never (no column outputs, nothing but
/// them, or rows wider than the measured range). At few rows the fused
/// kernel's saving, one read of x and dy, is worth less than the latency
/// of its partial rows and the combine that must wait for them.
int64_t chooseShortRowsLimit(const KernelShape &shape,
                             const DeviceInfo &device);

/// The row count below which the short version of a mixed-order kernel of
/// `shape` is that kernel itself over one block (norm.whole_columns with its
/// row work: column outputs written directly, rounded) instead of a row and
/// a whole-column kernel side by side. 0: never (no short version). Two
/// launches cost more than one where there is next to no work to overlap.
/// At 2 (one row) norm-short-rows casts that version to one row and gives
/// M = 0 the pair.
int64_t chooseSingleBlockRows(const KernelShape &shape,
                              const DeviceInfo &device);

/// Rows [begin, end) of M.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;

  /// Every row count.
  static RowRange all() { return {0, std::numeric_limits<int64_t>::max()}; }
  bool empty() const { return end <= begin; }
  bool contains(int64_t rows) const { return rows >= begin && rows < end; }
  bool coversAll() const {
    return begin <= 0 && end == std::numeric_limits<int64_t>::max();
  }
};

/// The rows of M where a forward of `shape` streams its rows through L2
/// (norm-short-rows sets norm.stream_rows on that version, or on the kernel
/// itself where the range covers every M) instead of staging them in
/// shared memory: RMSNorm (one row reduction) at every M for N = 256-4096,
/// LayerNorm (two) at every M for N = 256-1024 and below a limit up to
/// N = 4096 (from N = 256: a warp of one vector a lane). Empty: never. Rows of
/// one vector a thread stay in registers (chooseStreamingLayout), so the
/// streamed kernel is a single pass over memory whose short block starts sooner
/// than a staged row's copy; only LayerNorm's longer rows at many rows keep the
/// staged kernel's overlap. Rows of more than one vector a thread (f32 at N >
/// 2048), measured when the block re-read them from L2: RMSNorm streams them
/// below a limit, LayerNorm not at all.
RowRange chooseStreamedRows(const KernelShape &shape, const DeviceInfo &device);

/// Rows each block of a streamed forward holds at once (norm.rows_per_block
/// on the version norm-short-rows makes for `rows` of M), and whether its
/// warps own them (norm.warp_rows, warpRowsLayout: rowsPerBlock / warps of
/// the rows each) instead of all its threads sharing each row.
struct HeldRows {
  int64_t rowsPerBlock = 1;
  RowRange rows;
  bool warpRows = false;
  /// Blocks per SM the version's registers must allow (PTX .minnctapersm,
  /// norm.min_blocks_per_sm; 0: ptxas chooses).
  int64_t minBlocksPerSM = 0;
  /// Elements per vector access (norm.vector_width; 0: the widest that
  /// divides N, chooseVectorWidth).
  int64_t vectorWidth = 0;
  /// Whether the band has a second version for M a multiple of
  /// rowsPerBlock (norm.rows_multiple), whose blocks all hold rowsPerBlock
  /// rows and check none of them against M.
  bool wholeBlocksVersion = false;
  /// Whether the band's version for other M (all of them without
  /// wholeBlocksVersion) branches in the kernel on whether a block's rows
  /// all exist (norm.whole_blocks_branch): every block but the grid's last
  /// then runs without row bounds.
  bool wholeBlocksBranch = false;
};

/// Where the streamed forward of `shape` (chooseStreamedRows) holds several
/// rows a block, as bands of M in increasing order that do not overlap,
/// neighbours that build the same kernel merged (empty: a row a block at
/// every M). Blocks of at most 128 threads that keep their row in registers
/// (one vector a thread, N <= 1024 bf16) hold rows from 24 rows per SM on
/// (16 where the row leaves some threads without a vector, N = 1000): four
/// a block; where the block covers the row exactly (N = 1024), four up to
/// one wave of them (32 rows per SM), then, for a forward without row
/// outputs (the inference forward), four at nine blocks an SM
/// (minBlocksPerSM: the grid stays one wave) up to 36, three a block up to
/// 128 rows per SM (from 32 for a forward that writes its statistics),
/// four beyond; blocks under 128 threads keep four past the wave, except
/// RMSNorm's inference forward. A LayerNorm forward that writes its statistics
/// asks for the wave's eight blocks an SM where its registers (about 72) would
/// leave fewer, from the rows per SM those fewer blocks hold. An RMSNorm whose
/// rows the block covers exactly gives each warp a row of its own from three
/// quarters of a row per SM up to where the three-row blocks start, except
/// from 3 to 5 rows per SM (a block a row there); a LayerNorm whose block
/// has three warps (N = 768 bf16) gives each a row, three a block, from
/// three quarters of a row per SM up to 24. Where the block has three
/// warps (N = 768 bf16), blocks of one warp and one row (warp rows with
/// rowsPerBlock 1) take RMSNorm's rows from one wave of its 96-thread
/// blocks of a row (21 rows per SM) up to 24, and past one wave of the
/// four-row blocks (40 rows per SM) up to 80 (LayerNorm's from 44 up to
/// 64). LayerNorm's inference forward over ragged rows whose vectors of
/// half the width fill whole warps (N = 384 bf16: 96 vectors of 4) gives
/// each of three warps a row at that width (HeldRows::vectorWidth) from
/// three quarters of a row per SM up to 24, and holds four rows from there.
/// A two-byte forward whose blocks are wider (192-512 threads, one vector
/// of the row a thread: N = 1536-4096 bf16) holds two rows a block from
/// where a row a block would take a second wave (RMSNorm's a quarter of a
/// row per SM later where a row a block's blocks are eight or more an SM):
/// the inference forwards and RMSNorm's statistics forward (asking for a
/// row a block's blocks an SM) to the end of their streamed rows; LayerNorm's
/// forwards four rows a block where their two-row blocks take two waves and
/// four-row blocks one, past that two rows again (inference) or one
/// (statistics).
/// Below, and for every other kernel, a block takes one row. The blocks
/// of one warp (N = 256 two-byte) of RMSNorm's forwards and LayerNorm's
/// inference forward get a second version of each band of several rows a
/// block for M a multiple of them, without row bounds
/// (HeldRows::wholeBlocksVersion), as do LayerNorm's inference forward's
/// bands whose warps hold rows of their own in blocks of two warps (N = 512
/// two-byte); LayerNorm's bounded versions of those bands branch in the
/// kernel so that every block but the grid's last runs without the bounds
/// (HeldRows::wholeBlocksBranch).
/// A forward of two full inputs (the gated norm's x and z) holds four rows
/// a block, the warp's own, where its block is one warp (N = 256 bf16) from
/// 64 rows per SM, and a row a block everywhere else (a residual add's
/// forward too).
/// `warpRows` (the warp-rows option) replaces the rule's warp rows: 1 in
/// every band whose rows the warps share out evenly or of one row (a block
/// of one warp, with no gap), 0 in none (rows below 24 per SM then take one
/// a block, the one-warp bands' rows go to the bands around them), -1 the
/// rule; a band whose layout it changes asks for no blocks per SM.
std::vector<HeldRows> chooseHeldRows(const KernelShape &shape,
                                     const DeviceInfo &device,
                                     int64_t warpRows = -1);

/// The rows of M (one row: [1, 2)) where the streamed forward of `shape`
/// gets a version of static shape whose single block spreads the row over
/// more threads (chooseOneRowLayout). Empty where the forward does not
/// stream one row or that layout is its streaming layout already.
RowRange chooseOneRowForwardRows(const KernelShape &shape,
                                 const DeviceInfo &device);

/// The rows of M where the streamed forward of `shape` loads its column
/// inputs with the row, before the reductions (norm.preload_columns on a
/// version of its own), where preloadsColumns keeps them for the output
/// pass: up to one block an SM (M <= numSMs), where no other block hides
/// the second round trip to memory. Empty where the forward does not
/// stream, does not hold its row, or preloads at every M.
RowRange choosePreloadedColumnsRows(const KernelShape &shape,
                                    const DeviceInfo &device);

/// Empty if `limit` is a valid short-rows option (-1: the rule, 0: off,
/// else the row limit), else the error.
std::string validateShortRowsLimit(int64_t limit);

/// Empty if `mode` is a valid warp-rows option (-1: the rule, 0: never, 1:
/// every band of held rows the warps share out evenly), else the error.
std::string validateWarpRows(int64_t mode);

/// The blocks of a column kernel (a norm.fused op whose outputs are all
/// column outputs, not split: norm.whole_columns) of `shape`: lanes across
/// the columns loading 16-byte vectors of the narrowest full input (of
/// vectorWidth elements), times row groups that each walk every groups()-th
/// row, unroll rows at a time. Few lanes, so that a few rows still spread
/// over enough blocks.
CombineLayout chooseColumnKernelLayout(const KernelShape &shape,
                                       const DeviceInfo &device);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_SHORT_ROWS_H
