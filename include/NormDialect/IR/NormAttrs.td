//===- NormAttrs.td - norm dialect attributes --------------*- tablegen -*-===//

#ifndef NORM_ATTRS_TD
#define NORM_ATTRS_TD

include "NormDialect/IR/NormDialect.td"
include "mlir/IR/EnumAttr.td"

def Norm_OrderRow : I32EnumAttrCase<"row", 0>;
def Norm_OrderCol : I32EnumAttrCase<"col", 1>;
def Norm_Order : I32EnumAttr<"Order",
    "order type of a reduction: along a row (innermost, contiguous) or across rows",
    [Norm_OrderRow, Norm_OrderCol]> {
  let cppNamespace = "::mlir::norm";
  let genSpecializedAttr = 0;
}
def Norm_OrderAttr : EnumAttr<Norm_Dialect, Norm_Order, "order"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Order type of a reduction";
  let description = [{
    `#norm.order<row>` reduces along the contiguous innermost dimension (one
    value per row); `#norm.order<col>` reduces across rows (one value per
    column).
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
def Norm_Role : I32EnumAttr<"Role",
    "how an operand or result is indexed by the (row i, column j) iteration",
    [Norm_RoleFull, Norm_RoleRow, Norm_RoleCol]> {
  let cppNamespace = "::mlir::norm";
  let genSpecializedAttr = 0;
}
def Norm_RoleAttr : EnumAttr<Norm_Dialect, Norm_Role, "role"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Indexing role: full (M x N), row (M) or col (N)";
  let description = [{
    The role says how a value is indexed by the iteration over rows `i` and
    columns `j`: `full` is an M x N value read at (i, j), `row` an M-vector
    read at i, `col` an N-vector read at j. Roles are explicit so that passes
    never have to guess them from sizes, which coincide when M == N.
  }];
}

def Norm_RoleArrayAttr : TypedArrayAttrBase<Norm_RoleAttr, "array of roles">;

def Norm_TargetAttr : AttrDef<Norm_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The GPU a module's kernels are planned for";
  let description = [{
    What the tuning rules take of the device: streaming multiprocessors,
    the register budget (elements of all full operands one thread keeps in
    registers) and the largest thread block cluster a row may use. Set once
    per module, as the discardable attribute `norm.target`, by
    `--norm-set-target` (whose options are the only place these are
    declared), and read by every pass that plans kernels
    (`--norm-short-rows`, `--norm-split-reduction`, `--convert-norm-to-gpu`).
    A module without one is planned for an H100/H200 (132 SMs, a budget of
    32, clusters of up to 16).

    ```mlir
    module attributes {norm.target = #norm.target<num_sms = 114,
                                                  register_budget = 32,
                                                  max_cluster_size = 16>} {...}
    ```
  }];
  let parameters = (ins "int64_t":$num_sms, "int64_t":$register_budget,
                        "int64_t":$max_cluster_size);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // NORM_ATTRS_TD
