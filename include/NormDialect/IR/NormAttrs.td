//===- NormAttrs.td - norm dialect attributes --------------*- tablegen -*-===//

#ifndef NORM_ATTRS_TD
#define NORM_ATTRS_TD

include "NormDialect/IR/NormDialect.td"
include "mlir/IR/EnumAttr.td"

def Norm_OrderRow : I32EnumAttrCase<"row", 0>;
def Norm_OrderCol : I32EnumAttrCase<"col", 1>;
def Norm_OrderGroup : I32EnumAttrCase<"group", 2>;
def Norm_Order : I32EnumAttr<"Order",
    "order type of a reduction: along a row (innermost, contiguous), across "
    "rows, or along each group of consecutive columns of a row",
    [Norm_OrderRow, Norm_OrderCol, Norm_OrderGroup]> {
  let cppNamespace = "::mlir::norm";
  let genSpecializedAttr = 0;
}
def Norm_OrderAttr : EnumAttr<Norm_Dialect, Norm_Order, "order"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Order type of a reduction";
  let description = [{
    `#norm.order<row>` reduces along the contiguous innermost dimension (one
    value per row); `#norm.order<col>` reduces across rows (one value per
    column); `#norm.order<group>` reduces along each group of `group_size`
    consecutive columns of a row (one value per row and group: the 1 x 128
    scales of FP8 quantization, the statistics of a grouped norm). The group
    size is the op's `group_size` attribute.
  }];
}

def Norm_CombinerAdd : I32EnumAttrCase<"add", 0>;
def Norm_CombinerMax : I32EnumAttrCase<"max", 1>;
def Norm_Combiner : I32EnumAttr<"Combiner", "reduction combiner",
    [Norm_CombinerAdd, Norm_CombinerMax]> {
  let cppNamespace = "::mlir::norm";
  let genSpecializedAttr = 0;
}
def Norm_CombinerAttr : EnumAttr<Norm_Dialect, Norm_Combiner, "combiner"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Combiner of a reduction (add or max)";
}

def Norm_RoleFull : I32EnumAttrCase<"full", 0>;
def Norm_RoleRow : I32EnumAttrCase<"row", 1>;
def Norm_RoleCol : I32EnumAttrCase<"col", 2>;
def Norm_RoleGroup : I32EnumAttrCase<"group", 3>;
def Norm_Role : I32EnumAttr<"Role",
    "how an operand or result is indexed by the (row i, column j) iteration",
    [Norm_RoleFull, Norm_RoleRow, Norm_RoleCol, Norm_RoleGroup]> {
  let cppNamespace = "::mlir::norm";
  let genSpecializedAttr = 0;
}
def Norm_RoleAttr : EnumAttr<Norm_Dialect, Norm_Role, "role"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Indexing role: full (M x N), row (M), col (N) or group (M x N/G)";
  let description = [{
    The role says how a value is indexed by the iteration over rows `i` and
    columns `j`: `full` is an M x N value read at (i, j), `row` an M-vector
    read at i, `col` an N-vector read at j, `group` an M x (N / G) value read
    at (i, j / G), G being the op's `group_size`. Roles are explicit so that
    passes never have to guess them from sizes, which coincide when M == N.
  }];
}

def Norm_RoleArrayAttr : TypedArrayAttrBase<Norm_RoleAttr, "array of roles">;

def Norm_TargetAttr : AttrDef<Norm_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The GPU a module's kernels are planned for";
  let description = [{
    What the tuning rules take of the device: streaming multiprocessors,
    the register budget (elements of all full operands one thread keeps in
    registers), the largest thread block cluster a row may use, the largest
    block, and an SM's resources (shared memory a block may opt into and an
    SM holds, threads and 32-bit registers an SM holds) and its compute
    capability (major * 10 + minor), which says which instructions the
    kernels may use: below 90 (Ampere, Ada) no thread block clusters (so
    max_cluster_size 1), bulk copies, mbarrier transaction counts or
    dependent launches, and below 89 no FP8 conversion instruction. Set once
    per module, as the discardable attribute `norm.target`, by
    `--norm-set-target` (whose options are the only place these are
    declared), and read by every pass that plans kernels
    (`--norm-short-rows`, `--norm-split-rows`, `--norm-plan-kernels`,
    `--convert-norm-to-gpu`). A module without one is planned for an
    H100/H200 (132 SMs, a budget of 32, clusters of up to 16, blocks of up
    to 1024 threads, 227 KB of shared memory a block and 228 KB an SM, 2048
    threads and 64K registers an SM, compute capability 90); the parameters
    after max_cluster_size default to those values.

    ```mlir
    module attributes {norm.target = #norm.target<num_sms = 114,
                                                  register_budget = 32,
                                                  max_cluster_size = 16>} {...}
    ```
  }];
  let parameters = (ins "int64_t":$num_sms, "int64_t":$register_budget,
                        "int64_t":$max_cluster_size,
                        DefaultValuedParameter<"int64_t", "1024">:
                          $max_threads_per_block,
                        DefaultValuedParameter<"int64_t", "232448">:
                          $shared_memory_per_block,
                        DefaultValuedParameter<"int64_t", "233472">:
                          $shared_memory_per_sm,
                        DefaultValuedParameter<"int64_t", "2048">:
                          $threads_per_sm,
                        DefaultValuedParameter<"int64_t", "65536">:
                          $registers_per_sm,
                        DefaultValuedParameter<"int64_t", "90">:
                          $compute_capability);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Norm_KindRowResident : I32EnumAttrCase<"row_resident", 0>;
