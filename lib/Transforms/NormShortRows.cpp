//===- NormShortRows.cpp - kernel versions for a few rows -----------------===//
//
// Implements --norm-short-rows: kernels are versioned on their row count.
// Below the limit (chooseShortRowsLimit, or the option) a norm.fused kernel
// that mixes row work (row reductions, full outputs) with column outputs
// runs as two kernels: the row part and a column part marked
// norm.whole_columns, which norm-split-reduction leaves whole (one kernel
// summing every row of its columns, no partials, no combine). The parts are
// independent, so the GPU overlaps them. In the rows chooseStreamedRows
// gives, a forward is marked norm.stream_rows: the GPU lowering streams its
// rows through L2. See NormDialect/Transforms/Passes.td for the trades.
//
// Why an scf.if and not two bundles: the host program stays one function
// whose launches the bundle records with the branch's condition (its
// `when`), and both branches write the same destination tensors, so
// bufferization gives them the same buffers and the program's results do
// not depend on the branch taken.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Transforms/Passes.h"
#include "NormDialect/Tuning/Tuning.h"
#include "NormDialect/Utils/KernelBody.h"
#include "NormDialect/Utils/PassOptions.h"
#include "NormDialect/Utils/TargetDevice.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace mlir::norm {
#define GEN_PASS_DEF_NORMSHORTROWS
#include "NormDialect/Transforms/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

/// Marks the scf.if this pass creates, so that running it again leaves the
/// versions alone.
static constexpr llvm::StringLiteral kShortRowsIfAttr =
    NormDialect::ShortRowsAttrHelper::getNameStr();

