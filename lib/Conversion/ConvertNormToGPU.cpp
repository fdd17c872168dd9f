//===- ConvertNormToGPU.cpp - norm kernels to gpu.func --------------------===//
//
// Outlines bufferized norm.fused / norm.combine ops into gpu.func kernels.
//
// A norm.fused kernel spreads one row over a thread block (RowLayout from
// Tuning.h): thread t owns vector chunks c of VW contiguous elements at
// columns (c * T + t) * VW, loads them with 16-byte vector loads (when N
// allows) and keeps them in registers while the body is evaluated for every
// element it owns. norm.row_reduce becomes a per-thread combine followed by
// gpu.all_reduce (warp shuffles + shared memory once lowered to NVVM), so the
// row's reductions and the elementwise work that needs them share one read
// of the row. A block walks `rows_per_partial` consecutive rows and keeps the
// column outputs' partial sums in f32 registers across them, writing one
// partial row at the end: the mixed-order fusion with a deterministic split.
//
// A norm.combine kernel gives each thread one column and sums the partial
// rows in order.
//
// Launch information for the kernel bundle is recorded on each gpu.func:
// `norm.block_size`, and either `norm.rows_per_block` (grid = ceil(M / r))
// or `norm.cols_per_block` (grid = ceil(N / c)).
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Utils/KernelBody.h"
#include "NormDialect/Conversion/Passes.h"
#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Tuning/Tuning.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::norm {
#define GEN_PASS_DEF_CONVERTNORMTOGPU
#include "NormDialect/Conversion/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

/// Marks the loads of a row that --norm-pipeline may issue stages early, and
/// the row loop it pipelines (names shared with NormPipeline.cpp).
constexpr llvm::StringLiteral kPrefetchAttr = "norm.prefetch";
constexpr llvm::StringLiteral kRowLoopAttr = "norm.row_loop";

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Code generation of one norm.fused kernel body.
class FusedKernelBuilder {
public:
  FusedKernelBuilder(FusedOp op, RowLayout layout, int64_t n,
                     int64_t rowsPerBlock)
      : op(op), body(op.getBody().front()), layout(layout), n(n),
        rowsPerBlock(rowsPerBlock) {}

