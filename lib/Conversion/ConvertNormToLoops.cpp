//===- ConvertNormToLoops.cpp - norm kernels to scf loops -----------------===//
//
// The CPU reference lowering of bufferized norm kernels. For each row i:
// every norm.row_reduce becomes a loop over j carrying its accumulator (the
// values it needs are recomputed from the inputs, which is cheap on a CPU and
// keeps the lowering obviously correct), row outputs are stored once, and a
// final loop over j stores full outputs and accumulates column outputs.
// With groups, that final loop runs a group at a time, after the group's
// norm.group_reduce loops and its group outputs; a row reduction of values
// that read group reductions walks the row a group at a time too, each group's
// reductions before its part of the row's.
//
// Sums accumulate in f64 and are rounded to f32 once: a sequential f32 sum
// of N terms errs by up to N ulps, which on rows of 200,000 elements or rows
// far from zero mean left the CPU path 10-500x behind torch's cascaded sums
// (and the GPU kernels' per-thread partials and trees). In f64 the rounding
// of each f32 term is what remains, as in a correctly rounded sum. Column
// partials keep their f32 type: they are rounded from f64 when stored.
//
//===----------------------------------------------------------------------===//

#include "Float8Form.h"
#include "NormDialect/Conversion/Passes.h"
#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::norm {
#define GEN_PASS_DEF_CONVERTNORMTOLOOPS
#include "NormDialect/Conversion/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

/// Emits `for (iv = 0; iv < upper; ++iv) body(iv)`.
static void forEach(OpBuilder &b, Location loc, Value upper,
                    llvm::function_ref<void(OpBuilder &, Value)> body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  scf::ForOp::create(b, loc, zero, upper, one, ValueRange{},
                     [&](OpBuilder &nb, Location, Value iv, ValueRange) {
                       body(nb, iv);
                       scf::YieldOp::create(nb, loc);
                     });
}

/// Emits `body(indices)` for every element of rank-1 or rank-2 `buffer`
/// (the column accumulators: an N-vector, or P x N partials).
static void
forEachElement(OpBuilder &b, Location loc, Value buffer,
               llvm::function_ref<void(OpBuilder &, ValueRange)> body) {
  auto type = cast<MemRefType>(buffer.getType());
  Value first = memref::DimOp::create(b, loc, buffer, 0);
  if (type.getRank() == 1) {
    forEach(b, loc, first, [&](OpBuilder &nb, Value j) { body(nb, j); });
    return;
  }
  Value second = memref::DimOp::create(b, loc, buffer, 1);
  forEach(b, loc, first, [&](OpBuilder &nb, Value p) {
    forEach(nb, loc, second, [&](OpBuilder &nnb, Value j) {
      body(nnb, ValueRange{p, j});
    });
  });
}

/// Fills a float memref with zeros.
static void zeroFill(OpBuilder &b, Location loc, Value buffer) {
  Value zero = arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(cast<MemRefType>(buffer.getType()).getElementType(), 0.0));
  forEachElement(b, loc, buffer, [&](OpBuilder &nb, ValueRange index) {
    memref::StoreOp::create(nb, loc, zero, buffer, index);
  });
}

class FusedLowering {
public:
  FusedLowering(FusedOp op) : op(op), body(op.getBody().front()) {}

  LogicalResult lower(IRRewriter &rewriter) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value source = op.getShapeSource();
    Value rows = memref::DimOp::create(rewriter, loc, source, 0);
    Value cols = memref::DimOp::create(rewriter, loc, source, 1);
    Value rowsPerPartial = op.buildRowsPerPartial(rewriter, loc, rows);
    auto yield = cast<YieldOp>(body.getTerminator());