def Norm_KindCluster : I32EnumAttrCase<"cluster", 1>;
def Norm_KindStreaming : I32EnumAttrCase<"streaming", 2>;
def Norm_KindSliced : I32EnumAttrCase<"sliced", 3>;
def Norm_KindOffChip : I32EnumAttrCase<"off_chip", 4>;
def Norm_KernelKind : I32EnumAttr<"KernelKind",
    "how a norm.fused kernel is generated",
    [Norm_KindRowResident, Norm_KindCluster, Norm_KindStreaming,
     Norm_KindSliced, Norm_KindOffChip]> {
  let cppNamespace = "::mlir::norm";
  let genSpecializedAttr = 0;
}

def Norm_PlanAttr : AttrDef<Norm_Dialect, "Plan"> {
  let mnemonic = "plan";
  let summary = "How one norm.fused kernel is generated and launched";
  let description = [{
    The decision of `--norm-plan-kernels` for one `norm.fused` op, attached
    as the discardable attribute `norm.plan`: the kernel kind, its thread
    layout (threads, vector width, chunks a thread holds, column slices, row
    groups, cluster size, and whether the cluster's blocks are a block group
    exchanging their row totals through global memory), its staging (shared stages, bulk stores, L2
    prefetch, a streamed row's sweeps a step and whether its first pass
    stores the outputs computed from the elements alone) and its grid (rows a block walks, blocks per SM the registers
    must allow, the fewest blocks a short M spreads over, a persistent grid).
    `--norm-split-reduction` sizes its split from it and
    `--convert-norm-to-gpu` lowers it as written; neither decides again. A
    plan written by hand (as the conversion tests do) is lowered the same
    way, so the lowering can be tested apart from the tuning rules.
    Parameters at their default value are not printed.

    `off_chip` says that no kernel holds the rows (the GPU lowering refuses
    the op; `--norm-split-rows` takes such rows apart first).

    ```mlir
    norm.fused ... {norm.plan = #norm.plan<kind = row_resident, threads = 128,
                                           vector_width = 8,
                                           rows_per_block = 4>}
    ```
  }];
  let parameters = (ins
    EnumParameter<Norm_KernelKind>:$kind,
    "int64_t":$threads,
    DefaultValuedParameter<"int64_t", "1">:$vector_width,
    DefaultValuedParameter<"int64_t", "1">:$chunks_per_thread,
    DefaultValuedParameter<"int64_t", "1">:$column_slices,
    DefaultValuedParameter<"int64_t", "1">:$row_groups,
    DefaultValuedParameter<"bool", "false">:$warp_rows,
    DefaultValuedParameter<"int64_t", "1">:$cluster_size,
    DefaultValuedParameter<"bool", "false">:$global_exchange,
    DefaultValuedParameter<"int64_t", "0">:$shared_stages,
    DefaultValuedParameter<"bool", "false">:$reread_staged,
    DefaultValuedParameter<"int64_t", "0">:$l2_prefetch_rows,
    DefaultValuedParameter<"int64_t", "0">:$l2_prefetch_min_rows,
    DefaultValuedParameter<"bool", "false">:$bulk_stores,
    DefaultValuedParameter<"bool", "false">:$holds_row,
    DefaultValuedParameter<"int64_t", "1">:$sweeps_per_step,
    DefaultValuedParameter<"bool", "false">:$stores_early_outputs,
    DefaultValuedParameter<"bool", "false">:$latency_bound_reductions,
    DefaultValuedParameter<"int64_t", "1">:$rows_per_block,
    DefaultValuedParameter<"int64_t", "0">:$num_stages,
    DefaultValuedParameter<"int64_t", "0">:$min_blocks_per_sm,
    DefaultValuedParameter<"int64_t", "0">:$min_blocks,
    DefaultValuedParameter<"bool", "false">:$persistent
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // NORM_ATTRS_TD
