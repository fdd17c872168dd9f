//===- NormPipeline.cpp - software pipelining of row loops ----------------===//
//
// Implements --norm-pipeline on top of upstream scf::pipelineForLoop: the
// schedule puts the row's loads (norm.prefetch) in stage 0 and the rest in
// the last stage; predication wraps the prologue/epilogue ops that touch
// memory or may have undefined behavior in scf.if on the iteration existing,
// or, for ops with a predicate operand of their own, ANDs it into that.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/Transforms/Passes.h"
#include "NormDialect/Utils/PassOptions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::norm {
#define GEN_PASS_DEF_NORMPIPELINE
#include "NormDialect/Transforms/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

/// Wraps `op` in `scf.if %pred`, yielding poison when the iteration does not
/// exist (its results are then never used). Pure, speculatable ops (the
/// arithmetic of a row) run unguarded: their results are unused when the
/// iteration does not exist, and hundreds of one-op scf.if regions only
/// slow the canonicalizer (measured: 0.14 of 0.27 s for a LayerNorm
/// forward) and the code.
Operation *predicate(RewriterBase &rewriter, Operation *op, Value pred) {
  if (isPure(op))
    return op;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  // An op that carries its own predicate (norm.predicate_operand: the
  // number of an i1 operand; the row kernels' predicated loads) takes the
  // iteration's too, and stays in the basic block of the loads around it.
  if (auto number = op->getAttrOfType<IntegerAttr>(
          NormDialect::PredicateOperandAttrHelper::getNameStr())) {
    OpOperand &operand = op->getOpOperand(number.getInt());
    rewriter.modifyOpInPlace(op, [&] {
      operand.set(arith::AndIOp::create(rewriter, loc, pred, operand.get()));
    });
    return op;
  }
  auto ifOp = scf::IfOp::create(rewriter, loc, op->getResultTypes(), pred,
                                /*withElseRegion=*/op->getNumResults() > 0);
  rewriter.setInsertionPointToStart(ifOp.thenBlock());
  Operation *clone = rewriter.clone(*op);
  if (op->getNumResults() > 0) {
    scf::YieldOp::create(rewriter, loc, clone->getResults());
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    SmallVector<Value> poison;
    for (Type type : op->getResultTypes())
      poison.push_back(ub::PoisonOp::create(rewriter, loc, type));
    scf::YieldOp::create(rewriter, loc, poison);
  }
  rewriter.replaceOp(op, ifOp.getResults());
  return ifOp;
}

/// An op's norm.predicate_operand must name one of its operands, an i1.
LogicalResult verifyPredicateOperand(Operation *op) {
  Attribute attr =
      op->getAttr(NormDialect::PredicateOperandAttrHelper::getNameStr());
  if (!attr)
    return success();
  auto number = dyn_cast<IntegerAttr>(attr);
  if (!number || number.getInt() < 0 ||
      number.getInt() >= static_cast<int64_t>(op->getNumOperands()) ||
      !op->getOperand(number.getInt()).getType().isInteger(1))
    return op->emitError("norm.predicate_operand must be the number of an i1 "
                         "operand, got ")
           << attr;
  return success();
}

struct NormPipelinePass
    : public mlir::norm::impl::NormPipelineBase<NormPipelinePass> {
  using Base::Base;

  LogicalResult pipeline(IRRewriter &rewriter, scf::ForOp loop,
                         int64_t stages) {
    if (stages <= 1)
      return success();
    unsigned last = stages - 1;
    Block *body = loop.getBody();
    // Stage 0: the marked loads and what they need inside the loop (the row
    // index of a persistent kernel, computed from the induction variable),
    // also through the regions of a guarded load (scf.if).
    llvm::SmallPtrSet<Operation *, 16> early;
    for (Operation &op : body->without_terminator())
      if (op.hasAttr(NormDialect::PrefetchAttrHelper::getNameStr()))
        early.insert(&op);
    bool grew = true;
    while (grew) {
      grew = false;
      for (Operation &op : body->without_terminator()) {
        if (!early.contains(&op))
          continue;
        auto need = [&](Value value) {
          if (Operation *def = value.getDefiningOp())
            if (def->getBlock() == body && early.insert(def).second)
              grew = true;
        };
        for (Value operand : op.getOperands())
          need(operand);
        visitUsedValuesDefinedAbove(op.getRegions(),
                                    [&](OpOperand *use) { need(use->get()); });
      }
    }
    if (early.empty())
      return success();
    scf::PipeliningOption options;
    options.getScheduleFn =
        [&](scf::ForOp, std::vector<std::pair<Operation *, unsigned>> &s) {
          for (Operation &op : body->without_terminator())
            if (early.contains(&op))
              s.emplace_back(&op, 0);
          for (Operation &op : body->without_terminator())
            if (!early.contains(&op))
              s.emplace_back(&op, last);
        };
    options.supportDynamicLoops = true;
    // Peeling the epilogue copies the last stage (the whole row's
    // arithmetic) once per stage but needs no guards on the steady state;
    // loops marked norm.predicate_epilogue (rows staged in shared memory,
    // whose early ops are a few scalar loads) keep one copy of the body and
    // guard the early loads of iterations past the end instead.
    options.peelEpilogue =
        !loop->hasAttr(NormDialect::PredicateEpilogueAttrHelper::getNameStr());
    options.predicateFn = predicate;
    bool modified = false;
    // The pipeliner builds the prologue at the rewriter's insertion point.
    rewriter.setInsertionPoint(loop);
    FailureOr<scf::ForOp> result =
        scf::pipelineForLoop(rewriter, loop, options, &modified);
    if (failed(result)) {
      if (modified)
        return loop.emitError("software pipelining failed halfway");
      // Left as is: correct, just not pipelined.
      loop->emitRemark("row loop not pipelined");
    }
    return success();
  }

  /// Options are checked once, before the pass sees any IR
  /// (reportOptionError).
  LogicalResult initialize(MLIRContext *context) override {
    std::string error;
    if (numStages < 1 || numStages > 4)
      error = "num-stages must be 1 to 4, got " +
              std::to_string(static_cast<int64_t>(numStages));
    return norm::reportOptionError(context, getArgument(), error);
  }

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(NormDialect::RowLoopAttrHelper::getNameStr()))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      WalkResult checked = loop.getBody()->walk([](Operation *op) {
        return failed(verifyPredicateOperand(op)) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
      });
      if (checked.wasInterrupted())
        return signalPassFailure();
      int64_t stages = numStages;
      if (auto attr = loop->getAttrOfType<IntegerAttr>(
              NormDialect::NumStagesAttrHelper::getNameStr())) {
        if (attr.getInt() < 1 || attr.getInt() > 4) {
          loop.emitError("norm.num_stages must be 1 to 4, got ")
              << attr.getInt();
          return signalPassFailure();
        }
        stages = attr.getInt();
      }
      if (failed(pipeline(rewriter, loop, stages)))
        return signalPassFailure();
    }
  }
};

} // namespace
