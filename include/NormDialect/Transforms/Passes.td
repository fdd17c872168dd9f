//===- Passes.td - norm transformation passes --------------*- tablegen -*-===//

#ifndef NORM_TRANSFORMS_PASSES_TD
#define NORM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NormRaise : Pass<"norm-raise"> {
  let summary = "Raise RMSNorm and LayerNorm written in linalg into norm's ops";
  let description = [{
    Finds, in linalg-on-tensors IR (what torch-mlir, IREE's importers and
    other MLIR front ends make of `aten.rms_norm`, `aten.layer_norm` and
    the norms written out in model code), the computations that are RMSNorm,
    LayerNorm or the L2 norm and rewrites each into `norm.rms_norm` /
    `norm.layer_norm`, or, for the L2 norm (`x / sqrt(sum x^2 + eps)`,
    which has no user op), into the row `norm.reduce` and the `norm.map`s
    of norm_mlir's `l2_fwd`; everything else stays. A computation is read through its elementwise
    `linalg.generic` ops, its sums over the last dimension (a generic with a
    trailing reduction into a zero `linalg.fill`) and the reshapes that add
    or drop a trailing unit dimension, and is matched by what it computes,
    not by how the ops are split: the row mean as the sum divided by the row
    length N (or multiplied by 1/N), epsilon added before `math.rsqrt` (or
    `1 / math.sqrt`, or the rows divided by `math.sqrt`), squares as products or `math.fpowi` / `math.powf` by
    2, the rows read in their own type or extended to f32, an optional
    weight (with Gemma's `1 + w` as RMSNorm's weight offset) and bias
    (LayerNorm), and y rounded to x's type at the end or kept in f32.
    Hugging Face's RMSNorm, which multiplies the weight into y already
    rounded to x's type, is raised too: norm's op rounds once, after the
    product. Each statistic is recomputed from the rows, so the rewrite
    holds whatever else reads the original ops (those that nothing reads
    any more are erased). A computation that scales rows by an rsqrt or sqrt
    of a row sum but is neither norm (another divisor than N, no epsilon,
    a bias on RMSNorm, the mean of other values subtracted, y rounded to a
    third type, ...) gets a remark saying what differs, and stays.
  }];
  let dependentDialects = ["::mlir::norm::NormDialect"];
}