    // Column accumulators in f64, shaped like the output (the partials when
    // split, else the N-vector), rounded into it at the end.
    SmallVector<Value> accumulators(op.getOutputs().size());
    for (auto [i, output] : llvm::enumerate(op.getOutputs())) {
      if (op.getOutputRole(i) != Role::col)
        continue;
      auto outputType = cast<MemRefType>(output.getType());
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < outputType.getRank(); ++d)
        if (outputType.isDynamicDim(d))
          sizes.push_back(memref::DimOp::create(rewriter, loc, output, d));
      auto type = MemRefType::get(outputType.getShape(), rewriter.getF64Type());
      accumulators[i] = memref::AllocOp::create(rewriter, loc, type, sizes);
      zeroFill(rewriter, loc, accumulators[i]);
    }

    LogicalResult status = success();
    forEach(rewriter, loc, rows, [&](OpBuilder &b, Value i) {
      IRMapping rowMapping;
      // Row inputs are loaded once per row.
      for (auto [k, input] : llvm::enumerate(op.getInputs()))
        if (op.getInputRole(k) == Role::row)
          rowMapping.map(body.getArgument(k),
                         memref::LoadOp::create(b, loc, input, i));
      // Row reductions, in body order: a loop over the row each, or over its
      // groups where the reduced value reads group reductions.
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      for (auto reduce : body.getOps<RowReduceOp>()) {
        SmallVector<GroupReduceOp> groupInputs =
            groupReductionsRead(reduce.getValue());
        rowMapping.map(reduce.getResult(),
                       groupInputs.empty()
                           ? reduceOver(b, loc, i, zero, cols,
                                        reduce.getCombiner(), reduce.getValue(),
                                        rowMapping, status)
                           : reduceOverGroups(b, loc, i, cols, reduce,
                                              groupInputs, rowMapping, status));
      }
      // Row outputs: row-uniform, computed once.
      SmallVector<Value> perElement;
      for (auto [k, value] : llvm::enumerate(yield.getValues())) {
        if (op.getOutputRole(k) != Role::row) {
          perElement.push_back(value);
          continue;
        }
        if (failed(cloneBodySlice(b, body, {value}, rowMapping)))
          status = failure();
        memref::StoreOp::create(b, loc, rowMapping.lookupOrDefault(value),
                                op.getOutputs()[k], i);
      }
      if (perElement.empty())
        return;
      Value partial;
      if (rowsPerPartial)
        partial = arith::DivUIOp::create(b, loc, i, rowsPerPartial);
      std::optional<int64_t> groupSize = op.getGroupSize();
      if (!groupSize) {
        storeElements(b, loc, i, zero, cols, partial, rowMapping, accumulators,
                      status);
        return;
      }
      // Groups: their reductions (a loop over the group each), their
      // outputs, then their elements.
      Value width = arith::ConstantIndexOp::create(b, loc, *groupSize);
      Value groups = arith::DivUIOp::create(b, loc, cols, width);
      SmallVector<GroupReduceOp> groupReductions(body.getOps<GroupReduceOp>());
      forEach(b, loc, groups, [&](OpBuilder &gb, Value g) {
        IRMapping groupMapping = rowMapping;
        auto [begin, end] = mapGroup(gb, loc, i, g, width, groupReductions,
                                     groupMapping, status);
        for (auto [k, value] : llvm::enumerate(yield.getValues())) {
          if (op.getOutputRole(k) != Role::group)
            continue;
          IRMapping mapping = groupMapping;
          mapElements(gb, loc, i, begin, {value}, mapping);
          if (failed(cloneBodySlice(gb, body, {value}, mapping)))
            status = failure();
          memref::StoreOp::create(gb, loc, mapping.lookupOrDefault(value),
                                  op.getOutputs()[k], ValueRange{i, g});
        }
        storeElements(gb, loc, i, begin, end, partial, groupMapping,
                      accumulators, status);
      });
    });
    if (failed(status))
      return op.emitOpError("body reads a value the lowering did not provide");

    // Round the column accumulators into their outputs (the partials when
    // split).
    for (auto [i, output] : llvm::enumerate(op.getOutputs())) {
      if (op.getOutputRole(i) != Role::col)
        continue;
      Type element = cast<MemRefType>(output.getType()).getElementType();
      Value acc = accumulators[i];
      forEachElement(rewriter, loc, output,
                     [&](OpBuilder &b, ValueRange index) {
                       Value v = arith::TruncFOp::create(
                           b, loc, b.getF32Type(),
                           memref::LoadOp::create(b, loc, acc, index));
                       memref::StoreOp::create(
                           b, loc, roundTo(b, loc, v, element), output, index);
                     });
      memref::DeallocOp::create(rewriter, loc, acc);
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// The combination by `combiner` of `value` over columns [begin, end) of
  /// row i: a loop recomputing the value's slice of the body at each column
  /// (sums in f64, see the file comment; a maximum is exact in f32).
  Value reduceOver(OpBuilder &b, Location loc, Value i, Value begin, Value end,
                   Combiner combiner, Value value, const IRMapping &outer,
                   LogicalResult &status) {
    bool wide = combiner == Combiner::add;
    Value init = combinerIdentity(b, loc, combiner);
    if (wide)
      init = arith::ExtFOp::create(b, loc, b.getF64Type(), init);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(
        b, loc, begin, end, one, ValueRange{init},
        [&](OpBuilder &nb, Location, Value j, ValueRange acc) {
          IRMapping mapping = outer;
          mapElements(nb, loc, i, j, {value}, mapping);
          if (failed(cloneBodySlice(nb, body, {value}, mapping)))
            status = failure();
          Value v = mapping.lookupOrDefault(value);
          if (wide)
            v = arith::ExtFOp::create(nb, loc, nb.getF64Type(), v);
          scf::YieldOp::create(nb, loc, combine(nb, loc, combiner, acc[0], v));
        });
    Value total = loop.getResult(0);
    if (wide)
      total = arith::TruncFOp::create(b, loc, b.getF32Type(), total);
    return total;
  }

  /// The norm.group_reduce ops whose results `value` reads, directly or
  /// through other body ops, in body order.
  SmallVector<GroupReduceOp> groupReductionsRead(Value value) {
    SmallVector<GroupReduceOp> found;
    llvm::SmallPtrSet<Operation *, 16> seen;
    SmallVector<Value> work{value};
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != &body || !seen.insert(def).second)
        continue;
      if (auto group = dyn_cast<GroupReduceOp>(def))
        found.push_back(group);
      llvm::append_range(work, def->getOperands());
    }
    llvm::sort(found, [](GroupReduceOp a, GroupReduceOp b) {
      return a->isBeforeInBlock(b);
    });
    return found;
  }

  /// The columns [begin, end) of group g of row i (groups of `width`), with
  /// `reductions` (in body order) computed over them into `mapping`.
  std::pair<Value, Value> mapGroup(OpBuilder &b, Location loc, Value i, Value g,
                                   Value width,
                                   ArrayRef<GroupReduceOp> reductions,
                                   IRMapping &mapping, LogicalResult &status) {
    Value begin = arith::MulIOp::create(b, loc, g, width);
    Value end = arith::AddIOp::create(b, loc, begin, width);
    for (GroupReduceOp group : reductions)
      mapping.map(group.getResult(),
                  reduceOver(b, loc, i, begin, end, group.getCombiner(),
                             group.getValue(), mapping, status));
    return {begin, end};
  }

  /// The row reduction `reduce` of row i over its groups: for each group,
  /// the group reductions it reads (`groupInputs`) and then its value's
  /// combination over the group's columns (reduceOver), combined across the
  /// groups (sums in f64, each group's rounded to f32 once).
  Value reduceOverGroups(OpBuilder &b, Location loc, Value i, Value cols,
                         RowReduceOp reduce,
                         ArrayRef<GroupReduceOp> groupInputs,
                         const IRMapping &outer, LogicalResult &status) {
    Combiner combiner = reduce.getCombiner();
    bool wide = combiner == Combiner::add;
    Value init = combinerIdentity(b, loc, combiner);
    if (wide)
      init = arith::ExtFOp::create(b, loc, b.getF64Type(), init);
    Value width = arith::ConstantIndexOp::create(b, loc, *op.getGroupSize());
    Value groups = arith::DivUIOp::create(b, loc, cols, width);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(
        b, loc, zero, groups, one, ValueRange{init},
        [&](OpBuilder &gb, Location, Value g, ValueRange acc) {
          IRMapping mapping = outer;
          auto [begin, end] =
              mapGroup(gb, loc, i, g, width, groupInputs, mapping, status);
          Value part = reduceOver(gb, loc, i, begin, end, combiner,
                                  reduce.getValue(), mapping, status);
          if (wide)
            part = arith::ExtFOp::create(gb, loc, gb.getF64Type(), part);
          scf::YieldOp::create(gb, loc,
                               combine(gb, loc, combiner, acc[0], part));
        });
    Value total = loop.getResult(0);
    if (wide)
      total = arith::TruncFOp::create(b, loc, b.getF32Type(), total);
    return total;
  }

  /// Stores the full outputs and accumulates the column outputs of
  /// columns [begin, end) of row i (into partial row `partial` when split).
  void storeElements(OpBuilder &b, Location loc, Value i, Value begin,
                     Value end, Value partial, const IRMapping &outer,
                     ArrayRef<Value> accumulators, LogicalResult &status) {
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> perElement;
    for (auto [k, value] : llvm::enumerate(yield.getValues()))
      if (Role role = op.getOutputRole(k);
          role == Role::full || role == Role::col)
        perElement.push_back(value);
    if (perElement.empty())
      return;
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    scf::ForOp::create(
        b, loc, begin, end, one, ValueRange{},
        [&](OpBuilder &nb, Location, Value j, ValueRange) {
          IRMapping mapping = outer;
          mapElements(nb, loc, i, j, perElement, mapping);
          if (failed(cloneBodySlice(nb, body, perElement, mapping)))
            status = failure();
          for (auto [k, value] : llvm::enumerate(yield.getValues())) {
            Role role = op.getOutputRole(k);
            Value element = mapping.lookupOrDefault(value);
            if (role == Role::full) {
              memref::StoreOp::create(nb, loc, element, op.getOutputs()[k],
                                      ValueRange{i, j});
              continue;
            }
            if (role != Role::col)
              continue;
            SmallVector<Value> index = partial ? SmallVector<Value>{partial, j}
                                               : SmallVector<Value>{j};
            Value old = memref::LoadOp::create(nb, loc, accumulators[k], index);
            Value sum = arith::AddFOp::create(
                nb, loc, old,
                arith::ExtFOp::create(nb, loc, nb.getF64Type(), element));
            memref::StoreOp::create(nb, loc, sum, accumulators[k], index);
          }
          scf::YieldOp::create(nb, loc);
        });
  }

  /// Maps the full, column and group block arguments the slice of `targets`
  /// reads to loads at (i, j) (a group input's at (i, j / group_size)).
  void mapElements(OpBuilder &b, Location loc, Value i, Value j,
                   ArrayRef<Value> targets, IRMapping &mapping) {
    for (BlockArgument arg : argumentsUsedBy(body, targets, mapping)) {
      Value input = op.getInputs()[arg.getArgNumber()];
      Role role = op.getInputRole(arg.getArgNumber());
      if (role == Role::full)
        mapping.map(arg,
                    memref::LoadOp::create(b, loc, input, ValueRange{i, j}));
      else if (role == Role::col)
        mapping.map(arg, memref::LoadOp::create(b, loc, input, j));
      else if (role == Role::group)
        mapping.map(arg,
                    memref::LoadOp::create(
                        b, loc, input,
                        ValueRange{i, arith::DivUIOp::create(
                                          b, loc, j,
                                          arith::ConstantIndexOp::create(
                                              b, loc, *op.getGroupSize()))}));
    }
  }

  FusedOp op;
  Block &body;
};

