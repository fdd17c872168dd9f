//===- NormOps.td - norm dialect operations ----------------*- tablegen -*-===//
//
// Three levels live here:
//   1. user ops:           norm.rms_norm, norm.layer_norm and their _grad ops;
//   2. order-typed ops:    norm.reduce (row/col) and norm.map (elementwise);
//   3. kernel ops:         norm.fused (one kernel over all rows, mixing row and
//                          column reductions) and norm.combine (the finishing
//                          reduction of split column partials).
// Levels 1 and 2 are tensor-only; level 3 is in destination-passing style and
// exists both on tensors and, after bufferization, on memrefs.
//
//===----------------------------------------------------------------------===//

#ifndef NORM_OPS_TD
#define NORM_OPS_TD

include "NormDialect/IR/NormDialect.td"
include "NormDialect/IR/NormAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/IR/OpAsmInterface.td"

def Norm_FloatTensor : RankedTensorOf<[BF16, F16, F32]>;

//===----------------------------------------------------------------------===//
// Level 1: user ops
//===----------------------------------------------------------------------===//

def Norm_RMSNormOp : Norm_Op<"rms_norm", [Pure]> {
  let summary = "RMSNorm forward: y = x * rstd * (w + offset)";
  let description = [{
    Normalizes the innermost dimension of `x` (rows are all leading
    dimensions): `rstd = 1 / sqrt(mean(x^2) + epsilon)` per row and
    `y = x * rstd * (weight + weight_offset)`. `weight_offset` is 1 for Gemma's
    `(1 + w)` convention. Without a weight, `y = x * rstd`. `rstd` has the
    leading dimensions of `x` and is f32. `y` has x's type or is f32, so that
    an elementwise consumer (a gate multiplied into it) rounds once, after
    its own work; fused into the kernel, the f32 y is never stored.

    ```mlir
    %y, %rstd = norm.rms_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 1.0e-6 : f64}
        : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>
    ```
  }];
  let arguments = (ins Norm_FloatTensor:$x, Optional<Norm_FloatTensor>:$weight,
                   F64Attr:$epsilon,
                   DefaultValuedAttr<F64Attr, "0.0">:$weight_offset);
  let results = (outs Norm_FloatTensor:$y, Norm_FloatTensor:$rstd);
  let assemblyFormat = [{
    $x (`weight` `(` $weight^ `:` type($weight) `)`)? attr-dict `:`
    type($x) `->` type($y) `,` type($rstd)
  }];
  let hasVerifier = 1;
}

