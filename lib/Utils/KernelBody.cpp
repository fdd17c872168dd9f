//===- KernelBody.cpp - evaluating a norm.fused body ----------------------===//

#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::norm;

/// Ops of `body` needed for `targets`, stopping at mapped values.
static llvm::SmallPtrSet<Operation *, 32>
neededOps(Block &body, ArrayRef<Value> targets, const IRMapping &mapping,
          llvm::SetVector<BlockArgument> *arguments) {
  llvm::SmallPtrSet<Operation *, 32> needed;
  SmallVector<Value> worklist(targets.begin(), targets.end());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (mapping.contains(value))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == &body && arguments)
        arguments->insert(arg);
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != &body || !needed.insert(def).second)
      continue;
    if (isa<RowReduceOp, GroupReduceOp>(def))
      continue;
    worklist.append(def->operand_begin(), def->operand_end());
  }
  return needed;
}

SmallVector<BlockArgument>
mlir::norm::argumentsUsedBy(Block &body, ArrayRef<Value> targets,
                            const IRMapping &mapping) {
  llvm::SetVector<BlockArgument> arguments;
  neededOps(body, targets, mapping, &arguments);
  SmallVector<BlockArgument> sorted(arguments.begin(), arguments.end());
  llvm::sort(sorted, [](BlockArgument a, BlockArgument b) {
    return a.getArgNumber() < b.getArgNumber();
  });
  return sorted;
}

/// Whether `value` of `body` is computed from a row or group reduction.
static bool dependsOnReductions(Block &body, Value value) {
  llvm::SmallPtrSet<Operation *, 32> needed =
      neededOps(body, {value}, IRMapping(), /*arguments=*/nullptr);
  return llvm::any_of(needed, [](Operation *op) {
    return isa<RowReduceOp, GroupReduceOp>(op);
  });
}

SmallVector<unsigned> mlir::norm::earlyOutputIndices(FusedOp op) {
  Block &body = op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<unsigned> indices;
  for (auto [k, value] : llvm::enumerate(yield.getValues())) {
    Type element =
        cast<ShapedType>(op.getOutputs()[k].getType()).getElementType();
    if (op.getOutputRole(k) == Role::full && !isa<BlockArgument>(value) &&
        value.getType() == element && !dependsOnReductions(body, value))
      indices.push_back(k);
  }
  return indices;
}

LogicalResult mlir::norm::cloneBodySlice(OpBuilder &builder, Block &body,
                                         ArrayRef<Value> targets,
                                         IRMapping &mapping) {
  llvm::SetVector<BlockArgument> arguments;
  llvm::SmallPtrSet<Operation *, 32> needed =
      neededOps(body, targets, mapping, &arguments);
  for (BlockArgument arg : arguments)
    if (!mapping.contains(arg))
      return failure();
  for (Operation &op : body.without_terminator()) {
    if (!needed.contains(&op) ||
        (op.getNumResults() && mapping.contains(op.getResult(0))))
      continue;
    if (isa<RowReduceOp, GroupReduceOp>(op))
      return failure();
    builder.clone(op, mapping);
  }
  return success();
}

Value mlir::norm::combinerIdentity(OpBuilder &builder, Location loc,
                                   Combiner combiner) {
  double identity = combiner == Combiner::add
                        ? 0.0
                        : -std::numeric_limits<double>::infinity();
  return arith::ConstantOp::create(builder, loc,
                                   builder.getF32FloatAttr(identity));
}

Value mlir::norm::combine(OpBuilder &builder, Location loc, Combiner combiner,
                          Value lhs, Value rhs) {
  if (combiner == Combiner::add)
    return arith::AddFOp::create(builder, loc, lhs, rhs);
  return arith::MaximumFOp::create(builder, loc, lhs, rhs);
}

Value mlir::norm::roundTo(OpBuilder &builder, Location loc, Value value,
                          Type type) {
  if (value.getType() == type)
    return value;
  return arith::TruncFOp::create(builder, loc, type, value);
}

KernelShape mlir::norm::describeKernel(FusedOp op) {
  KernelShape traits{
      cast<ShapedType>(op.getShapeSource().getType()).getDimSize(1),
      1,
      0,
      0,
      0,
      /*onlyRowOutputs=*/true};
  auto bytes = [](Value v) {
    return static_cast<int64_t>(
        cast<ShapedType>(v.getType()).getElementTypeBitWidth() / 8);
  };
  // The narrowest element size seen so far (0: none yet).
  auto keepNarrowest = [](int64_t &narrowest, int64_t elementBytes) {
    narrowest =
        narrowest > 0 ? std::min(narrowest, elementBytes) : elementBytes;
  };
  for (auto [i, v] : llvm::enumerate(op.getInputs())) {
    if (op.getInputRole(i) == Role::row)
      ++traits.rowInputs;
    if (op.getInputRole(i) == Role::col) {
      ++traits.columnInputs;
      traits.columnInputBytes += bytes(v);
    }
    if (op.getInputRole(i) == Role::full) {
      ++traits.fullOperands;
      traits.elementBytes = std::max(traits.elementBytes, bytes(v));
      keepNarrowest(traits.narrowestInputBytes, bytes(v));
    }
  }
  for (auto [i, v] : llvm::enumerate(op.getOutputs())) {
    if (op.getOutputRole(i) == Role::full) {
      ++traits.fullOutputs;
      traits.elementBytes = std::max(traits.elementBytes, bytes(v));
      keepNarrowest(traits.narrowestOutputBytes, bytes(v));
    }
    if (op.getOutputRole(i) == Role::col)
      ++traits.columnOutputs;
    if (op.getOutputRole(i) == Role::row)
      ++traits.rowOutputs;
    if (op.getOutputRole(i) != Role::row)
      traits.onlyRowOutputs = false;
  }
  auto reduces = op.getBody().front().getOps<RowReduceOp>();
  traits.rowReductions = std::distance(reduces.begin(), reduces.end());
  traits.groupSize = op.getGroupSize().value_or(0);
  traits.earlyOutputs = earlyOutputIndices(op).size();
  return traits;
}

FusedOp mlir::norm::columnKernelBeside(FusedOp op) {
  Operation *next = op->getNextNode();
  while (next && !isa<FusedOp, CombineOp>(next) && isMemoryEffectFree(next))
    next = next->getNextNode();
  auto after = dyn_cast_or_null<FusedOp>(next);
  if (!after || !after->hasAttr(FusedOp::getWholeColumnsAttrName()) ||
      !after.hasOnlyColumnOutputs())
    return FusedOp();
  auto writesAny = [](FusedOp writer, Operation *reader) {
    return llvm::any_of(reader->getOperands(), [&](Value operand) {
      return llvm::is_contained(writer.getOutputs(), operand) ||
             operand.getDefiningOp() == writer.getOperation();
    });
  };
  if (writesAny(op, after) || writesAny(after, op))
    return FusedOp();
  return after;
}
