//===- Pipelines.h - norm compilation pipelines -----------------*- C++ -*-===//
//
// The registered pipelines from user-level norm IR down to GPU kernels and
// PTX. A host compiler that embeds norm can call the builders directly.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_PIPELINES_PIPELINES_H
#define NORMDIALECT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace norm {

/// Options of the norm-to-gpu and norm-to-ptx pipelines.
struct NormToPTXOptions : public PassPipelineOptions<NormToPTXOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target GPU (PTX .target)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features, e.g. +ptx81 "
                                              "(empty: the chip's oldest the "
                                              "kernels can use)"),
                               llvm::cl::init("")};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("LLVM optimization level (0-3)"),
                       llvm::cl::init(3)};
  Option<int64_t> splitSize{
      *this, "split-size",
      llvm::cl::desc("Rows per column partial (0: heuristic)"),
      llvm::cl::init(0)};
  Option<int64_t> minPartials{
      *this, "min-partials",
      llvm::cl::desc("Fewest column partials when M allows (-1: tuning "
                     "rule, 0: off)"),
      llvm::cl::init(-1)};
  Option<int64_t> minRowsPerPartial{
      *this, "min-rows-per-partial",
      llvm::cl::desc("Fewest rows a column partial sums where min-partials "
                     "spreads M (-1: tuning rule, 0: off)"),
      llvm::cl::init(-1)};
  Option<int64_t> maxPartials{
      *this, "max-partials",
      llvm::cl::desc("Most column partials where min-partials spreads M (-1: "
                     "tuning rule, 0: off)"),
      llvm::cl::init(-1)};
  Option<int64_t> registerBudget{
      *this, "register-budget",
      llvm::cl::desc("Elements of all full operands a thread keeps in "
                     "registers (tuning)"),
      llvm::cl::init(32)};
  Option<int64_t> numStages{
      *this, "num-stages",
      llvm::cl::desc("Software pipeline depth of the row loops (1: off)"),
      llvm::cl::init(2)};
  Option<int64_t> rowsPerBlock{
      *this, "rows-per-block",
      llvm::cl::desc("Rows a block walks when there is no split (0: tuning)"),
      llvm::cl::init(0)};
  Option<std::string> tuningTable{
      *this, "tuning-table",
      llvm::cl::desc("Measured tuning table (tuning/<device>.json)"),
      llvm::cl::init("")};
  Option<int64_t> maxClusterSize{
      *this, "max-cluster-size",
      llvm::cl::desc("Most blocks of a thread block cluster sharing a long "
                     "row (1: no clusters: RMSNorm's long backward rows go to "
                     "block groups, other long rows are split or streamed; "
                     "0: the chip's GPU's, 16 for sm_90, 1 for sm_80)"),
      llvm::cl::init(0)};
  Option<int64_t> sharedStages{
      *this, "shared-stages",
      llvm::cl::desc("Rows staged ahead in shared memory by bulk copies (0: "
                     "register prefetch; -1: tuning table, else the rule)"),
      llvm::cl::init(-1)};
  Option<bool> raise{
      *this, "raise",
      llvm::cl::desc("First raise RMSNorm and LayerNorm written in linalg "
                     "into norm's ops (--norm-raise); the rest of the module "
                     "is left, bufferized, to the host compiler"),
      llvm::cl::init(false)};
  Option<bool> streamRows{
      *this, "stream-rows",
      llvm::cl::desc("Stream forward rows in chunks, re-reading them from L2 "
                     "(experimental)"),
      llvm::cl::init(false)};
  Option<bool> persistent{
      *this, "persistent",
      llvm::cl::desc("Persistent grids for forwards over clusters (rows "
                     "strided by the grid, capped at launch)"),
      llvm::cl::init(true)};
  Option<int64_t> l2PrefetchRows{
      *this, "l2-prefetch-rows",
      llvm::cl::desc("Rows (persistent grids: walk steps) ahead that "
                     "forwards prefetch into L2 (0: off; -1: the tuning "
                     "rule)"),
      llvm::cl::init(-1)};
  Option<int64_t> bulkStores{
      *this, "bulk-stores",
      llvm::cl::desc("Staged kernels store their full outputs' rows by bulk "
                     "copies from shared memory (1: on; 0: off; -1: the "
                     "tuning rule)"),
      llvm::cl::init(-1)};
  Option<int64_t> shortRows{
      *this, "short-rows",
      llvm::cl::desc("Rows below which kernels mixing row and column "
                     "reductions run as a row and a column kernel side by "
                     "side (0: never; -1: the tuning rule)"),
      llvm::cl::init(-1)};
  Option<int64_t> warpRows{
      *this, "warp-rows",
      llvm::cl::desc("Where a streamed forward's blocks hold several rows, "
                     "each warp owns rows of its own (1: wherever the rows "
                     "divide among the warps; 0: never; -1: the tuning rule)"),
      llvm::cl::init(-1)};
  Option<bool> fpContract{
      *this, "fp-contract",
      llvm::cl::desc("Fuse the kernels' float multiplies and adds into FMAs"),
      llvm::cl::init(true)};
  Option<int64_t> minBlocksPerSM{
      *this, "min-blocks-per-sm",
      llvm::cl::desc("Blocks per SM the register allocation of row kernels "
                     "must allow (0: the kernel's norm.min_blocks_per_sm, else "
                     "the tuning table's or rule's, else ptxas chooses)"),
      llvm::cl::init(0)};
  Option<int64_t> combineLanes{
      *this, "combine-lanes",
      llvm::cl::desc("Threads across the columns of a combine block (0: the "
                     "tuning rule)"),
      llvm::cl::init(0)};
  Option<int64_t> combineThreads{
      *this, "combine-threads",
      llvm::cl::desc("Threads of a combine block (0: the tuning rule)"),
      llvm::cl::init(0)};
  Option<int64_t> numSMs{
      *this, "num-sms",
      llvm::cl::desc("Multiprocessors of the target (0: the chip's GPU's)"),
      llvm::cl::init(0)};
  Option<int64_t> maxThreads{
      *this, "max-threads",
      llvm::cl::desc(
          "Largest thread block the target launches (0: the chip's GPU's)"),
      llvm::cl::init(0)};
  Option<int64_t> sharedMemoryPerBlock{
      *this, "shared-memory-per-block",
      llvm::cl::desc(
          "Shared memory one block may opt into (bytes; 0: the chip's GPU's)"),
      llvm::cl::init(0)};
  Option<int64_t> sharedMemoryPerSM{
      *this, "shared-memory-per-sm",
      llvm::cl::desc("Shared memory of one SM (bytes; 0: the chip's GPU's)"),
      llvm::cl::init(0)};
  Option<int64_t> threadsPerSM{
      *this, "threads-per-sm",
      llvm::cl::desc("Threads one SM holds (0: the chip's GPU's)"),
      llvm::cl::init(0)};
  Option<int64_t> registersPerSM{
      *this, "registers-per-sm",
      llvm::cl::desc("32-bit registers of one SM (0: the chip's GPU's)"),
      llvm::cl::init(0)};
};

