//===- NormFuseMixedOrder.cpp - group reductions into norm.fused ----------===//
//
// Implements --norm-fuse-mixed-order. The decision is planMixedOrderFusion
// (FusionPlan.h); this file translates a block's norm.reduce / norm.map ops
// into FusionNodes and each planned group into one norm.fused op whose body
// evaluates the members per element: row reductions become norm.row_reduce,
// group reductions norm.group_reduce, column reductions become `col`
// outputs.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Transforms/Passes.h"
#include "NormDialect/Tuning/FusionPlan.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMFUSEMIXEDORDER
#include "NormDialect/Transforms/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

/// The common accessors of norm.reduce and norm.map.
struct Member {
  Operation *op;
  NodeKind kind;
  ValueRange inputs() {
    if (auto r = dyn_cast<ReduceOp>(op))
      return r.getInputs();
    return cast<MapOp>(op).getInputs();
  }
  ArrayAttr roles() {
    if (auto r = dyn_cast<ReduceOp>(op))
      return r.getRoles();
    return cast<MapOp>(op).getRoles();
  }
  Block &body() { return op->getRegion(0).front(); }
  Value result() { return op->getResult(0); }
  Role resultRole() {
    switch (kind) {
    case NodeKind::FullMap:
      return Role::full;
    case NodeKind::RowMap:
    case NodeKind::RowReduce:
      return Role::row;
    case NodeKind::ColMap:
    case NodeKind::ColReduce:
      return Role::col;
    case NodeKind::GroupMap:
    case NodeKind::GroupReduce:
      return Role::group;
    }
    llvm_unreachable("unknown node kind");
  }
};

static NodeKind kindOf(Operation *op) {
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    switch (reduce.getOrder()) {
    case Order::row:
      return NodeKind::RowReduce;
    case Order::col:
      return NodeKind::ColReduce;
    case Order::group:
      return NodeKind::GroupReduce;
    }
    llvm_unreachable("unknown order");
  }
  switch (cast<MapOp>(op).getResultRole()) {
  case Role::full:
    return NodeKind::FullMap;
  case Role::row:
    return NodeKind::RowMap;
  case Role::col:
    return NodeKind::ColMap;
  case Role::group:
    return NodeKind::GroupMap;
  }
  llvm_unreachable("unknown role");
}

/// The group_size of a norm.reduce or norm.map (null: none).
static IntegerAttr groupSizeOf(Operation *op) {
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return reduce.getGroupSizeAttr();
  return cast<MapOp>(op).getGroupSizeAttr();
}