  /// Emits the kernel into `func` whose arguments are the op's inputs then
  /// outputs.
  LogicalResult build(gpu::GPUFuncOp func) {
    OpBuilder b = OpBuilder::atBlockEnd(&func.getBody().front());
    Location loc = op.getLoc();
    unsigned numInputs = op.getInputs().size();
    auto args = func.getArguments();
    inputs = SmallVector<Value>(args.take_front(numInputs));
    outputs = SmallVector<Value>(args.drop_front(numInputs));

    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    // With row groups (short rows), each warp of the block works on rows of
    // its own as a "virtual block": its lane is the thread index within the
    // row, and its partial row is bid * groups + warp.
    if (layout.rowGroups > 1) {
      Value warp = arith::DivUIOp::create(b, loc, tid, indexConst(b, loc, 32));
      tid = arith::RemUIOp::create(b, loc, tid, indexConst(b, loc, 32));
      bid = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, bid,
                                indexConst(b, loc, layout.rowGroups)),
          warp);
    }
    Value shapeSource;
    for (unsigned i = 0; i < numInputs; ++i)
      if (op.getInputRole(i) == Role::full && !shapeSource)
        shapeSource = inputs[i];
    for (unsigned i = 0; i < outputs.size(); ++i)
      if (op.getOutputRole(i) == Role::full && !shapeSource)
        shapeSource = outputs[i];
    Value rows = memref::DimOp::create(b, loc, shapeSource, 0);
    int64_t split = rowsPerBlock;
    Value rowBegin =
        arith::MulIOp::create(b, loc, bid, indexConst(b, loc, split));
    Value rowEnd = arith::MinUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, rowBegin, indexConst(b, loc, split)),
        rows);

    // Column offsets and bounds of this thread's chunks. With column slices
    // (no row reductions left), block y owns columns [y * W, (y + 1) * W).
    Value sliceBase;
    if (layout.columnSlices > 1) {
      sliceY = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
      sliceBase = arith::MulIOp::create(
          b, loc, sliceY, indexConst(b, loc, layout.sliceWidth()));
    }
    bool slicesExact = n % layout.sliceWidth() == 0;
    int64_t rowThreads = layout.threadsPerRow();
    for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
      Value chunk = arith::AddIOp::create(
          b, loc, indexConst(b, loc, c * rowThreads), tid);
      Value col = arith::MulIOp::create(b, loc, chunk,
                                        indexConst(b, loc, layout.vectorWidth));
      if (sliceBase)
        col = arith::AddIOp::create(b, loc, sliceBase, col);
      columns.push_back(col);
      // Chunks that every thread owns inside the row need no guard.
      bool alwaysInside =
          layout.columnSlices > 1
              ? slicesExact
              : (c + 1) * rowThreads * layout.vectorWidth <= n;
      inBounds.push_back(alwaysInside
                             ? Value()
                             : arith::CmpIOp::create(
                                   b, loc, arith::CmpIPredicate::ult, col,
                                   indexConst(b, loc, n))
                                   .getResult());
    }

    // Column inputs are the same for every row: load them once.
    elementValues.assign(numInputs, {});
    for (unsigned i = 0; i < numInputs; ++i)
      if (op.getInputRole(i) == Role::col)
        elementValues[i] = loadRow(b, loc, inputs[i], /*row=*/Value());

    // Column accumulators, flattened [output][chunk][lane].
    SmallVector<Value> initAccs;
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    for (unsigned k = 0; k < outputs.size(); ++k)
      if (op.getOutputRole(k) == Role::col)
        initAccs.append(layout.elementsPerThread(), zero);

    LogicalResult status = success();
    auto loop = scf::ForOp::create(
        b, loc, rowBegin, rowEnd, indexConst(b, loc, 1), initAccs,
        [&](OpBuilder &lb, Location l, Value row, ValueRange accs) {
          SmallVector<Value> next;
          if (failed(emitRow(lb, l, row, tid, accs, next)))
            status = failure();
          scf::YieldOp::create(lb, l, next);
        });
    if (failed(status))
      return failure();
    loop->setAttr(kRowLoopAttr, b.getUnitAttr());
    if (Attribute stages = op->getAttr("norm.num_stages"))
      loop->setAttr("norm.num_stages", stages);

    // One partial row per (virtual) block for every column output; a row
    // group past the last row has no partial row to write.
    Value hasRows = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          rowBegin, rows);
    auto storePartials = scf::IfOp::create(b, loc, hasRows,
                                           /*withElseRegion=*/false);
    OpBuilder pb = OpBuilder::atBlockBegin(storePartials.thenBlock());
    unsigned accIndex = 0;
    for (unsigned k = 0; k < outputs.size(); ++k) {
      if (op.getOutputRole(k) != Role::col)
        continue;
      SmallVector<Value> lanes(loop.getResults().begin() + accIndex,
                               loop.getResults().begin() + accIndex +
                                   layout.elementsPerThread());
      accIndex += layout.elementsPerThread();
      storeRow(pb, loc, outputs[k], bid, lanes);
    }
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  /// Loads this thread's chunks of `memref` at `row` (a full value) or of a
  /// column value (row == null) and returns one scalar per element.
  SmallVector<Value> loadRow(OpBuilder &b, Location loc, Value memref,
                             Value row) {
    auto type = cast<MemRefType>(memref.getType());
    Type element = type.getElementType();
    auto vecType = VectorType::get({layout.vectorWidth}, element);
    int64_t alignment =
        layout.vectorWidth * element.getIntOrFloatBitWidth() / 8;
    SmallVector<Value> scalars;
    for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
      SmallVector<Value> index;
      if (row)
        index.push_back(row);
      index.push_back(columns[c]);
      auto load = [&](OpBuilder &lb, Location l) -> Value {
        return vector::LoadOp::create(lb, l, vecType, memref, index,
                                      /*nontemporal=*/false,
                                      lb.getI64IntegerAttr(alignment));
      };
      Value vec;
      if (!inBounds[c]) {
        vec = load(b, loc);
      } else {
        vec = scf::IfOp::create(
                  b, loc, inBounds[c],
                  [&](OpBuilder &tb, Location l) {
                    scf::YieldOp::create(tb, l, load(tb, l));
                  },
                  [&](OpBuilder &eb, Location l) {
                    Value zeros = arith::ConstantOp::create(
                        eb, l, eb.getZeroAttr(vecType));
                    scf::YieldOp::create(eb, l, zeros);
                  })
                  .getResult(0);
      }
      // Loads of a row's data are what --norm-pipeline issues early.
      if (row)
        vec.getDefiningOp()->setAttr(kPrefetchAttr, b.getUnitAttr());
      for (int64_t v = 0; v < layout.vectorWidth; ++v)
        scalars.push_back(vector::ExtractOp::create(b, loc, vec, v));
    }
    return scalars;
  }

  /// Stores one value per owned element into row `row` of `memref`.
  void storeRow(OpBuilder &b, Location loc, Value memref, Value row,
                ArrayRef<Value> lanes) {
    auto type = cast<MemRefType>(memref.getType());
    Type element = type.getElementType();
    auto vecType = VectorType::get({layout.vectorWidth}, element);
    int64_t alignment =
        layout.vectorWidth * element.getIntOrFloatBitWidth() / 8;
    for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
      SmallVector<Value> values;
      for (int64_t v = 0; v < layout.vectorWidth; ++v)
        values.push_back(
            roundTo(b, loc, lanes[c * layout.vectorWidth + v], element));
      Value vec = vector::FromElementsOp::create(b, loc, vecType, values);
      auto store = [&](OpBuilder &sb, Location l) {
        vector::StoreOp::create(sb, l, vec, memref, ValueRange{row, columns[c]},
                                /*nontemporal=*/false,
                                sb.getI64IntegerAttr(alignment));
      };
      if (!inBounds[c]) {
        store(b, loc);
      } else {
        scf::IfOp::create(b, loc, inBounds[c], [&](OpBuilder &tb, Location l) {
          store(tb, l);
          scf::YieldOp::create(tb, l);
        });
      }
    }
  }

  /// Emits `bodyOp` once per mapping (one mapping per owned element).
  void emitElementwise(OpBuilder &b, Location loc, Operation &bodyOp,
                       std::vector<IRMapping> &mappings) {
    if (auto rsqrt = dyn_cast<math::RsqrtOp>(bodyOp)) {
      // 1 / sqrt(x) with IEEE sqrt (PTX sqrt.rn.f32) and division. The
      // NVVM lowering turns math.rsqrt and math.sqrt (and llvm.intr.sqrt)
      // into libdevice calls, which makes the PTX depend on libdevice being
      // found at compile time; nvvm.inline_ptx does not. Once per row, the
      // exact form costs nothing measurable.
      for (IRMapping &m : mappings) {
        Value x = m.lookup(rsqrt.getOperand());
        Value root =
            NVVM::InlinePtxOp::create(b, loc, TypeRange{x.getType()},
                                      ValueRange{x}, ValueRange{},
                                      "sqrt.rn.f32 $0, $1;", Value())
                .getResult(0);
        Value one =
            arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 1.0));
        m.map(rsqrt.getResult(), arith::DivFOp::create(b, loc, one, root));
      }
      return;
    }
    for (IRMapping &m : mappings)
      b.clone(bodyOp, m);
  }

  /// The body for one row: loads, evaluation per owned element with block
  /// reductions at norm.row_reduce, stores and column accumulation.
  LogicalResult emitRow(OpBuilder &b, Location loc, Value row, Value tid,
                        ValueRange accs, SmallVector<Value> &nextAccs) {
    int64_t elements = layout.elementsPerThread();
    std::vector<IRMapping> mappings(elements);
    for (unsigned i = 0; i < inputs.size(); ++i) {
      Role role = op.getInputRole(i);
      BlockArgument arg = body.getArgument(i);
      if (role == Role::row) {
        Value scalar = memref::LoadOp::create(b, loc, inputs[i], row);
        scalar.getDefiningOp()->setAttr(kPrefetchAttr, b.getUnitAttr());
        for (IRMapping &m : mappings)
          m.map(arg, scalar);
        continue;
      }
      SmallVector<Value> scalars = role == Role::col
                                       ? elementValues[i]
                                       : loadRow(b, loc, inputs[i], row);
      for (int64_t e = 0; e < elements; ++e)
        mappings[e].map(arg, scalars[e]);
    }
    for (Operation &bodyOp : body.without_terminator()) {
      // An op whose operands are the same for every owned element (it is
      // row-uniform, like rstd from a row sum) is emitted once.
      bool uniform = llvm::all_of(bodyOp.getOperands(), [&](Value v) {
        Value first = mappings[0].lookupOrDefault(v);
        return llvm::all_of(mappings, [&](IRMapping &m) {
          return m.lookupOrDefault(v) == first;
        });
      });
      if (uniform && !isa<RowReduceOp>(bodyOp)) {
        std::vector<IRMapping> one(1, mappings[0]);
        emitElementwise(b, loc, bodyOp, one);
        for (IRMapping &m : llvm::drop_begin(mappings))
          for (Value result : bodyOp.getResults())
            m.map(result, one[0].lookup(result));
        mappings[0] = std::move(one[0]);
        continue;
      }
      auto reduce = dyn_cast<RowReduceOp>(bodyOp);
      if (!reduce) {
        emitElementwise(b, loc, bodyOp, mappings);
        continue;
      }
      Combiner combiner = reduce.getCombiner();
      Value identity = combinerIdentity(b, loc, combiner);
      Value partial = identity;
      for (int64_t e = 0; e < elements; ++e) {
        Value v = mappings[e].lookup(reduce.getValue());
        if (Value inside = inBounds[e / layout.vectorWidth])
          v = arith::SelectOp::create(b, loc, inside, v, identity);
        partial = combine(b, loc, combiner, partial, v);
      }
      Value total;
      if (layout.rowGroups > 1) {
        // A row per warp: a butterfly of shuffles, no shared memory and no
        // barrier.
        for (int64_t offset = 16; offset >= 1; offset /= 2) {
          Value other =
              gpu::ShuffleOp::create(b, loc, partial, offset, 32,
                                     gpu::ShuffleMode::XOR)
                  .getShuffleResult();
          partial = combine(b, loc, combiner, partial, other);
        }
        total = partial;
      } else {
        auto kind = combiner == Combiner::add
                        ? gpu::AllReduceOperation::ADD
                        : gpu::AllReduceOperation::MAXIMUMF;
        total = gpu::AllReduceOp::create(
            b, loc, partial,
            gpu::AllReduceOperationAttr::get(b.getContext(), kind),
            /*uniform=*/true);
        // The upstream lowering leaves the result in shared memory that the
        // next gpu.all_reduce (the next reduction, or the next row's) writes
        // again: without this barrier a fast warp overwrites it while a slow
        // one still reads it (compute-sanitizer racecheck found exactly that).
        gpu::BarrierOp::create(b, loc);
      }
      for (IRMapping &m : mappings)
        m.map(reduce.getResult(), total);
    }
    auto yield = cast<YieldOp>(body.getTerminator());
    unsigned accIndex = 0;
    for (auto [k, value] : llvm::enumerate(yield.getValues())) {
      SmallVector<Value> lanes;
      for (IRMapping &m : mappings)
        lanes.push_back(m.lookup(value));
      switch (op.getOutputRole(k)) {
      case Role::full:
        storeRow(b, loc, outputs[k], row, lanes);
        break;
      case Role::row: {
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            tid, indexConst(b, loc, 0));
        if (sliceY) // Only the first column slice writes row outputs.
          first = arith::AndIOp::create(
              b, loc, first,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, sliceY,
                                    indexConst(b, loc, 0)));
        scf::IfOp::create(b, loc, first, [&](OpBuilder &tb, Location l) {
          memref::StoreOp::create(tb, l, lanes[0], outputs[k], row);
          scf::YieldOp::create(tb, l);
        });
        break;
      }
      case Role::col:
        for (int64_t e = 0; e < elements; ++e)
          nextAccs.push_back(
              arith::AddFOp::create(b, loc, accs[accIndex + e], lanes[e]));
        accIndex += elements;
        break;
      }
    }
    return success();
  }

  FusedOp op;
  Block &body;
  RowLayout layout;
  int64_t n;
  int64_t rowsPerBlock;
  SmallVector<Value> inputs, outputs, columns, inBounds;
  Value sliceY;
  std::vector<SmallVector<Value>> elementValues;
};