/// User-level norm IR on tensors -> gpu.module kernels launched from a host
/// function on memrefs: the target, decompose, mixed-order fusion, short
/// rows, row split of long rows, kernel plans, split reduction, one-shot
/// bufferization (contiguous memrefs at function boundaries),
/// convert-norm-to-gpu, cleanup.
void buildNormToGPUPipeline(OpPassManager &pm, const NormToPTXOptions &options);

/// The GPU-dialect output of buildNormToGPUPipeline -> NVVM -> a gpu.binary
/// holding PTX for `chip` (upstream gpu-lower-to-nvvm-pipeline).
void buildGPUToPTXPipeline(OpPassManager &pm, const NormToPTXOptions &options);

/// Both of the above: norm IR to PTX.
void buildNormToPTXPipeline(OpPassManager &pm, const NormToPTXOptions &options);

/// User-level norm IR -> LLVM dialect for the CPU: decompose, fusion, split
/// reduction, one-shot bufferization, convert-norm-to-loops, then the
/// upstream lowering to LLVM. The numerical reference path.
void buildNormToCPUPipeline(OpPassManager &pm, const NormToPTXOptions &options);

/// The CPU half of the above: bufferized norm kernels through
/// convert-norm-to-loops to the LLVM dialect (tests that pick their own
/// kernel passes end with it).
void buildNormLoopsToLLVMPipeline(OpPassManager &pm);

/// Registers `norm-to-gpu`, `norm-to-ptx` and `norm-to-cpu` with the pass
/// registry.
void registerNormPipelines();

} // namespace norm
} // namespace mlir

#endif // NORMDIALECT_PIPELINES_PIPELINES_H