/// Builds one norm.fused op from `members` (in program order).
static LogicalResult buildKernel(IRRewriter &rewriter,
                                 MutableArrayRef<Member> members) {
  llvm::SmallPtrSet<Operation *, 8> inKernel;
  for (Member &m : members)
    inKernel.insert(m.op);

  // External inputs, deduplicated by (value, role).
  llvm::MapVector<std::pair<Value, unsigned>, unsigned> inputIndex;
  Value shapeSource;
  for (Member &m : members)
    for (auto [value, role] : llvm::zip(m.inputs(), m.roles())) {
      if (inKernel.contains(value.getDefiningOp()))
        continue;
      Role r = cast<RoleAttr>(role).getValue();
      unsigned next = inputIndex.size();
      inputIndex.insert({{value, static_cast<unsigned>(r)}, next});
      if (r == Role::full && !shapeSource)
        shapeSource = value;
    }
  Operation *last = members.back().op;
  if (!shapeSource)
    return last->emitOpError("cannot form a kernel: no 'full' input defines "
                             "the M x N space (only row or column values)");

  // Outputs: member results used outside the kernel.
  SmallVector<Member *> outputMembers;
  for (Member &m : members)
    if (llvm::any_of(m.result().getUsers(), [&](Operation *user) {
          return !inKernel.contains(user);
        })) {
      if (m.kind == NodeKind::ColMap)
        return m.op->emitOpError("a column-only map used outside a kernel is "
                                 "not supported");
      outputMembers.push_back(&m);
    }

  rewriter.setInsertionPoint(last);
  Location loc = rewriter.getFusedLoc(
      llvm::map_to_vector(members, [](Member &m) { return m.op->getLoc(); }));
  auto sourceType = cast<RankedTensorType>(shapeSource.getType());
  auto dimValue = [&](int64_t d) -> SmallVector<Value> {
    if (!sourceType.isDynamicDim(d))
      return {};
    return {tensor::DimOp::create(rewriter, loc, shapeSource, d)};
  };
  // The members share one group size (planMixedOrderFusion).
  IntegerAttr groupSize;
  for (Member &m : members)
    if (IntegerAttr size = groupSizeOf(m.op))
      groupSize = size;
  SmallVector<Value> inputs, outputs;
  SmallVector<Attribute> roles, outputRoles;
  for (auto &[key, index] : inputIndex) {
    inputs.push_back(key.first);
    roles.push_back(
        RoleAttr::get(rewriter.getContext(), static_cast<Role>(key.second)));
  }
  for (Member *m : outputMembers) {
    auto type = cast<RankedTensorType>(m->result().getType());
    SmallVector<Value> dynamic;
    Role role = m->resultRole();
    if (role == Role::full || role == Role::row || role == Role::group)
      dynamic.append(dimValue(0));
    if (role == Role::full || role == Role::col)
      dynamic.append(dimValue(1));
    if (role == Role::group && type.isDynamicDim(1))
      for (Value columns : dimValue(1))
        dynamic.push_back(arith::DivUIOp::create(
            rewriter, loc, columns,
            arith::ConstantIndexOp::create(rewriter, loc, groupSize.getInt())));
    outputs.push_back(tensor::EmptyOp::create(rewriter, loc, type, dynamic));
    outputRoles.push_back(RoleAttr::get(rewriter.getContext(), role));
  }
  auto fused = FusedOp::create(
      rewriter, loc, TypeRange(ValueRange(outputs)), inputs,
      rewriter.getArrayAttr(roles), outputs, rewriter.getArrayAttr(outputRoles),
      /*rows_per_partial=*/nullptr, /*min_partials=*/nullptr,
      /*min_rows_per_partial=*/nullptr,
      /*max_partials=*/nullptr, groupSize);
  for (Member &m : members)
    if (Attribute split =
            m.op->getAttr(NormDialect::SplitSizeAttrHelper::getNameStr()))
      fused->setAttr(NormDialect::SplitSizeAttrHelper::getNameStr(), split);

  // Body: per-element evaluation of every member.
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value in : inputs) {
    argTypes.push_back(cast<ShapedType>(in.getType()).getElementType());
    argLocs.push_back(in.getLoc());
  }
  Block *body = rewriter.createBlock(&fused.getBody(), {}, argTypes, argLocs);
  llvm::DenseMap<Value, Value> scalarOf;   // member result -> element value
  llvm::DenseMap<Value, Value> colValueOf; // column reduction -> f32 addend
  for (Member &m : members) {
    IRMapping mapping;
    for (auto [arg, value, role] :
         llvm::zip(m.body().getArguments(), m.inputs(), m.roles())) {
      if (inKernel.contains(value.getDefiningOp())) {
        mapping.map(arg, scalarOf.lookup(value));
        continue;
      }
      unsigned r = static_cast<unsigned>(cast<RoleAttr>(role).getValue());
      mapping.map(arg, body->getArgument(inputIndex.lookup({value, r})));
    }
    for (Operation &op : m.body().without_terminator())
      rewriter.clone(op, mapping);
    Value yielded = mapping.lookupOrDefault(
        cast<YieldOp>(m.body().getTerminator()).getValues()[0]);
    Type resultElement =
        cast<ShapedType>(m.result().getType()).getElementType();
    switch (m.kind) {
    case NodeKind::RowReduce:
    case NodeKind::GroupReduce: {
      auto reduce = cast<ReduceOp>(m.op);
      Value row =
          m.kind == NodeKind::RowReduce
              ? RowReduceOp::create(rewriter, m.op->getLoc(), yielded.getType(),
                                    reduce.getCombinerAttr(), yielded)
                    .getResult()
              : GroupReduceOp::create(rewriter, m.op->getLoc(),
                                      yielded.getType(),
                                      reduce.getCombinerAttr(), yielded)
                    .getResult();
      if (!resultElement.isF32())
        row = arith::TruncFOp::create(rewriter, m.op->getLoc(), resultElement,
                                      row);
      scalarOf[m.result()] = row;
      break;
    }
    case NodeKind::ColReduce:
      colValueOf[m.result()] = yielded;
      break;
    default:
      scalarOf[m.result()] = yielded;
    }
  }
  SmallVector<Value> yields;
  for (Member *m : outputMembers)
    yields.push_back(m->kind == NodeKind::ColReduce
                         ? colValueOf.lookup(m->result())
                         : scalarOf.lookup(m->result()));
  YieldOp::create(rewriter, loc, yields);

  for (auto [m, result] : llvm::zip(outputMembers, fused.getResults()))
    rewriter.replaceUsesWithIf(m->result(), result, [&](OpOperand &use) {
      return !inKernel.contains(use.getOwner());
    });
  for (Member &m : llvm::reverse(members))
    rewriter.eraseOp(m.op);
  return success();
}