/// Code generation of a statistics-only kernel (norm.row_reduce ops and row
/// outputs) over rows too long to keep in registers: one row per block, each
/// reduction streams the row in vector chunks (a second reduction that
/// depends on the first reads the row again, mostly from L2).
class StreamingKernelBuilder {
public:
  StreamingKernelBuilder(FusedOp op, RowLayout layout, int64_t n)
      : op(op), body(op.getBody().front()), layout(layout), n(n) {}

  LogicalResult build(gpu::GPUFuncOp func) {
    OpBuilder b = OpBuilder::atBlockEnd(&func.getBody().front());
    Location loc = op.getLoc();
    unsigned numInputs = op.getInputs().size();
    auto args = func.getArguments();
    SmallVector<Value> inputs(args.take_front(numInputs));
    SmallVector<Value> outputs(args.drop_front(numInputs));
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value row = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);

    IRMapping rowMapping;
    for (unsigned i = 0; i < numInputs; ++i)
      if (op.getInputRole(i) == Role::row)
        rowMapping.map(body.getArgument(i),
                       memref::LoadOp::create(b, loc, inputs[i], row));

    int64_t perIteration = layout.sliceWidth();
    int64_t iterations = (n + perIteration - 1) / perIteration;
    bool exact = n % perIteration == 0;
    for (RowReduceOp reduce : body.getOps<RowReduceOp>()) {
      Combiner combiner = reduce.getCombiner();
      Value identity = combinerIdentity(b, loc, combiner);
      SmallVector<BlockArgument> used =
          argumentsUsedBy(body, {reduce.getValue()}, rowMapping);
      LogicalResult status = success();
      auto loop = scf::ForOp::create(
          b, loc, indexConst(b, loc, 0), indexConst(b, loc, iterations),
          indexConst(b, loc, 1), ValueRange{identity},
          [&](OpBuilder &lb, Location l, Value it, ValueRange acc) {
            Value partial = acc[0];
            Value base = arith::MulIOp::create(
                lb, l, it, indexConst(lb, l, perIteration));
            for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
              Value chunk = arith::AddIOp::create(
                  lb, l, indexConst(lb, l, c * layout.threads), tid);
              Value col = arith::AddIOp::create(
                  lb, l, base,
                  arith::MulIOp::create(lb, l, chunk,
                                        indexConst(lb, l, layout.vectorWidth)));
              Value inside =
                  exact ? Value()
                        : arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ult,
                                                col, indexConst(lb, l, n))
                              .getResult();
              std::vector<IRMapping> lanes(layout.vectorWidth, rowMapping);
              for (BlockArgument arg : used) {
                unsigned i = arg.getArgNumber();
                Value index[2] = {row, col};
                ValueRange indices = op.getInputRole(i) == Role::full
                                         ? ValueRange(index)
                                         : ValueRange(ArrayRef(index).drop_front());
                SmallVector<Value> scalars =
                    loadVector(lb, l, inputs[i], indices, inside);
                for (int64_t v = 0; v < layout.vectorWidth; ++v)
                  lanes[v].map(arg, scalars[v]);
              }
              for (int64_t v = 0; v < layout.vectorWidth; ++v) {
                if (failed(cloneBodySlice(lb, body, {reduce.getValue()},
                                          lanes[v])))
                  status = failure();
                Value x = lanes[v].lookup(reduce.getValue());
                if (inside)
                  x = arith::SelectOp::create(lb, l, inside, x, identity);
                partial = combine(lb, l, combiner, partial, x);
              }
            }
            scf::YieldOp::create(lb, l, partial);
          });
      if (failed(status))
        return op.emitOpError("statistics kernel reads a value the streaming "
                              "lowering does not provide");
      auto kind = combiner == Combiner::add ? gpu::AllReduceOperation::ADD
                                            : gpu::AllReduceOperation::MAXIMUMF;
      Value total = gpu::AllReduceOp::create(
          b, loc, loop.getResult(0),
          gpu::AllReduceOperationAttr::get(b.getContext(), kind),
          /*uniform=*/true);
      gpu::BarrierOp::create(b, loc); // See FusedKernelBuilder::emitRow.
      rowMapping.map(reduce.getResult(), total);
    }
    auto yield = cast<YieldOp>(body.getTerminator());
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                        indexConst(b, loc, 0));
    for (auto [k, value] : llvm::enumerate(yield.getValues())) {
      if (failed(cloneBodySlice(b, body, {value}, rowMapping)))
        return op.emitOpError("row output reads a per-element value");
      Value result = rowMapping.lookupOrDefault(value);
      Value out = outputs[k];
      scf::IfOp::create(b, loc, first, [&](OpBuilder &tb, Location l) {
        memref::StoreOp::create(tb, l, result, out, row);
        scf::YieldOp::create(tb, l);
      });
    }
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  /// A guarded 16-byte (or narrower) vector load, as scalars.
  SmallVector<Value> loadVector(OpBuilder &b, Location loc, Value memref,
                                ValueRange index, Value inside) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    auto vecType = VectorType::get({layout.vectorWidth}, element);
    int64_t alignment =
        layout.vectorWidth * element.getIntOrFloatBitWidth() / 8;
    auto load = [&](OpBuilder &lb, Location l) -> Value {
      return vector::LoadOp::create(lb, l, vecType, memref, index,
                                    /*nontemporal=*/false,
                                    lb.getI64IntegerAttr(alignment));
    };
    Value vec =
        inside ? scf::IfOp::create(
                     b, loc, inside,
                     [&](OpBuilder &tb, Location l) {
                       scf::YieldOp::create(tb, l, load(tb, l));
                     },
                     [&](OpBuilder &eb, Location l) {
                       scf::YieldOp::create(
                           eb, l,
                           ValueRange{arith::ConstantOp::create(
                               eb, l, eb.getZeroAttr(vecType))});
                     })
                     .getResult(0)
               : load(b, loc);
    SmallVector<Value> scalars;
    for (int64_t v = 0; v < layout.vectorWidth; ++v)
      scalars.push_back(vector::ExtractOp::create(b, loc, vec, v));
    return scalars;
  }

  FusedOp op;
  Block &body;
  RowLayout layout;
  int64_t n;
};