def NormDecompose : Pass<"norm-decompose"> {
  let summary = "Rewrite user-level norm ops into order-typed reductions";
  let description = [{
    Rewrites `norm.rms_norm`, `norm.layer_norm` and their `_grad` ops into
    `norm.reduce` ops with explicit order types (`row` for per-row statistics
    and the dx terms, `col` for dW and dB) and `norm.map` ops for the
    elementwise work. Leading dimensions are collapsed into one row dimension
    M and expanded back on the results.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def NormFuseMixedOrder : Pass<"norm-fuse-mixed-order"> {
  let summary = "Fuse row and column reductions that read the same inputs";
  let description = [{
    Groups `norm.reduce` and `norm.map` ops into `norm.fused` kernels. Ops of
    different order types that read the same inputs (the backward's dx row
    reductions and its dW/dB column reductions) share one kernel, so every
    input is read once. An op that needs a finished column result stays out
    of the kernel producing it. The decision is `planMixedOrderFusion` in
    `NormDialect/Tuning/FusionPlan.h`; with `report=true` each decision
    not to fuse is reported as a remark at the op.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every op left out of a kernel, saying why">,
    Option<"fuse", "fuse", "bool", /*default=*/"true",
           "Fuse connected ops; false forms one kernel per op (the unfused "
           "baseline, used to check fusion against)">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def NormSetTarget : Pass<"norm-set-target", "::mlir::ModuleOp"> {
  let summary = "Declare the GPU the module's kernels are planned for";
  let description = [{
    Sets the module's `norm.target` (`#norm.target<num_sms, register_budget,
    max_cluster_size, max_threads_per_block, shared_memory_per_block,
    shared_memory_per_sm, threads_per_sm, registers_per_sm,
    compute_capability>`: what the
    Python package reads from the CUDA driver for the GPU a program runs
    on), which every pass that plans
    or lowers kernels reads (`norm-short-rows`, `norm-split-rows`,
    `norm-plan-kernels`, `convert-norm-to-gpu`): the device is declared here once, by these
    options, instead of by each pass. Options left 0 take the values of
    the GPU the compute capability names (90: an H100 SXM / H200; 80 gives an A100's 108 SMs, 163 KB of shared
    memory a block and no clusters; 100 a B200's 148 SMs; 120 an RTX 5090's;
    `deviceOfCapability` in NormDialect/Tuning/DeviceInfo.h). A target the
    module already has is replaced. Values the tuning rules do not take are
    refused before the pass sees any IR.
  }];
  let options = [
    Option<"numSMs", "num-sms", "int64_t", /*default=*/"0",
           "Streaming multiprocessors of the target (0: the compute "
           "capability's GPU's, 132 for 90)">,
    Option<"registerBudget", "register-budget", "int64_t", /*default=*/"32",
           "Elements of all full operands a thread keeps in registers">,
    Option<"maxClusterSize", "max-cluster-size", "int64_t", /*default=*/"0",
           "Most blocks of a thread block cluster sharing a long row (1: no "
           "clusters; 1, 2, 4, 8 or 16; 0: the compute capability's, 16 for "
           "90)">,
    Option<"maxThreads", "max-threads", "int64_t", /*default=*/"0",
           "Largest thread block the target launches (a multiple of 32; 0: "
           "1024)">,
    Option<"sharedMemoryPerBlock", "shared-memory-per-block", "int64_t",
           /*default=*/"0",
           "Shared memory one block may opt into (bytes; 0: the compute "
           "capability's GPU's, 232448 for 90)">,
    Option<"sharedMemoryPerSM", "shared-memory-per-sm", "int64_t",
           /*default=*/"0",
           "Shared memory of one SM (bytes; 0: the compute capability's "
           "GPU's, 233472 for 90)">,
    Option<"threadsPerSM", "threads-per-sm", "int64_t", /*default=*/"0",
           "Threads one SM holds (0: the compute capability's GPU's, 2048 "
           "for 90)">,
    Option<"registersPerSM", "registers-per-sm", "int64_t",
           /*default=*/"0",
           "32-bit registers of one SM (0: the compute capability's GPU's, "
           "65536)">,
    Option<"computeCapability", "compute-capability", "int64_t",
           /*default=*/"90",
           "Compute capability, major * 10 + minor (80 or more; below 90 "
           "max-cluster-size must be 1)">,
  ];
  let dependentDialects = ["::mlir::norm::NormDialect"];
}

def NormPlanKernels : Pass<"norm-plan-kernels", "::mlir::ModuleOp"> {
  let summary = "Decide how each norm.fused kernel is generated and launched";
  let description = [{
    The one caller of the tuning library's kernel plan (`planKernel`,
    NormDialect/Tuning/KernelPlan.h): for each `norm.fused` op with a static
    N it writes a `#norm.plan` (kernel kind, thread layout, staging, rows a
    block walks, blocks per SM, persistent grid) from the kernel's shape,
    the module's `norm.target`, the measured tuning table and these options;
    `norm-split-reduction` and `convert-norm-to-gpu` read it and decide
    nothing again. A plan already on an op (written by hand) is kept.

    The per-kernel attributes `norm-short-rows` sets (`norm.stream_rows`,
    `norm.warp_rows`, `norm.rows_per_block`, `norm.rows_below`,
    `norm.vector_width`, `norm.min_blocks_per_sm`, `norm.whole_columns`)
    are requests to this pass, as are the options below, which an op's own
    attribute overrides. A whole-column kernel (`norm.whole_columns`, only
    column outputs) gets no plan: its layout is the column kernel's rule.
    A kernel directly followed by a whole-column kernel that does not read
    its results (`norm-short-rows`' pair, which `convert-norm-to-gpu` runs
    side by side) leaves SMs for the column blocks.

    Runs before `norm-split-reduction` on tensors, or on bufferized kernels
    before `convert-norm-to-gpu`.
  }];
  let options = [
    Option<"tuningTable", "tuning-table", "std::string", /*default=*/"\"\"",
           "Measured tuning table (tuning/<device>.json) consulted before the "
           "analytic rules">,
    Option<"sharedStages", "shared-stages", "int64_t", /*default=*/"-1",
           "Rows of the full inputs staged ahead in shared memory by bulk "
           "copies (cp.async.bulk + mbarrier) where the kernel allows it; "
           "0: prefetch the next row into registers (--norm-pipeline); -1: "
           "the tuning table's depth, else the analytic rule">,
    Option<"streamRows", "stream-rows", "bool", /*default=*/"false",
           "Stream the rows of forward kernels in vector chunks, one pass per "
           "row reduction and one for the outputs (later passes read the row "
           "from L2) instead of holding it on chip (experimental)">,
    Option<"persistent", "persistent", "bool", /*default=*/"true",
           "Give forwards over clusters a persistent grid (rows strided by "
           "the grid, which the launch may cap at the clusters that fit)">,
    Option<"l2PrefetchRows", "l2-prefetch-rows", "int64_t",
           /*default=*/"-1",
           "Forwards also prefetch their full inputs this many rows ahead "
           "into L2 (cp.async.bulk.prefetch; walk steps for a persistent "
           "grid; 0: off; -1: the tuning rule)">,
    Option<"bulkStores", "bulk-stores", "int64_t", /*default=*/"-1",
           "Kernels that stage their rows write their full outputs' rows to "
           "shared memory and store each with one bulk copy "
           "(cp.async.bulk shared to global) where the kernel allows it (1: "
           "on; 0: off, every thread stores its vectors; -1: the tuning "
           "rule)">,
    Option<"minBlocksPerSM", "min-blocks-per-sm", "int64_t", /*default=*/"0",
           "Blocks per SM the register allocation of row kernels must allow "
           "(PTX .minnctapersm; 0: the kernel's norm.min_blocks_per_sm, else "
           "the tuning table's or rule's, else ptxas chooses)">,
    Option<"rowsPerBlock", "rows-per-block", "int64_t", /*default=*/"0",
           "Rows a block walks in kernels without column outputs, or holds "
           "in a streamed kernel that keeps its rows in registers (0: tuning "
           "rule; a kernel's norm.rows_per_block attribute wins)">,
  ];
  let dependentDialects = ["::mlir::norm::NormDialect"];
}

def NormShortRows : Pass<"norm-short-rows"> {
  let summary = "Version kernels on M: few rows run a short-rows version";
  let description = [{
    Versions each `norm.fused` kernel that mixes row work (row reductions,
    full outputs) with column outputs on its row count M. Below a limit
    (`chooseShortRowsLimit` in NormDialect/Tuning/ShortRows.h, or the
    `short-rows` option) the kernel becomes two: the row part, and a column
    part marked `norm.whole_columns` that `norm-split-reduction` leaves
    whole, so that it lowers to a column kernel summing all M rows of its
    columns. The two read x and dy each but depend on each other in nothing,
    so the GPU runs them at once; the fused kernel they replace must finish
    its partial rows before the combine can start, and at a few rows that
    round trip costs more than the second read. With a dynamic M the two
    versions sit in an `scf.if` on `M < limit` whose branches write the same
    destinations; with a static M the version is chosen here. At one row
    (`chooseSingleBlockRows`) the short version is the fused kernel itself
    over one block (`norm.whole_columns` with its row work), its operands
    cast to one row (`tensor.cast` to 1 x N) so that the lowering sees M =
    1; no row at all takes the two kernels. Kernels whose
    column outputs need a row reduction of the same kernel stay as they are.

    Forwards are versioned the same way in the rows `chooseStreamedRows`
    gives (LayerNorm below 5M elements at N = 1025-4096, RMSNorm rows a
    block holds in more than one vector a thread below 6M): that version
    carries `norm.stream_rows`, and the GPU lowering streams its rows
    instead of staging them (one vector a thread, the row kept in
    registers), which starts sooner when each SM has a few rows. Where the
    rows cover every M (RMSNorm at N = 1000-4096, LayerNorm at N =
    1000-1024, inference forwards of both from N = 768) the kernel itself
    is marked, with no version. The option
    replaces a range by `[0, short-rows)`.

    Where the streamed block is at most 128 threads with one vector each
    (N <= 1024 bf16), the streamed kernel is versioned once more: from 24
    rows per SM on (`chooseHeldRows`, 3168 rows at 132 SMs; 16 rows per SM
    where the row leaves some of the block's threads without a vector) it
    carries `norm.rows_per_block = 4`, and each block loads four rows at
    once and reduces them in one exchange; below, a block takes one row
    (four rows a block there leave SMs idle and lost 4-34%). Where the
    block covers the row exactly (N = 1024) the rows held come in bands
    of M, versions in a chain: four a block up to 32 rows per SM (one wave
    of such blocks, 4224 rows), three up to 128 rows per SM, four beyond;
    in the first band an RMSNorm's version also carries `norm.warp_rows`,
    and each of the block's four warps holds a row of its own, reduced by
    shuffles without a barrier (the `warp-rows` option: 0 never, 1 in
    every band of four rows). LayerNorm's inference forward at N = 384
    (bf16) carries `norm.vector_width = 4` from 99 rows up to 24 rows per
    SM: three warps a block, each holding a row in vectors of 8 bytes that
    fill its lanes, where 16-byte vectors leave half a warp idle.
    The blocks of one warp (N = 256 bf16) of RMSNorm's forwards and
    LayerNorm's inference forward get two versions of each band: for M a
    multiple of the block's rows one carrying
    `norm.rows_multiple`, whose blocks check none of their rows against M
    (`HeldRows::wholeBlocksVersion`; the branch tests M's remainder), and
    the bounded one for other M, which for LayerNorm carries
    `norm.whole_blocks_branch`: its kernel gives every block but the
    grid's last the code without bounds (`HeldRows::wholeBlocksBranch`).
    LayerNorm's inference forward at N = 512 (bf16) does the same in its
    bands whose two warps hold rows of their own.
    A forward of two full inputs (the gated RMSNorm's x and z) holds four
    rows a block, the warp's own, only in blocks of one warp (N = 256
    bf16) and from 64 rows per SM on; elsewhere, and in a residual add's
    forward, a row a block.
    Below the bands, a row a block: up to one
    block an SM (`choosePreloadedColumnsRows`) LayerNorm's version carries
    `norm.preload_columns` and loads its weight and bias with the row; one
    row (`chooseOneRowForwardRows`) is a version of its own cast to 1 x N,
    like the backwards' single block, whose one block the GPU lowering
    spreads over more threads of narrower vectors (`chooseOneRowLayout`).
    The `short-rows` option turns all of this off with the rest of the
    rule.
  }];
  let options = [
    Option<"shortRows", "short-rows", "int64_t", /*default=*/"-1",
           "Rows below which kernels take their short version: -1 the "
           "tuning rules, 0 never, else the limit (for the kernels the "
           "rules version)">,
    Option<"warpRows", "warp-rows", "int64_t", /*default=*/"-1",
           "Where a streamed forward's blocks hold several rows, whether "
           "each warp owns its rows (norm.warp_rows): -1 the tuning rule, "
           "0 never, 1 wherever the rows divide among the warps">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def NormSplitReduction : Pass<"norm-split-reduction"> {
  let summary = "Split column reductions into partial sums and a combine";
  let description = [{
    A `norm.fused` kernel with column outputs writes f32 partial sums, one row
    per `S` input rows, into a `ceil(M/S) x N` workspace; `norm.combine` then
    sums the partials in a fixed order. No atomics: results are bitwise
    reproducible. `S` comes from the kernel's `norm.split_size` attribute if
    present, else from the `split-size` option, else from
    `chooseSplitSize` (NormDialect/Tuning/Splits.h), which also needs to
    know whether the GPU lowering will spread the kernel's rows over a
    thread block cluster (the kernel's `norm.plan`, from
    `norm-plan-kernels`). The split also gets `min_partials` F (the option,
    else `chooseMinPartials` from the kernel's plan): a small M then takes fewer rows per partial
    so that the GPU still gets enough blocks, and a large M spreads its rows
    over whole waves of F partial rows of at most `S` rows each. With the
    rule's F, a partial row sums at least `min_rows_per_partial` K rows
    (the option, else `chooseMinRowsPerPartial`): fewer partial rows at a
    few hundred rows where one wave counts several blocks per SM. Split
    kernels of one-warp blocks also get `max_partials` P (the option, else
    `chooseMaxPartials`: one wave of the blocks the GPU holds) and split 16,
    so that past F x 16 rows one wave of P partial rows replaces the waves
    of F. A static M gets the same partial rows as a dynamic one.
  }];
  let options = [
    Option<"splitSize", "split-size", "int64_t", /*default=*/"0",
           "Rows per partial sum (0: let the heuristic choose)">,
    Option<"minPartials", "min-partials", "int64_t", /*default=*/"-1",
           "Fewest partial rows when M allows (-1: the tuning rule, 0: off)">,
    Option<"minRowsPerPartial", "min-rows-per-partial", "int64_t",
           /*default=*/"-1",
           "Fewest rows a partial row sums where min_partials spreads M "
           "(-1: the tuning rule, 0: off)">,
    Option<"maxPartials", "max-partials", "int64_t", /*default=*/"-1",
           "Most partial rows where min_partials spreads M (-1: the tuning "
           "rule, 0: off)">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def NormSplitRows : Pass<"norm-split-rows"> {
  let summary = "Split long-row kernels into a row-statistics kernel and the rest";
  let description = [{
    The row direction of split reduction. A `norm.fused` kernel whose rows do
    not fit on chip (`rowsFitOnChip`, NormDialect/Tuning/ClusterLayouts.h: neither in
    one block's registers nor spread over a thread block cluster of at most
    `max-cluster-size` blocks, nor, on a target without clusters, over a
    block group (a backward with one row reduction), nor, for a backward,
    over up to 8 blocks that
    stage `shared-stages` slices and re-read them) becomes two kernels: one computing every `norm.row_reduce` of the body as
    a `row` output (it streams the row in chunks, so no row has to fit
    anywhere), and the original kernel reading those statistics as `row`
    inputs instead of reducing. The second kernel has no row reduction left,
    so it can cut rows into column slices that work independently. The price
    is one more read of the inputs the statistics need.
  }];
  let options = [
    Option<"always", "always", "bool", /*default=*/"false",
           "Split every kernel with row reductions, whatever N is">,
    Option<"sharedStages", "shared-stages", "int64_t", /*default=*/"-1",
           "Staging depth norm-plan-kernels is asked for (-1: the rule, "
           "0: off); a backward's rows staged and re-read over a cluster "
           "need it">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def NormPipeline : Pass<"norm-pipeline"> {
  let summary = "Software-pipeline the row loops of norm GPU kernels";
  let description = [{
    Pipelines every `scf.for` marked `norm.row_loop` by convert-norm-to-gpu:
    the loads of a row (ops marked `norm.prefetch`) run `num-stages - 1`
    iterations ahead of the computation, so the next rows' data is in flight
    while the current row is reduced and stored. Built on upstream
    `scf::pipelineForLoop` with a two-level schedule (loads in stage 0,
    everything else in the last stage); prologue and epilogue ops are
    predicated on the row existing, since the trip count is dynamic: wrapped
    in `scf.if`, or, for an op marked `norm.predicate_operand` (the number
    of an i1 operand saying whether it takes effect: the row kernels'
    predicated `ld.global`), by ANDing the row's existence into that
    operand, which keeps the loads in one basic block. A loop's
    `norm.num_stages` attribute (from the kernel's) overrides the option.
    The prefetched data lives in registers (the loop's iter_args), so deeper
    pipelines cost registers rather than shared memory. The epilogue is
    peeled (a copy of the last stage, unguarded), except on loops marked
    `norm.predicate_epilogue`: rows staged in shared memory, which the
    kernel pipelines itself (cp.async.bulk + mbarrier), so only their row
    inputs (a backward's mean and rstd) load early; there the loop runs
    every row and guards the next row's loads, keeping one copy of the row
    body.
  }];
  let options = [
    Option<"numStages", "num-stages", "int64_t", /*default=*/"2",
           "Pipeline depth (1: leave the loops alone)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect", "::mlir::ub::UBDialect"];
}

#endif // NORM_TRANSFORMS_PASSES_TD