struct NormFuseMixedOrderPass
    : public mlir::norm::impl::NormFuseMixedOrderBase<NormFuseMixedOrderPass> {
  using Base::Base;

  LogicalResult fuseBlock(Block &block) {
    SmallVector<Member> members;
    for (Operation &op : block)
      if (isa<ReduceOp, MapOp>(op))
        members.push_back({&op, kindOf(&op)});
    if (members.empty())
      return success();

    llvm::DenseMap<Operation *, unsigned> nodeIndex;
    llvm::DenseMap<Value, int64_t> valueIds;
    SmallVector<FusionNode> nodes;
    for (auto [i, m] : llvm::enumerate(members)) {
      nodeIndex[m.op] = i;
      FusionNode node{m.kind, {}, {}};
      if (IntegerAttr size = groupSizeOf(m.op))
        node.groupSize = size.getInt();
      for (auto [value, role] : llvm::zip(m.inputs(), m.roles())) {
        Operation *def = value.getDefiningOp();
        if (def && nodeIndex.contains(def)) {
          node.producers.push_back(nodeIndex[def]);
          continue;
        }
        if (cast<RoleAttr>(role).getValue() == Role::full)
          node.fullInputs.push_back(
              valueIds.try_emplace(value, valueIds.size()).first->second);
      }
      nodes.push_back(node);
    }
    FusionPlan plan = planMixedOrderFusion(nodes, fuse);
    if (report)
      for (auto [m, reason] : llvm::zip(members, plan.notFusedBecause))
        if (!reason.empty())
          m.op->emitRemark("not fused into an earlier kernel: ") << reason;

    IRRewriter rewriter(&getContext());
    for (unsigned k = 0; k < plan.numKernels; ++k) {
      SmallVector<Member> group;
      for (auto [m, kernel] : llvm::zip(members, plan.kernelOf))
        if (kernel == k)
          group.push_back(m);
      if (failed(buildKernel(rewriter, group)))
        return failure();
    }
    // Kernels sit where their last member was; a kernel reading a column
    // result of a later-placed kernel is moved after it.
    if (!sortTopologically(&block))
      return block.getParentOp()->emitError(
          "mixed-order fusion produced a dependence cycle between kernels");
    return success();
  }

  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) {
      if (llvm::any_of(*block,
                       [](Operation &op) { return isa<ReduceOp, MapOp>(op); }))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      if (failed(fuseBlock(*block)))
        return signalPassFailure();
  }
};

} // namespace