struct ConvertNormToGPUPass
    : public mlir::norm::impl::ConvertNormToGPUBase<ConvertNormToGPUPass> {
  using Base::Base;

  TuningTable table;

  gpu::GPUModuleOp getOrCreateGPUModule(ModuleOp module) {
    if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>("norm_kernels"))
      return existing;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    return gpu::GPUModuleOp::create(b, module.getLoc(), "norm_kernels");
  }

  gpu::GPUFuncOp createKernel(gpu::GPUModuleOp gpuModule, Operation *op,
                              StringRef baseName, ValueRange operands,
                              int64_t blockSize) {
    SmallVector<Type> types(operands.getTypes());
    OpBuilder b = OpBuilder::atBlockEnd(gpuModule.getBody());
    auto func = gpu::GPUFuncOp::create(b, op->getLoc(), baseName,
                                       b.getFunctionType(types, {}));
    SymbolTable(gpuModule).insert(func);
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(blockSize), 1, 1}));
    func->setAttr("norm.block_size", b.getI64IntegerAttr(blockSize));
    return func;
  }

  void launch(Operation *op, gpu::GPUFuncOp func, Value gridX,
              int64_t blockSize, ValueRange operands, Value gridY = Value()) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value one = indexConst(b, loc, 1);
    gpu::LaunchFuncOp::create(
        b, loc, func, gpu::KernelDim3{gridX, gridY ? gridY : one, one},
        gpu::KernelDim3{indexConst(b, loc, blockSize), one, one},
        /*dynamicSharedMemorySize=*/Value(), operands);
    op->erase();
  }

  LogicalResult convertFused(gpu::GPUModuleOp gpuModule, FusedOp op,
                             DeviceInfo device) {
    if (op.getNumResults() != 0)
      return op.emitOpError("must be bufferized before convert-norm-to-gpu");
    if (op.hasColumnOutputs() && !op.getRowsPerPartial())
      return op.emitOpError("column outputs need a split on the GPU: run "
                            "--norm-split-reduction before convert-norm-to-gpu");
    auto source = cast<MemRefType>(op.getShapeSource().getType());
    int64_t n = source.getDimSize(1);
    if (ShapedType::isDynamic(n))
      return op.emitOpError("the GPU lowering needs a static normalized "
                            "dimension N (rows M may be dynamic)");
    for (Value v : llvm::concat<Value>(op.getInputs(), op.getOutputs())) {
      auto type = cast<MemRefType>(v.getType());
      if (!type.getLayout().isIdentity())
        return op.emitOpError("the GPU lowering needs contiguous (identity "
                              "layout) memrefs; bufferize with "
                              "function-boundary-type-conversion="
                              "identity-layout-map");
    }
    KernelTraits traits = describeKernel(op);
    int64_t elementBytes = traits.elementBytes;
    int64_t fullOperands = traits.fullOperands;
    bool hasRowReductions = traits.rowReductions > 0;
    // A measured choice for this shape class, if the table has one.
    std::optional<TuningChoice> tuned;
    if (!table.empty()) {
      tuned = table.lookup(TuningKey{n, elementBytes, fullOperands,
                                     traits.columnOutputs,
                                     traits.rowReductions});
      if (tuned && tuned->registerBudget > 0)
        device.registerBudget = tuned->registerBudget;
      if (tuned && tuned->numStages > 0 && !op->hasAttr("norm.num_stages"))
        op->setAttr("norm.num_stages",
                    OpBuilder(op).getI64IntegerAttr(tuned->numStages));
    }
    bool onlyRowOutputs = llvm::all_of(op.getOutputRoles(), [](Attribute r) {
      return cast<RoleAttr>(r).getValue() == Role::row;
    });
    // Three layouts: rows kept in registers (the mixed-order kernel); long
    // rows of a statistics-only kernel streamed in chunks; kernels without
    // row reductions cut into column slices when rows are long.
    bool streaming =
        hasRowReductions && onlyRowOutputs &&
        !rowsFitInRegisters(n, elementBytes, fullOperands, /*columnOutputs=*/0,
                            device);
    RowLayout layout =
        streaming ? chooseStreamingLayout(n, elementBytes, device)
        : hasRowReductions
            ? chooseRowLayout(n, elementBytes, fullOperands, device,
                              /*allowRowGroups=*/!op.hasColumnOutputs())
            : chooseSlicedLayout(n, elementBytes, fullOperands, device);
    SmallVector<Value> operands(op.getInputs());
    operands.append(op.getOutputs().begin(), op.getOutputs().end());
    auto func = createKernel(gpuModule, op, "norm_fused", operands,
                             layout.threads);
    // Rows per block: the split of column partials; else the kernel's
    // norm.rows_per_block, the pass option, or the tuning rule.
    int64_t split = 1;
    if (std::optional<int64_t> partial = op.getRowsPerPartial())
      split = *partial;
    else if (auto attr = op->getAttrOfType<IntegerAttr>("norm.rows_per_block"))
      split = attr.getInt();
    else if (!streaming)
      split = rowsPerBlock > 0 ? rowsPerBlock.getValue()
              : tuned && tuned->rowsPerBlock > 0
                  ? tuned->rowsPerBlock
                  : chooseRowsPerBlock(n, elementBytes, device);
    if (split <= 0)
      return op.emitOpError("rows per block must be positive, got ") << split;
    func->setAttr("norm.rows_per_block",
                  OpBuilder(op).getI64IntegerAttr(split));
    func->setAttr("norm.vector_width",
                  OpBuilder(op).getI64IntegerAttr(layout.vectorWidth));
    // Bodies evaluate with arith ops, math.rsqrt (emitted without libdevice)
    // and row reductions; anything else would need a device library or has
    // no GPU lowering here, so it is rejected with its location.
    for (Operation &bodyOp : op.getBody().front().without_terminator())
      if (!isa<arith::ArithDialect>(bodyOp.getDialect()) &&
          !isa<math::RsqrtOp, RowReduceOp>(bodyOp))
        return bodyOp.emitOpError("is not supported in a norm.fused body by "
                                  "the GPU lowering (arith ops, math.rsqrt "
                                  "and norm.row_reduce are)");
    // Captured values (1/N) must be rematerialized inside the kernel.
    for (Operation &bodyOp : op.getBody().front())
      for (Value operand : bodyOp.getOperands())
        if (!op.getBody().isAncestor(operand.getParentRegion()) &&
            !operand.getDefiningOp<arith::ConstantOp>())
          return bodyOp.emitOpError("reads a value defined outside the kernel "
                                    "that is not a constant (dynamic N?): not "
                                    "supported by the GPU lowering");
    IRMapping constants;
    OpBuilder kb = OpBuilder::atBlockEnd(&func.getBody().front());
    for (Operation &bodyOp : op.getBody().front())
      for (OpOperand &operand : bodyOp.getOpOperands())
        if (auto cst = operand.get().getDefiningOp<arith::ConstantOp>())
          if (!op.getBody().isAncestor(cst->getParentRegion()) &&
              !constants.contains(cst.getResult()))
            constants.map(cst.getResult(), kb.clone(*cst)->getResult(0));
    for (Operation &bodyOp : op.getBody().front())
      for (OpOperand &operand : bodyOp.getOpOperands())
        if (Value mapped = constants.lookupOrNull(operand.get()))
          operand.set(mapped);
    if (layout.rowGroups > 1)
      func->setAttr("norm.rows_in_parallel",
                    OpBuilder(op).getI64IntegerAttr(layout.rowGroups));
    if (layout.columnSlices > 1)
      func->setAttr("norm.column_slices",
                    OpBuilder(op).getI64IntegerAttr(layout.columnSlices));
    if (streaming)
      func->setAttr("norm.streaming", OpBuilder(op).getUnitAttr());
    if (failed(streaming ? StreamingKernelBuilder(op, layout, n).build(func)
                         : FusedKernelBuilder(op, layout, n, split).build(func)))
      return failure();
    OpBuilder b(op);
    Value rows = memref::DimOp::create(b, op.getLoc(), op.getShapeSource(), 0);
    Value grid = arith::CeilDivUIOp::create(
        b, op.getLoc(), rows,
        indexConst(b, op.getLoc(), split * layout.rowGroups));
    launch(op, func, grid, layout.threads, operands,
           indexConst(b, op.getLoc(), layout.columnSlices));
    return success();
  }

  LogicalResult convertCombine(gpu::GPUModuleOp gpuModule, CombineOp op) {
    if (!op.getResult().empty())
      return op.emitOpError("must be bufferized before convert-norm-to-gpu");
    const int64_t threads = 256;
    SmallVector<Value> operands = {op.getPartials(), op.getOutput()};
    auto func = createKernel(gpuModule, op, "norm_combine", operands, threads);
    func->setAttr("norm.cols_per_block",
                  OpBuilder(op).getI64IntegerAttr(threads));
    OpBuilder b = OpBuilder::atBlockEnd(&func.getBody().front());
    Location loc = op.getLoc();
    Value partials = func.getArgument(0), output = func.getArgument(1);
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value col = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, indexConst(b, loc, threads)),
        tid);
    Value numPartials = memref::DimOp::create(b, loc, partials, 0);
    Value cols = memref::DimOp::create(b, loc, partials, 1);
    Type element = cast<MemRefType>(output.getType()).getElementType();
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, cols);
    scf::IfOp::create(b, loc, inside, [&](OpBuilder &tb, Location l) {
      Value zero = arith::ConstantOp::create(tb, l, tb.getF32FloatAttr(0.0));
      // Fixed order over the partial rows: bitwise reproducible.
      auto loop = scf::ForOp::create(
          tb, l, indexConst(tb, l, 0), numPartials, indexConst(tb, l, 1),
          ValueRange{zero},
          [&](OpBuilder &fb, Location fl, Value p, ValueRange acc) {
            Value v = memref::LoadOp::create(fb, fl, partials, ValueRange{p, col});
            scf::YieldOp::create(
                fb, fl, ValueRange{arith::AddFOp::create(fb, fl, acc[0], v)});
          });
      memref::StoreOp::create(tb, l, roundTo(tb, l, loop.getResult(0), element),
                              output, col);
      scf::YieldOp::create(tb, l);
    });
    gpu::ReturnOp::create(b, loc);
    OpBuilder hb(op);
    Value hostCols = memref::DimOp::create(hb, loc, op.getPartials(), 1);
    Value grid = arith::CeilDivUIOp::create(hb, loc, hostCols,
                                            indexConst(hb, loc, threads));
    launch(op, func, grid, threads, operands);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (numSMs <= 0 || maxThreads < 32 || maxThreads % 32 != 0 ||
        registerBudget <= 0) {
      module.emitError("convert-norm-to-gpu: num-sms and register-budget "
                       "must be positive and max-threads a positive multiple "
                       "of 32");
      return signalPassFailure();
    }
    DeviceInfo device;
    device.numSMs = numSMs;
    device.maxThreadsPerBlock = maxThreads;
    device.registerBudget = registerBudget;
    if (!tuningTable.empty()) {
      std::string error;
      if (!table.load(tuningTable, error)) {
        module.emitError("convert-norm-to-gpu: ") << error;
        return signalPassFailure();
      }
    }
    SmallVector<Operation *> kernels;
    module.walk([&](Operation *op) {
      if (isa<FusedOp, CombineOp>(op))
        kernels.push_back(op);
    });
    if (kernels.empty())
      return;
    gpu::GPUModuleOp gpuModule = getOrCreateGPUModule(module);
    for (Operation *op : kernels) {
      LogicalResult result =
          isa<FusedOp>(op)
              ? convertFused(gpuModule, cast<FusedOp>(op), device)
              : convertCombine(gpuModule, cast<CombineOp>(op));
      if (failed(result))
        return signalPassFailure();
    }
  }
};

} // namespace