static void lowerCombine(IRRewriter &rewriter, CombineOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value partials = op.getPartials();
  Value output = op.getOutput();
  Type element = cast<MemRefType>(output.getType()).getElementType();
  Value numPartials = memref::DimOp::create(rewriter, loc, partials, 0);
  Value cols = memref::DimOp::create(rewriter, loc, partials, 1);
  forEach(rewriter, loc, cols, [&](OpBuilder &b, Value j) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value init = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0));
    // Fixed order p = 0, 1, ...: the same bits on every run; in f64, as the
    // sums above (see the file comment).
    auto loop = scf::ForOp::create(
        b, loc, zero, numPartials, one, ValueRange{init},
        [&](OpBuilder &nb, Location, Value p, ValueRange acc) {
          Value partial =
              memref::LoadOp::create(nb, loc, partials, ValueRange{p, j});
          Value v = arith::ExtFOp::create(nb, loc, nb.getF64Type(), partial);
          scf::YieldOp::create(
              nb, loc, ValueRange{arith::AddFOp::create(nb, loc, acc[0], v)});
        });
    Value total =
        arith::TruncFOp::create(b, loc, b.getF32Type(), loop.getResult(0));
    memref::StoreOp::create(b, loc, roundTo(b, loc, total, element), output, j);
  });
  rewriter.eraseOp(op);
}