def Norm_LayerNormOp : Norm_Op<"layer_norm", [Pure, AttrSizedOperandSegments]> {
  let summary = "LayerNorm forward: y = (x - mean) * rstd * (w + offset) + b";
  let description = [{
    Per row: `mean = mean(x)`, `rstd = 1 / sqrt(mean((x - mean)^2) + epsilon)`,
    `y = (x - mean) * rstd * (weight + weight_offset) + bias`; weight and
    bias are optional. `weight_offset` is 1 for a zero-centered weight
    (Megatron's LayerNorm1P, Transformer Engine's zero_centered_gamma),
    computed in f32 as for `norm.rms_norm`. `y` has x's type or is f32 (as
    for `norm.rms_norm`).

    ```mlir
    %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1024xf32>) bias(%b : tensor<1024xf32>)
        {epsilon = 1.0e-5 : f64} : tensor<8x1024xbf16> -> tensor<8x1024xbf16>, tensor<8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Norm_FloatTensor:$x, Optional<Norm_FloatTensor>:$weight,
                   Optional<Norm_FloatTensor>:$bias, F64Attr:$epsilon,
                   DefaultValuedAttr<F64Attr, "0.0">:$weight_offset);
  let results = (outs Norm_FloatTensor:$y, Norm_FloatTensor:$mean,
                 Norm_FloatTensor:$rstd);
  let assemblyFormat = [{
    $x (`weight` `(` $weight^ `:` type($weight) `)`)?
       (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict `:`
    type($x) `->` type($y) `,` type($mean) `,` type($rstd)
  }];
  let hasVerifier = 1;
}

def Norm_RMSNormGradOp : Norm_Op<"rms_norm_grad", [Pure]> {
  let summary = "RMSNorm backward: dx and (with a weight) dw";
  let description = [{
    Given `dy`, the forward input `x` and its saved `rstd`:
    `g = dy * (w + offset)`, `c = mean(g * xhat)` per row,
    `dx = rstd * (g - xhat * c)` and `dw = sum over rows of dy * xhat`, where
    `xhat = x * rstd`. `dw` is present exactly when a weight is given. `dx`
    has x's type or is f32, so that an elementwise consumer (the residual
    gradient of a pre-norm block added to it) rounds once, after the sum;
    fused into the kernel, the f32 dx is never stored.
  }];
  let arguments = (ins Norm_FloatTensor:$dy, Norm_FloatTensor:$x,
                   Norm_FloatTensor:$rstd, Optional<Norm_FloatTensor>:$weight,
                   DefaultValuedAttr<F64Attr, "0.0">:$weight_offset);
  let results = (outs Norm_FloatTensor:$dx, Optional<Norm_FloatTensor>:$dw);
  let assemblyFormat = [{
    $dy `,` $x `,` $rstd (`weight` `(` $weight^ `:` type($weight) `)`)? attr-dict
    `:` type($dy) `,` type($x) `,` type($rstd) `->` type($dx) (`,` type($dw)^)?
  }];
  let hasVerifier = 1;
}

def Norm_LayerNormGradOp : Norm_Op<"layer_norm_grad",
    [Pure, AttrSizedResultSegments]> {
  let summary = "LayerNorm backward: dx, dw (with a weight), db (with a bias)";
  let description = [{
    `g = dy * (w + weight_offset)`, per row `a = mean(g)` and
    `c = mean(g * xhat)`,
    `dx = rstd * (g - a - xhat * c)`; per column `dw = sum_i dy * xhat` and
    `db = sum_i dy`. `dw` is present exactly when a weight is given, `db`
    exactly when `has_bias` is set. `dx` has x's type or is f32 (as for
    `norm.rms_norm_grad`).
  }];
  let arguments = (ins Norm_FloatTensor:$dy, Norm_FloatTensor:$x,
                   Norm_FloatTensor:$mean, Norm_FloatTensor:$rstd,
                   Optional<Norm_FloatTensor>:$weight, UnitAttr:$has_bias,
                   DefaultValuedAttr<F64Attr, "0.0">:$weight_offset);
  let results = (outs Norm_FloatTensor:$dx, Optional<Norm_FloatTensor>:$dw,
                 Optional<Norm_FloatTensor>:$db);
  let assemblyFormat = [{
    $dy `,` $x `,` $mean `,` $rstd (`weight` `(` $weight^ `:` type($weight) `)`)?
    attr-dict `:` type($dy) `,` type($x) `,` type($mean) `,` type($rstd)
    `->` type($dx) (`dw` type($dw)^)? (`db` type($db)^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Level 2: order-typed reductions and elementwise maps
//===----------------------------------------------------------------------===//

def Norm_ReduceOp : Norm_Op<"reduce", [Pure, SingleBlock]> {
  let summary = "Reduction with an explicit order type";
  let description = [{
    Iterates over rows `i` and columns `j` of an M x N space. For each (i, j)
    the region computes a value from the operands' elements (each operand is
    read according to its role: `full` at (i, j), `row` at i, `col` at j); the
    values are combined along the order: `#norm.order<row>` gives one value
    per row (result `tensor<M x T>`), `#norm.order<col>` one per column
    (result `tensor<N x T>`), `#norm.order<group>` one per row and group of
    `group_size` = G consecutive columns (result `tensor<M x (N/G) x T>`; G
    must divide N; `group` operands are read at (i, j / G)). The region
    yields f32; accumulation is in f32 and the result is rounded once to its
    element type T.
    The region may use values defined above it (constants such as 1/N).

    ```mlir
    %ss = norm.reduce <row> <add> ins(%x : full tensor<?x4096xbf16>) -> tensor<?xf32> {
    ^bb0(%e: bf16):
      %f = arith.extf %e : bf16 to f32
      %sq = arith.mulf %f, %f : f32
      norm.yield %sq : f32
    }
    ```

    A group reduction (the 1 x 128 scales of FP8 quantization):

    ```mlir
    %amax = norm.reduce <group> <max> ins(%y : full tensor<?x4096xf32>)
        {group_size = 128 : i64} -> tensor<?x32xf32> { ... }
    ```
  }];
  let arguments = (ins Norm_OrderAttr:$order, Norm_CombinerAttr:$combiner,
                   Variadic<AnyRankedTensor>:$inputs, Norm_RoleArrayAttr:$roles,
                   OptionalAttr<I64Attr>:$group_size);
  let results = (outs AnyRankedTensor:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $order $combiner `ins` custom<RoledOperands>($inputs, type($inputs), $roles)
    attr-dict `->` type($result) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Norm_MapOp : Norm_Op<"map", [Pure, SingleBlock]> {
  let summary = "Elementwise computation over the (row, column) space";
  let description = [{
    Computes one value per point of the result's role: `full` results are
    M x N (one value per (i, j)), `row` results are M-vectors, `col` results
    N-vectors, `group` results M x (N / G) (G = `group_size`). Operands are
    read according to their roles; a `row` result may read only `row`
    operands, a `col` result only `col` operands and a `group` result
    `group` and `row` operands (both the same across a group).
  }];
  let arguments = (ins Norm_RoleAttr:$result_role,
                   Variadic<AnyRankedTensor>:$inputs, Norm_RoleArrayAttr:$roles,
                   OptionalAttr<I64Attr>:$group_size);
  let results = (outs AnyRankedTensor:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $result_role `ins` custom<RoledOperands>($inputs, type($inputs), $roles)
    attr-dict `->` type($result) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Level 3: kernels
//===----------------------------------------------------------------------===//

def Norm_FusedOp : Norm_Op<"fused", [
    AttrSizedOperandSegments, SingleBlock,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DestinationStyleOpInterface]> {
  let summary = "One kernel over all rows mixing row and column reductions";
  let description = [{
    The mixed-order kernel. Its body runs once per point (i, j) of the M x N
    space with the operands' elements as scalar block arguments (read by
    role). Inside the body `norm.row_reduce` combines a value over the whole
    row i and gives the row's result to every point of it, so a row
    reduction and the elementwise work that needs its result share one read
    of the inputs. The terminator yields one value per output; each output's
    role says how it is written:
      * `full`: the M x N value at (i, j);
      * `row`:  the row-uniform value at i;
      * `col`:  the sum over all rows i of the value at (i, j) (a column
                reduction, accumulated in f32);
      * `group`: the value at (i, j / G), the same at every column of the
                group (G = `group_size`).
    `norm.group_reduce` combines a value over the G columns of the point's
    group, as `norm.row_reduce` does over the row; `group` inputs are read
    at (i, j / G).

    With `rows_per_partial = S`, `col` outputs are f32 partial sums of shape
    `ceil(M / R) x N` with R = S: partial p sums rows [p*R, (p+1)*R).
    `norm.combine` finishes them. Without it, `col` outputs are the finished
    N-vectors. With `min_partials = F` as well, R = max(1, ceil(ceil(M / F)
    / W)) with W = max(1, ceil(M / (F * S))) (1 only for M = 0, which has no
    partial rows): fewer rows per partial when M is small, so that there are
    about F partial rows (a GPU runs one block per partial row and needs
    enough of them to fill its multiprocessors), and past F * S rows a whole
    number W of such waves, each partial at most S rows. With
    `min_rows_per_partial = K` (1 to S; needs `min_partials`) R is at least
    K while that leaves ceil(F / 4) partial rows, i.e. at least
    max(1, min(K, ceil(M / ceil(F / 4)))): below F * K rows there are fewer
    than F partial rows, each of K rows, because a partial row costs its N
    sums written and combined however few rows it sums; below ceil(F / 4) * K
    rows the floor gives way to a quarter of F partial rows, which still
    spread small M over the GPU. With `max_partials = P` (at least F; needs
    `min_partials`) R is at least ceil(M / P) as well: at most P partial
    rows, one wave of the blocks the GPU holds at once, which past F * S
    rows takes over from the waves of F. R depends on M only, so the split
    stays deterministic.

    The op is in destination-passing style: on tensors it returns the updated
    `outs`; on memrefs it writes them and has no results.

    Two unit attributes describe how the GPU lowering builds the kernel;
    they do not change what it computes. `norm.whole_columns` (set by
    norm-short-rows on the column part of a kernel at few rows; verified: no
    split, column outputs present) keeps norm-split-reduction from splitting
    the column outputs, and a kernel with column outputs only then lowers to
    blocks across the columns that each sum every row. `norm.stream_rows`
    asks for the streamed kernel (one block a row, a pass per reduction
    over the row, re-read from L2 unless the block's threads hold it, up to
    four vectors each) as the norm-plan-kernels option `stream-rows` does
    for every forward. `norm.preload_columns` (verified: only with
    `norm.stream_rows`) asks a streamed kernel that holds its row in
    registers to load its column inputs (weight, bias) with the row, before
    the reductions, instead of where the output pass uses them:
    norm-short-rows sets it on the version of a few rows, where a block's
    second round trip to memory is not hidden by other blocks.
    `norm.rows_per_block = R` (a positive integer; not with a split) fixes
    the rows each block takes, as norm-plan-kernels' `rows-per-block`
    option does for every kernel: a streamed kernel that holds its rows in
    registers then loads R consecutive rows at once and reduces them in one
    exchange. `norm.min_blocks_per_sm = K` (1 to 32) asks that the kernel's
    registers allow K blocks on each multiprocessor (PTX `.minnctapersm`),
    as norm-plan-kernels' `min-blocks-per-sm` option does for every
    kernel: norm-short-rows sets it where one more block an SM keeps the
    grid in one wave. `norm.rows_below = B` (a positive integer; verified
    against a static M) says the kernel only runs where M < B:
    norm-short-rows sets it on the versions whose branches on M bound them
    from above, and the GPU lowering leaves out what only more rows would
    use (a streamed forward's L2 prefetch, issued from
    chooseL2PrefetchMinRows rows on). `norm.rows_multiple = K` (a positive
    integer; verified against a static M) says the kernel only runs where M
    is a multiple of K: norm-short-rows sets it on the versions its
    branches on M's remainder keep to such M, and where K is a multiple of
    the rows a block of a streamed forward holds, every block's rows exist
    and the GPU lowering checks none of them against M (and fences the
    loads of two or more preloaded column inputs, fencesColumnLoads).
    `norm.whole_blocks_branch` (a unit attribute) asks a streamed forward
    that holds several rows a block to branch on whether all of a block's
    rows exist: every block but the grid's last then runs its rows' code
    without checking them against M, and the last the bounded code;
    norm-short-rows sets it on the versions of held rows whose M is not a
    multiple of the block's rows (HeldRows::wholeBlocksBranch).
    `norm.vector_width = W` (a power of
    two that divides a static N, at most 16 bytes of elements) sets the
    elements of each vector access of a streamed forward in place of the
    widest that divides N: norm-short-rows sets it where narrower vectors
    fill whole warps that the widest leave partly idle (HeldRows).
  }];
  let arguments = (ins Variadic<AnyShaped>:$inputs, Norm_RoleArrayAttr:$roles,
                   Variadic<AnyShaped>:$outputs, Norm_RoleArrayAttr:$output_roles,
                   OptionalAttr<I64Attr>:$rows_per_partial,
                   OptionalAttr<I64Attr>:$min_partials,
                   OptionalAttr<I64Attr>:$min_rows_per_partial,
                   OptionalAttr<I64Attr>:$max_partials,
                   OptionalAttr<I64Attr>:$group_size);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `ins` custom<RoledOperands>($inputs, type($inputs), $roles)
    `outs` custom<RoledOperands>($outputs, type($outputs), $output_roles)
    (`->` type($results)^)? attr-dict-with-keyword $body
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getOutputsMutable(); }
    /// The role of input `i`.
    ::mlir::norm::Role getInputRole(unsigned i);
    /// The role of output `i`.
    ::mlir::norm::Role getOutputRole(unsigned i);
    /// True when some output is a column reduction.
    bool hasColumnOutputs();
    /// True when every output is a column reduction.
    bool hasOnlyColumnOutputs();
    /// The unit attribute marking a kernel whose column outputs sum whole
    /// columns (every row, no split): norm-split-reduction leaves it
    /// unsplit. With column outputs only it lowers to a column kernel (blocks
    /// across the columns), with row work too to one block over all rows.
    static constexpr ::llvm::StringLiteral getWholeColumnsAttrName() {
      return ::mlir::norm::NormDialect::WholeColumnsAttrHelper::getNameStr();
    }
    /// The unit attribute asking the GPU lowering to stream this kernel's
    /// rows through L2 (as norm-plan-kernels' stream-rows option does for
    /// every forward): norm-short-rows sets it on forwards of few rows.
    static constexpr ::llvm::StringLiteral getStreamRowsAttrName() {
      return ::mlir::norm::NormDialect::StreamRowsAttrHelper::getNameStr();
    }
    /// The unit attribute asking a streamed kernel (norm.stream_rows) that
    /// holds its row in registers to load its column inputs with the row;
    /// norm-short-rows sets it on the version of a few rows
    /// (choosePreloadedColumnsRows).
    static constexpr ::llvm::StringLiteral getPreloadColumnsAttrName() {
      return ::mlir::norm::NormDialect::PreloadColumnsAttrHelper::getNameStr();
    }
    /// The integer attribute fixing the rows each block of the GPU kernel
    /// takes (a kernel without a split); norm-short-rows sets it on streamed
    /// forwards whose blocks hold several rows at once.
    static constexpr ::llvm::StringLiteral getRowsPerBlockAttrName() {
      return ::mlir::norm::NormDialect::RowsPerBlockAttrHelper::getNameStr();
    }
    /// The unit attribute asking a streamed forward that holds its rows in
    /// registers to give each warp rows of its own (its rows_per_block rows,
    /// one warp's share each, reduced by warp shuffles without a barrier)
    /// instead of sharing each row among all its threads; norm-short-rows
    /// sets it with rows_per_block (HeldRows::warpRows).
    static constexpr ::llvm::StringLiteral getWarpRowsAttrName() {
      return ::mlir::norm::NormDialect::WarpRowsAttrHelper::getNameStr();
    }
    /// The integer attribute (1 to 32) asking that the GPU kernel's
    /// registers allow that many blocks on each multiprocessor (PTX
    /// .minnctapersm); norm-short-rows sets it with rows_per_block
    /// (HeldRows::minBlocksPerSM).
    static constexpr ::llvm::StringLiteral getMinBlocksPerSMAttrName() {
      return ::mlir::norm::NormDialect::MinBlocksPerSmAttrHelper::getNameStr();
    }
    /// The integer attribute saying the kernel runs only where M is below
    /// it; norm-short-rows sets it on the versions its branches on M bound
    /// from above.
    static constexpr ::llvm::StringLiteral getRowsBelowAttrName() {
      return ::mlir::norm::NormDialect::RowsBelowAttrHelper::getNameStr();
    }
    /// The integer attribute saying the kernel runs only where M is a
    /// multiple of it; norm-short-rows sets it on the versions of held rows
    /// without row bounds (HeldRows::wholeBlocksVersion).
    static constexpr ::llvm::StringLiteral getRowsMultipleAttrName() {
      return ::mlir::norm::NormDialect::RowsMultipleAttrHelper::getNameStr();
    }
    /// The unit attribute asking a streamed kernel that holds several rows
    /// a block to branch on whether the block's rows all exist
    /// (HeldRows::wholeBlocksBranch).
    static constexpr ::llvm::StringLiteral getWholeBlocksBranchAttrName() {
      return ::mlir::norm::NormDialect::WholeBlocksBranchAttrHelper::getNameStr();
    }
    /// The integer attribute setting the elements of each vector access of
    /// a streamed forward (in place of chooseVectorWidth's widest);
    /// norm-short-rows sets it with rows_per_block (HeldRows::vectorWidth).
    static constexpr ::llvm::StringLiteral getVectorWidthAttrName() {
      return ::mlir::norm::NormDialect::VectorWidthAttrHelper::getNameStr();
    }
    /// The operand whose shape defines M and N (the first full input or output).
    ::mlir::Value getShapeSource();
    /// Rows per partial row of the column outputs for `m` rows
    /// (rows_per_partial, reduced by min_partials, at least
    /// min_rows_per_partial); std::nullopt without a split.
    std::optional<int64_t> getRowsPerPartialFor(int64_t m);
    /// The same as an index value computed at `b` from `rows` (M), folded
    /// to a constant without min_partials; null without a split.
    ::mlir::Value buildRowsPerPartial(::mlir::OpBuilder &b,
                                      ::mlir::Location loc,
                                      ::mlir::Value rows);
    /// Rows per partial for `rowsPerPartial` S, `minPartials` F (0: none)
    /// and `minRowsPerPartial` K (0: none) for a known M: max(K', 1,
    /// ceil(ceil(M / F) / W)), W = max(1, ceil(M / (F * S))), K' =
    /// min(K, ceil(M / ceil(F / 4))); or S without F. With
    /// `maxPartials` P (0: none) at least ceil(M / P).
    static int64_t getRowsPerPartialFor(int64_t m, int64_t rowsPerPartial,
                                        int64_t minPartials,
                                        int64_t minRowsPerPartial,
                                        int64_t maxPartials = 0);
    /// The same from `rows` (M) at run time. What the split pass, the host
    /// grid and the kernels all compute.
    static ::mlir::Value buildRowsPerPartial(::mlir::OpBuilder &b,
                                             ::mlir::Location loc,
                                             ::mlir::Value rows,
                                             int64_t rowsPerPartial,
                                             int64_t minPartials,
                                             int64_t minRowsPerPartial,
                                             int64_t maxPartials = 0);
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Norm_RowReduceOp : Norm_Op<"row_reduce", [Pure, HasParent<"FusedOp">,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "Reduce a value over the current row inside norm.fused";
  let description = [{
    Collective over the row being processed by the enclosing `norm.fused`:
    combines `value` over all columns j of row i and returns the same result
    at every j. On a GPU this is a block reduction (warp shuffles, then
    shared memory); on a CPU a loop over the row.
  }];
  let arguments = (ins Norm_CombinerAttr:$combiner, F32:$value);
  let results = (outs F32:$result);
  let assemblyFormat = "$combiner $value attr-dict `:` type($value)";
}

def Norm_GroupReduceOp : Norm_Op<"group_reduce", [Pure, HasParent<"FusedOp">,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "Reduce a value over the current group inside norm.fused";
  let description = [{
    Collective over the group of `group_size` consecutive columns (the
    enclosing `norm.fused`'s) that holds the point being processed: combines
    `value` over the group's columns of row i and returns the same result at
    each of them. On a GPU the group's lanes exchange their values by warp
    shuffles (and shared memory for groups wider than a warp); on a CPU it is
    a loop over the group.
  }];
  let arguments = (ins Norm_CombinerAttr:$combiner, F32:$value);
  let results = (outs F32:$result);
  let assemblyFormat = "$combiner $value attr-dict `:` type($value)";
}

def Norm_CombineOp : Norm_Op<"combine", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DestinationStyleOpInterface]> {
  let summary = "Finishing reduction of split column partials";
  let description = [{
    Sums the rows of an f32 partial-sum buffer `P x N` in a fixed order
    (p = 0, 1, ..., P-1) and stores the result, rounded once to the output's
    element type, into the N-vector `output`. Deterministic: no atomics, so
    results are bitwise identical from run to run.
  }];
  let arguments = (ins AnyShaped:$partials, AnyShaped:$output);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    `ins` `(` $partials `:` type($partials) `)` `outs` `(` $output `:` type($output) `)`
    attr-dict (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() { return getOutputMutable(); }
  }];
  let hasVerifier = 1;
}

def Norm_YieldOp : Norm_Op<"yield", [Pure, Terminator,
    ParentOneOf<["ReduceOp", "MapOp", "FusedOp"]>]> {
  let summary = "Terminator of norm regions";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // NORM_OPS_TD