namespace {

/// The versions a streamed forward's short version is made of (the tuning
/// rules' row ranges; empty: none).
struct StreamedVersions {
  /// Bands of rows that blocks hold several of (chooseHeldRows).
  std::vector<HeldRows> held;
  /// Rows whose blocks load their column inputs with the row
  /// (choosePreloadedColumnsRows).
  RowRange preloaded;
  /// The one row of static shape (chooseOneRowForwardRows).
  RowRange oneRow;
};

/// The row count M of `op` (ShapedType::kDynamic where it is dynamic).
int64_t rowCount(FusedOp op) {
  return cast<RankedTensorType>(op.getShapeSource().getType()).getDimSize(0);
}

/// The body ops and block arguments that the yields `outputs` of `op`
/// depend on.
struct BodySlice {
  llvm::SetVector<Operation *> ops;
  llvm::BitVector arguments;
};

BodySlice sliceOf(FusedOp op, ArrayRef<unsigned> outputs) {
  Block &body = op.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  BodySlice slice;
  slice.arguments.resize(body.getNumArguments());
  SmallVector<Value> work;
  for (unsigned k : outputs)
    work.push_back(yield.getValues()[k]);
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == &body)
        slice.arguments.set(arg.getArgNumber());
      continue;
    }
    Operation *def = v.getDefiningOp();
    // Values from outside the body (constants such as 1/N) stay captured.
    if (!def || def->getBlock() != &body || !slice.ops.insert(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  return slice;
}

/// A norm.fused op at `b` computing the outputs `outputs` of `op` (into the
/// same destinations): the inputs and body ops they need, in body order.
FusedOp buildPart(OpBuilder &b, FusedOp op, ArrayRef<unsigned> outputs) {
  BodySlice slice = sliceOf(op, outputs);
  Block &body = op.getBody().front();
  SmallVector<Value> inputs, destinations;
  SmallVector<Attribute> roles, outputRoles;
  SmallVector<Type> argTypes, resultTypes;
  SmallVector<Location> argLocs;
  for (unsigned i : slice.arguments.set_bits()) {
    inputs.push_back(op.getInputs()[i]);
    roles.push_back(op.getRoles()[i]);
    argTypes.push_back(body.getArgument(i).getType());
    argLocs.push_back(body.getArgument(i).getLoc());
  }
  for (unsigned k : outputs) {
    destinations.push_back(op.getOutputs()[k]);
    outputRoles.push_back(op.getOutputRoles()[k]);
    resultTypes.push_back(op.getResult(k).getType());
  }
  auto part = FusedOp::create(
      b, op.getLoc(), resultTypes, inputs, b.getArrayAttr(roles), destinations,
      b.getArrayAttr(outputRoles),
      /*rows_per_partial=*/nullptr, /*min_partials=*/nullptr,
      /*min_rows_per_partial=*/nullptr,
      /*max_partials=*/nullptr, op.getGroupSizeAttr());
  OpBuilder::InsertionGuard guard(b);
  Block *partBody = b.createBlock(&part.getBody(), {}, argTypes, argLocs);
  IRMapping mapping;
  for (auto [index, i] : llvm::enumerate(slice.arguments.set_bits()))
    mapping.map(body.getArgument(i), partBody->getArgument(index));
  for (Operation &bodyOp : body.without_terminator())
    if (slice.ops.contains(&bodyOp))
      b.clone(bodyOp, mapping);
  auto yield = cast<YieldOp>(body.getTerminator());
  YieldOp::create(b, op.getLoc(), llvm::map_to_vector(outputs, [&](unsigned k) {
                    return mapping.lookupOrDefault(yield.getValues()[k]);
                  }));
  return part;
}

struct NormShortRowsPass
    : public mlir::norm::impl::NormShortRowsBase<NormShortRowsPass> {
  using Base::Base;

  /// The outputs of `op` by part: row work first, column outputs second.
  /// False if the op does not mix them, or if its column outputs need one of
  /// its row reductions (they could not be computed apart).
  static bool partition(FusedOp op, SmallVectorImpl<unsigned> &rowOutputs,
                        SmallVectorImpl<unsigned> &columnOutputs) {
    for (unsigned k = 0, e = op.getOutputs().size(); k < e; ++k)
      (op.getOutputRole(k) == Role::col ? columnOutputs : rowOutputs)
          .push_back(k);
    if (rowOutputs.empty() || columnOutputs.empty())
      return false;
    // The column part needs a full input of its own (its M x N space) and
    // no row reduction.
    BodySlice columns = sliceOf(op, columnOutputs);
    bool readsFull =
        llvm::any_of(columns.arguments.set_bits(), [&](unsigned i) {
          return op.getInputRole(i) == Role::full;
        });
    return readsFull && llvm::none_of(columns.ops, [](Operation *o) {
             return isa<RowReduceOp>(o);
           });
  }

  /// The two parts of `op` at `b`, their results in the order of `op`'s.
  static SmallVector<Value> buildParts(OpBuilder &b, FusedOp op,
                                       ArrayRef<unsigned> rowOutputs,
                                       ArrayRef<unsigned> columnOutputs) {
    FusedOp rows = buildPart(b, op, rowOutputs);
    // The row part keeps the kernel's own settings (rows per block, stages);
    // the column part has no rows to tune, only its columns.
    for (NamedAttribute attr : op->getDiscardableAttrs())
      rows->setAttr(attr.getName(), attr.getValue());
    FusedOp columns = buildPart(b, op, columnOutputs);
    columns->setAttr(FusedOp::getWholeColumnsAttrName(), b.getUnitAttr());
    SmallVector<Value> results(op.getNumResults());
    for (auto [k, v] : llvm::zip(rowOutputs, rows.getResults()))
      results[k] = v;
    for (auto [k, v] : llvm::zip(columnOutputs, columns.getResults()))
      results[k] = v;
    return results;
  }

  /// The results of `inside(b)` where the row count of `op` lies in `rows`
  /// and of `outside(b)` where it does not: one of the two for a static M
  /// or a range of every M, else both in an scf.if on M marked
  /// kShortRowsIfAttr (a range from row 0 or without an end is one
  /// comparison, any other an arith.andi of two).
  static SmallVector<Value>
  versionOnRows(OpBuilder &b, FusedOp op, RowRange rows,
                function_ref<SmallVector<Value>(OpBuilder &)> inside,
                function_ref<SmallVector<Value>(OpBuilder &)> outside) {
    int64_t m = rowCount(op);
    if (!ShapedType::isDynamic(m))
      return rows.contains(m) ? inside(b) : outside(b);
    // Every M: one version, no branch.
    if (rows.coversAll())
      return inside(b);
    Location loc = op.getLoc();
    Value count = tensor::DimOp::create(b, loc, op.getShapeSource(), 0);
    // A range without an end (RowRange::all's) is one comparison too.
    Value within;
    if (rows.end != RowRange::all().end)
      within = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, count,
          arith::ConstantIndexOp::create(b, loc, rows.end));
    if (rows.begin > 0) {
      Value from = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::uge, count,
          arith::ConstantIndexOp::create(b, loc, rows.begin));
      within = within ? arith::AndIOp::create(b, loc, from, within).getResult()
                      : from;
    }
    return branch(b, loc, within, inside, outside);
  }

  /// The results of `inside(b)` where the (dynamic) row count of `op` is a
  /// multiple of `factor` and of `outside(b)` where it is not, in an scf.if
  /// on M's remainder marked kShortRowsIfAttr.
  static SmallVector<Value>
  versionOnMultiple(OpBuilder &b, FusedOp op, int64_t factor,
                    function_ref<SmallVector<Value>(OpBuilder &)> inside,
                    function_ref<SmallVector<Value>(OpBuilder &)> outside) {
    Location loc = op.getLoc();
    Value count = tensor::DimOp::create(b, loc, op.getShapeSource(), 0);
    Value remainder = arith::RemUIOp::create(
        b, loc, count, arith::ConstantIndexOp::create(b, loc, factor));
    Value whole =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, remainder,
                              arith::ConstantIndexOp::create(b, loc, 0));
    return branch(b, loc, whole, inside, outside);
  }

  /// The results of an scf.if on `condition` marked kShortRowsIfAttr
  /// (running the pass again leaves it alone) whose branches yield
  /// `inside(b)` and `outside(b)`.
  static SmallVector<Value>
  branch(OpBuilder &b, Location loc, Value condition,
         function_ref<SmallVector<Value>(OpBuilder &)> inside,
         function_ref<SmallVector<Value>(OpBuilder &)> outside) {
    auto ifOp = scf::IfOp::create(
        b, loc, condition,
        [&](OpBuilder &tb, Location l) {
          scf::YieldOp::create(tb, l, inside(tb));
        },
        [&](OpBuilder &eb, Location l) {
          scf::YieldOp::create(eb, l, outside(eb));
        });
    ifOp->setAttr(kShortRowsIfAttr, b.getUnitAttr());
    return ifOp.getResults();
  }

  /// `op` cloned at `b` with the unit attribute `name`, and its results.
  static SmallVector<Value> cloneMarked(OpBuilder &b, FusedOp op,
                                        StringRef name,
                                        ArrayRef<NamedAttribute> more = {}) {
    Operation *clone = b.clone(*op);
    clone->setAttr(name, b.getUnitAttr());
    for (NamedAttribute attr : more)
      clone->setAttr(attr.getName(), attr.getValue());
    return clone->getResults();
  }

  /// `op` over exactly one row at `b`, and its results in `op`'s types:
  /// the operands whose first dimension counts the rows (full and row
  /// roles) are cast to one row, so that the lowering sees M = 1 and emits
  /// one block without the row loop or its bounds (a kernel compiled for a
  /// static M = 1 ran 1.03x of the looped single block at 1 x 4096 on the
  /// H200).
  static SmallVector<Value> oneRow(OpBuilder &b, FusedOp op, StringRef name,
                                   ArrayRef<NamedAttribute> more = {}) {
    Location loc = op.getLoc();
    auto toOneRow = [&](Value v, Role role) -> Value {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || role == Role::col || !type.isDynamicDim(0))
        return v;
      SmallVector<int64_t> shape(type.getShape());
      shape[0] = 1;
      return tensor::CastOp::create(b, loc, type.clone(shape), v);
    };
    IRMapping mapping;
    for (auto [i, v] : llvm::enumerate(op.getInputs()))
      mapping.map(v, toOneRow(v, op.getInputRole(i)));
    for (auto [i, v] : llvm::enumerate(op.getOutputs()))
      mapping.map(v, toOneRow(v, op.getOutputRole(i)));
    Operation *clone = b.clone(*op, mapping);
    clone->setAttr(name, b.getUnitAttr());
    for (NamedAttribute attr : more)
      clone->setAttr(attr.getName(), attr.getValue());
    SmallVector<Value> results;
    for (auto [result, init, original] :
         llvm::zip(clone->getResults(), op.getOutputs(), op->getResults())) {
      result.setType(mapping.lookup(init).getType());
      results.push_back(
          result.getType() == original.getType()
              ? Value(result)
              : tensor::CastOp::create(b, loc, original.getType(), result)
                    .getResult());
    }
    return results;
  }

  /// The streamed version of forward `op` at `b` and its results: where M
  /// lies in one of the `held` bands (chooseHeldRows), blocks hold its
  /// rowsPerBlock rows (norm.rows_per_block), shared out among their warps
  /// (norm.warp_rows) and with registers for minBlocksPerSM blocks an SM
  /// (norm.min_blocks_per_sm) where it says so; a row each elsewhere. The bands
  /// are versions in a chain, the highest first (most rows at large M take
  /// one comparison), each checking only the bound the ones before have not
  /// made. Below them, in `preloaded` (choosePreloadedColumnsRows), the
  /// blocks of a row each load their column inputs with it
  /// (norm.preload_columns); at `oneRow` (chooseOneRowForwardRows) the one
  /// row is a version of static shape, whose lowering spreads it over more
  /// threads. Every version with M bounded from above, by the branches here
  /// or by `rowsEnd` (the short version's end), says so in norm.rows_below.
  static SmallVector<Value> buildStreamed(OpBuilder &b, FusedOp op,
                                          StreamedVersions versions,
                                          int64_t rowsEnd) {
    StringRef stream = FusedOp::getStreamRowsAttrName();
    ArrayRef<HeldRows> bands = versions.held;
    RowRange preloaded = versions.preloaded;
    if (!bands.empty())
      preloaded.end = std::min(preloaded.end, bands.front().rows.begin);
    // norm.rows_below for a version that only runs where M < `bound`
    // (none without a bound, or where M is static).
    bool staticRows = !ShapedType::isDynamic(rowCount(op));
    auto rowsBelow = [&](OpBuilder &ab, int64_t bound) {
      SmallVector<NamedAttribute> attrs;
      if (!staticRows && bound < RowRange::all().end)
        attrs.push_back(ab.getNamedAttr(FusedOp::getRowsBelowAttrName(),
                                        ab.getI64IntegerAttr(bound)));
      return attrs;
    };
    auto preloadColumns = [](OpBuilder &pb) {
      return pb.getNamedAttr(FusedOp::getPreloadColumnsAttrName(),
                             pb.getUnitAttr());
    };
    // The attributes of a version whose rows lie within `preloaded`.
    auto preload = [&](OpBuilder &pb, int64_t bound) {
      SmallVector<NamedAttribute> attrs =
          rowsBelow(pb, std::min(bound, preloaded.end));
      attrs.push_back(preloadColumns(pb));
      return attrs;
    };
    // The versions of a row a block where M < `bound`.
    auto rowABlock = [&](OpBuilder &ob, int64_t bound) -> SmallVector<Value> {
      auto plain = [&](OpBuilder &pb) {
        return cloneMarked(pb, op, stream, rowsBelow(pb, bound));
      };
      if (preloaded.empty())
        return plain(ob);
      // Preloaded columns for every M below `bound` (a held band starting
      // below preloaded's end cut it there): no version of a row a block
      // without them, which no M would reach.
      if (preloaded.begin <= 0 && preloaded.end >= bound)
        return cloneMarked(ob, op, stream, preload(ob, bound));
      return versionOnRows(
          ob, op, preloaded,
          [&](OpBuilder &pb) {
            return cloneMarked(pb, op, stream, preload(pb, bound));
          },
          plain);
    };
    auto oneRowFirst = [&](OpBuilder &ob, int64_t bound) -> SmallVector<Value> {
      auto rest = [&](OpBuilder &rb) { return rowABlock(rb, bound); };
      if (versions.oneRow.empty())
        return rest(ob);
      // The one row's version has a static M of 1: no bound to state.
      return versionOnRows(
          ob, op, versions.oneRow,
          [&](OpBuilder &pb) {
            SmallVector<NamedAttribute> attrs;
            if (preloaded.contains(1))
              attrs.push_back(preloadColumns(pb));
            return oneRow(pb, op, stream, attrs);
          },
          rest);
    };
    auto heldBy = [&](OpBuilder &hb, const HeldRows &band, int64_t bound) {
      SmallVector<NamedAttribute> attrs =
          rowsBelow(hb, std::min(bound, band.rows.end));
      attrs.push_back(hb.getNamedAttr(FusedOp::getRowsPerBlockAttrName(),
                                      hb.getI64IntegerAttr(band.rowsPerBlock)));
      if (band.warpRows)
        attrs.push_back(
            hb.getNamedAttr(FusedOp::getWarpRowsAttrName(), hb.getUnitAttr()));
      if (band.minBlocksPerSM > 0)
        attrs.push_back(
            hb.getNamedAttr(FusedOp::getMinBlocksPerSMAttrName(),
                            hb.getI64IntegerAttr(band.minBlocksPerSM)));
      if (band.vectorWidth > 0)
        attrs.push_back(
            hb.getNamedAttr(FusedOp::getVectorWidthAttrName(),
                            hb.getI64IntegerAttr(band.vectorWidth)));
      auto bounded = [&](OpBuilder &vb) {
        SmallVector<NamedAttribute> boundedAttrs(attrs);
        if (band.wholeBlocksBranch)
          boundedAttrs.push_back(vb.getNamedAttr(
              FusedOp::getWholeBlocksBranchAttrName(), vb.getUnitAttr()));
        return cloneMarked(vb, op, stream, boundedAttrs);
      };
      if (!band.wholeBlocksVersion)
        return bounded(hb);
      // The version for M a multiple of the block's rows, whose blocks
      // check none of them against M.
      auto whole = [&](OpBuilder &vb) {
        SmallVector<NamedAttribute> wholeAttrs(attrs);
        wholeAttrs.push_back(
            vb.getNamedAttr(FusedOp::getRowsMultipleAttrName(),
                            vb.getI64IntegerAttr(band.rowsPerBlock)));
        return cloneMarked(vb, op, stream, wholeAttrs);
      };
      // A static M takes one of the two.
      if (staticRows)
        return rowCount(op) % band.rowsPerBlock == 0 ? whole(hb) : bounded(hb);
      return versionOnMultiple(hb, op, band.rowsPerBlock, whole, bounded);
    };
    // Bands [0, k) at `cb`, where every M from `takenFrom` on has gone to
    // a version already.
    std::function<SmallVector<Value>(OpBuilder &, size_t, int64_t)> below =
        [&](OpBuilder &cb, size_t k, int64_t takenFrom) -> SmallVector<Value> {
      // M < takenFrom here, and M < rowsEnd in every version.
      int64_t bound = std::min(takenFrom, rowsEnd);
      if (k == 0)
        return oneRowFirst(cb, bound);
      const HeldRows &band = bands[k - 1];
      RowRange rows = band.rows;
      // A band that reaches the versions above needs no upper bound, and
      // then everything from its start on is taken.
      int64_t nextTakenFrom = takenFrom;
      if (rows.end >= takenFrom) {
        rows.end = RowRange::all().end;
        nextTakenFrom = rows.begin;
      }
      return versionOnRows(
          cb, op, rows, [&](OpBuilder &hb) { return heldBy(hb, band, bound); },
          [&](OpBuilder &ob) { return below(ob, k - 1, nextTakenFrom); });
    };
    return below(b, bands.size(), RowRange::all().end);
  }

  /// The short version of `op` at `b` and its results: for a mixed-order
  /// kernel, one block over all rows below `singleBlockRows` rows
  /// (chooseSingleBlockRows), else the row and column parts; a forward whose
  /// rows stream, in `streamed`'s versions, all below `rowsEnd` rows.
  static SmallVector<Value>
  buildShort(OpBuilder &b, FusedOp op, ArrayRef<unsigned> rowOutputs,
             ArrayRef<unsigned> columnOutputs, int64_t singleBlockRows,
             const StreamedVersions &streamed, int64_t rowsEnd) {
    if (columnOutputs.empty())
      return buildStreamed(b, op, streamed, rowsEnd);
    auto parts = [&](OpBuilder &pb) {
      return buildParts(pb, op, rowOutputs, columnOutputs);
    };
    if (singleBlockRows <= 0)
      return parts(b);
    // At one row (chooseSingleBlockRows' 2) the block is of static shape,
    // and M = 0 takes the parts, whose empty row kernel is not launched and
    // whose column kernel writes the zero sums; more rows keep M dynamic.
    bool single = singleBlockRows == 2;
    return versionOnRows(
        b, op, RowRange{single ? 1 : 0, singleBlockRows},
        [&](OpBuilder &wb) {
          StringRef whole = FusedOp::getWholeColumnsAttrName();
          return single ? oneRow(wb, op, whole) : cloneMarked(wb, op, whole);
        },
        parts);
  }

  LogicalResult version(IRRewriter &rewriter, FusedOp op) {
    SmallVector<unsigned> rowOutputs, columnOutputs;
    DeviceInfo device = targetDevice(op);
    KernelShape shape = describeKernel(op);
    // The rule applies to the kernels that have a short version: mixed
    // orders that split, and forwards that stream (no column outputs, not
    // streamed already).
    RowRange rule;
    if (partition(op, rowOutputs, columnOutputs))
      rule = {0, chooseShortRowsLimit(shape, device)};
    else if (columnOutputs.empty() &&
             !op->hasAttr(FusedOp::getStreamRowsAttrName()))
      rule = chooseStreamedRows(shape, device);
    if (rule.empty())
      return success();
    RowRange rows = shortRows >= 0 ? RowRange{0, shortRows} : rule;
    if (rows.empty())
      return success();
    // A static M outside the rows keeps the kernel as it is.
    int64_t m = rowCount(op);
    if (!ShapedType::isDynamic(m) && !rows.contains(m))
      return success();
    int64_t singleBlockRows =
        columnOutputs.empty() ? 0 : chooseSingleBlockRows(shape, device);
    // Held rows where the rule streams the rows (chooseHeldRows keeps
    // within chooseStreamedRows' range), not where the option replaced it.
    StreamedVersions streamed;
    if (columnOutputs.empty() && shortRows < 0) {
      streamed.held = chooseHeldRows(shape, device, warpRows);
      streamed.preloaded = choosePreloadedColumnsRows(shape, device);
      streamed.oneRow = chooseOneRowForwardRows(shape, device);
    }
    rewriter.setInsertionPoint(op);
    SmallVector<Value> results = versionOnRows(
        rewriter, op, rows,
        [&](OpBuilder &b) {
          return buildShort(b, op, rowOutputs, columnOutputs, singleBlockRows,
                            streamed, rows.end);
        },
        [&](OpBuilder &b) {
          return SmallVector<Value>(b.clone(*op)->getResults());
        });
    rewriter.replaceOp(op, results);
    return success();
  }

  /// Options are checked once, before the pass sees any IR
  /// (reportOptionError).
  LogicalResult initialize(MLIRContext *context) override {
    std::string error = validateShortRowsLimit(shortRows);
    if (error.empty())
      error = validateWarpRows(warpRows);
    return reportOptionError(context, getArgument(), error);
  }

  void runOnOperation() override {
    SmallVector<FusedOp> candidates;
    getOperation()->walk([&](FusedOp op) {
      auto parentIf = op->getParentOfType<scf::IfOp>();
      // Kernels with group reductions keep one version: only the row
      // kernel lowers them (planKernel), and their column part would carry
      // the group reductions into a column kernel.
      if (isa<RankedTensorType>(op.getShapeSource().getType()) &&
          !op.getRowsPerPartial() && !op.getGroupSize() &&
          !op->hasAttr(FusedOp::getWholeColumnsAttrName()) &&
          !(parentIf && parentIf->hasAttr(kShortRowsIfAttr)))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (FusedOp op : candidates)
      if (failed(version(rewriter, op)))
        return signalPassFailure();
  }
};

} // namespace