struct ConvertNormToLoopsPass
    : public mlir::norm::impl::ConvertNormToLoopsBase<ConvertNormToLoopsPass> {
  void runOnOperation() override {
    // Run on a module, the conversion drops its norm.target (nothing reads
    // it after the splits; the lowered module must parse without norm).
    auto *norm = getContext().getLoadedDialect<NormDialect>();
    if (norm && isa<ModuleOp>(getOperation()))
      getOperation()->removeAttr(norm->getTargetAttrHelper().getName());
    SmallVector<FusedOp> fused;
    SmallVector<CombineOp> combines;
    WalkResult walk = getOperation()->walk([&](Operation *op) {
      if (isa<ReduceOp, MapOp, RMSNormOp, LayerNormOp, RMSNormGradOp,
              LayerNormGradOp>(op)) {
        op->emitOpError("must be decomposed and fused into norm.fused "
                        "before convert-norm-to-loops");
        return WalkResult::interrupt();
      }
      if (auto f = dyn_cast<FusedOp>(op)) {
        if (f.getNumResults() != 0) {
          op->emitOpError("must be bufferized before convert-norm-to-loops");
          return WalkResult::interrupt();
        }
        fused.push_back(f);
      }
      // FP8: only f32 -> f8E4M3FN has a lowering (norm-expand-float8).
      std::string why;
      if (op->getParentOfType<FusedOp>() &&
          isUnsupportedFloat8Conversion(op, why)) {
        op->emitOpError(why);
        return WalkResult::interrupt();
      }
      if (auto c = dyn_cast<CombineOp>(op)) {
        if (!c.getResult().empty()) {
          op->emitOpError("must be bufferized before convert-norm-to-loops");
          return WalkResult::interrupt();
        }
        combines.push_back(c);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (FusedOp op : fused)
      if (failed(FusedLowering(op).lower(rewriter)))
        return signalPassFailure();
    for (CombineOp op : combines)
      lowerCombine(rewriter, op);
  }
};

} // namespace
