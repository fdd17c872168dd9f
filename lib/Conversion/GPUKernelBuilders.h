//===- GPUKernelBuilders.h - kernel bodies of convert-norm-to-gpu -*- C++
//-*-===//
//
// Private to lib/Conversion: the two code generators convert-norm-to-gpu
// chooses between for a norm.fused op (see ConvertNormToGPU.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_GPUKERNELBUILDERS_H
#define LIB_CONVERSION_GPUKERNELBUILDERS_H

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Tuning/Tuning.h"
#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::norm {

/// Marks the loads of a row that --norm-pipeline may issue stages early, and
/// the row loop it pipelines (names shared with NormPipeline.cpp).
constexpr llvm::StringLiteral kPrefetchAttr =
    NormDialect::PrefetchAttrHelper::getNameStr();
constexpr llvm::StringLiteral kRowLoopAttr =
    NormDialect::RowLoopAttrHelper::getNameStr();
/// On an op one of whose operands is an i1 saying whether it takes effect
/// (this attribute's value is that operand's number; emitGlobalLoad):
/// --norm-pipeline folds an iteration's existence into that operand instead
/// of wrapping the op in scf.if.
constexpr llvm::StringLiteral kPredicateOperandAttr =
    NormDialect::PredicateOperandAttrHelper::getNameStr();
/// On a row loop whose rows are staged in shared memory: --norm-pipeline
/// predicates the last iterations' early loads instead of peeling an
/// epilogue (a second copy of the row body).
constexpr llvm::StringLiteral kPredicateEpilogueAttr =
    NormDialect::PredicateEpilogueAttrHelper::getNameStr();
/// On a gpu.func launched as a programmatic dependent of the launch before
/// it (PDL; the bundle's launch field `programmatic`): it may start before
/// that launch completes and waits for it with griddepcontrol.wait.
constexpr llvm::StringLiteral kProgrammaticAttr =
    NormDialect::ProgrammaticAttrHelper::getNameStr();
/// Most rows per block whose row inputs (mean, rstd) a staged kernel copies
/// to shared memory: the largest split (chooseSplitSize), 1 KB an input,
/// within the static shared memory stagedBlockBytes allows for.
constexpr int64_t kMaxStagedRowInputRows = 256;
/// Dynamic shared memory a kernel needs (set by RowStaging, read when the
/// launch is created).
constexpr llvm::StringLiteral kDynamicSharedBytesAttr =
    NormDialect::DynamicSharedBytesAttrHelper::getNameStr();

/// LLVM takes a global over kLargeWorkgroupBufferBytes without an explicit
/// alignment to be kLargeWorkgroupBufferAlign-aligned (DataLayout's
/// preferred alignment of large globals) and vectorizes its accesses
/// (ld.shared.v4), while the NVPTX printer declares it by its element
/// (`.align 4`): PTX whose vector accesses its declarations do not allow.
constexpr int64_t kLargeWorkgroupBufferBytes = 128;
constexpr int64_t kLargeWorkgroupBufferAlign = 16;

/// A workgroup attribution of `func` of `type` (in the workgroup address
/// space). One over kLargeWorkgroupBufferBytes declares the alignment LLVM
/// assumes of it (gpu-to-llvm reads the attribution's `llvm.align`); a
/// smaller one keeps its element's, which is what LLVM assumes of it, so no
/// access changes either way.
inline Value addWorkgroupBuffer(gpu::GPUFuncOp func, MemRefType type,
                                Location loc) {
  Value buffer = func.addWorkgroupAttribution(type, loc);
  int64_t bytes = type.getNumElements() *
                  DataLayout::closest(func).getTypeSize(type.getElementType());
  if (bytes > kLargeWorkgroupBufferBytes)
    func.setWorkgroupAttributionAttr(
        func.getNumWorkgroupAttributions() - 1,
        LLVM::LLVMDialect::getAlignAttrName(),
        IntegerAttr::get(IntegerType::get(func.getContext(), 64),
                         kLargeWorkgroupBufferAlign));
  return buffer;
}

inline Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The value `load` emits where `inside` holds, else the zero of `type`: a
/// branch around the load, so nothing outside a row (or buffer) is read.
/// A null `inside` means always inside: the load is emitted unguarded.
inline Value loadOrZero(OpBuilder &b, Location loc, Value inside, Type type,
                        function_ref<Value(OpBuilder &, Location)> load) {
  if (!inside)
    return load(b, loc);
  return scf::IfOp::create(
             b, loc, inside,
             [&](OpBuilder &tb, Location l) {
               scf::YieldOp::create(tb, l, load(tb, l));
             },
             [&](OpBuilder &eb, Location l) {
               scf::YieldOp::create(
                   eb, l,
                   arith::ConstantOp::create(eb, l, eb.getZeroAttr(type))
                       .getResult());
             })
      .getResult(0);
}

/// Emits `body` where `inside` holds (an scf.if around it); a null `inside`
/// means always: `body` is emitted unguarded. The store counterpart of
/// loadOrZero.
inline void emitWhere(OpBuilder &b, Location loc, Value inside,
                      function_ref<void(OpBuilder &, Location)> body) {
  if (!inside) {
    body(b, loc);
    return;
  }
  scf::IfOp::create(b, loc, inside, [&](OpBuilder &tb, Location l) {
    body(tb, l);
    scf::YieldOp::create(tb, l);
  });
}

/// `values` (at least one) combined as a balanced tree, in an order fixed
/// by their positions: log2 dependent combines instead of a chain of
/// size - 1, and the same bits in every thread that combines the same
/// values.
inline Value treeCombine(OpBuilder &b, Location loc, Combiner combiner,
                         SmallVector<Value> values) {
  while (values.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < values.size(); i += 2)
      next.push_back(combine(b, loc, combiner, values[i], values[i + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

/// The widest access a thread issues on sm_80-sm_90 (ld/st .v4.b32; PTX's
/// 256-bit accesses need sm_100). A vector wider than this, a column input
/// of wider elements than the rows' (an f32 weight beside bf16 rows), is
/// accessed as several 16-byte pieces, so the rows keep their 16-byte
/// vectors.
constexpr int64_t kWidestAccessBytes = 16;

/// Lanes [first, first + width) of vector `vec` (a vector.shuffle, which
/// the NVVM lowering takes; vector.extract_strided_slice it does not).
inline Value vectorSlice(OpBuilder &b, Location loc, Value vec, int64_t first,
                         int64_t width) {
  SmallVector<int64_t> lanes;
  for (int64_t v = 0; v < width; ++v)
    lanes.push_back(first + v);
  return vector::ShuffleOp::create(b, loc, vec, vec, lanes);
}

/// `indices` with `offset` added to the last one.
inline SmallVector<Value> offsetLastIndex(OpBuilder &b, Location loc,
                                          ValueRange indices, int64_t offset) {
  SmallVector<Value> moved(indices);
  if (offset)
    moved.back() = arith::AddIOp::create(
        b, loc, moved.back(), arith::ConstantIndexOp::create(b, loc, offset));
  return moved;
}

/// The lanes of vector `vec`, as scalars.
inline SmallVector<Value> vectorLanes(OpBuilder &b, Location loc, Value vec) {
  SmallVector<Value> lanes;
  for (int64_t v = 0, e = cast<VectorType>(vec.getType()).getNumElements();
       v < e; ++v)
    lanes.push_back(vector::ExtractOp::create(b, loc, vec, v));
  return lanes;
}

/// Vectors of one element type, concatenated (lanes of the first first).
inline Value concatVectors(OpBuilder &b, Location loc, ArrayRef<Value> vecs) {
  SmallVector<Value> lanes;
  for (Value vec : vecs)
    llvm::append_range(lanes, vectorLanes(b, loc, vec));
  Type element = cast<VectorType>(vecs.front().getType()).getElementType();
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({int64_t(lanes.size())}, element), lanes);
}

/// A `width`-element vector.load of `memref` at `indices`, aligned to its
/// size (16 bytes when N allows: ld.global.v4); wider vectors are loaded in
/// 16-byte pieces (kWidestAccessBytes).
inline Value loadAlignedVector(OpBuilder &b, Location loc, Value memref,
                               ValueRange indices, int64_t width) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  int64_t bytes = width * element.getIntOrFloatBitWidth() / 8;
  if (bytes <= kWidestAccessBytes)
    return vector::LoadOp::create(b, loc, VectorType::get({width}, element),
                                  memref, indices, /*nontemporal=*/false,
                                  b.getI64IntegerAttr(bytes));
  int64_t pieceWidth = width * kWidestAccessBytes / bytes;
  SmallVector<Value> pieces;
  for (int64_t first = 0; first < width; first += pieceWidth)
    pieces.push_back(loadAlignedVector(
        b, loc, memref, offsetLastIndex(b, loc, indices, first), pieceWidth));
  return concatVectors(b, loc, pieces);
}

/// `values`, rounded to the element type of `memref`, as one vector of it.
inline Value roundedVector(OpBuilder &b, Location loc, Value memref,
                           ArrayRef<Value> values) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  SmallVector<Value> rounded;
  for (Value v : values)
    rounded.push_back(roundTo(b, loc, v, element));
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({int64_t(values.size())}, element), rounded);
}

/// Stores `values`, rounded to the element type of `memref`, as one vector
/// at `indices` aligned to its size, where `inside` holds (null: always).
inline void storeAlignedVector(OpBuilder &b, Location loc, Value memref,
                               ValueRange indices, ArrayRef<Value> values,
                               Value inside) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  int64_t width = values.size();
  int64_t bytes = width * element.getIntOrFloatBitWidth() / 8;
  // Vectors wider than kWidestAccessBytes are stored in 16-byte pieces,
  // the last first: the order in which LLVM's NVPTX legalization split such
  // a store itself (the f32 partials of bf16 kernels), so those kernels
  // keep their code.
  int64_t pieceWidth =
      bytes <= kWidestAccessBytes ? width : width * kWidestAccessBytes / bytes;
  Value vec = roundedVector(b, loc, memref, values);
  emitWhere(b, loc, inside, [&](OpBuilder &sb, Location l) {
    for (int64_t first = width - pieceWidth; first >= 0; first -= pieceWidth) {
      Value piece = pieceWidth == width
                        ? vec
                        : vectorSlice(sb, l, vec, first, pieceWidth);
      vector::StoreOp::create(
          sb, l, piece, memref, offsetLastIndex(sb, l, indices, first),
          /*nontemporal=*/false,
          sb.getI64IntegerAttr(pieceWidth * element.getIntOrFloatBitWidth() /
                               8));
    }
  });
}

/// The row loop of a kernel whose row group `group` (of `groups`) walks
/// rows group, group + groups, ... of `count`, `unroll` at a time: round k
/// takes row k * groups * unroll + j * groups + group as its j-th. `body`
/// gets the loop's values and `rowAt`, which emits at the body's insertion
/// point row j of the round and whether it exists (below `count` and
/// `inside`), so that the body decides where those ops go among its loads;
/// it returns the next values. The combine (partial rows) and the
/// whole-column kernel (input rows) walk their rows so.
using RowOfRound = function_ref<std::pair<Value, Value>(int64_t)>;
inline scf::ForOp
buildRowRounds(OpBuilder &b, Location loc, Value count, int64_t groups,
               int64_t unroll, Value group, Value inside, ValueRange init,
               function_ref<SmallVector<Value>(OpBuilder &, Location,
                                               RowOfRound, ValueRange)>
                   body) {
  const int64_t perRound = groups * unroll;
  Value rounds =
      arith::CeilDivUIOp::create(b, loc, count, indexConst(b, loc, perRound));
  return scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), rounds, indexConst(b, loc, 1), init,
      [&](OpBuilder &lb, Location l, Value round, ValueRange values) {
        Value first = arith::AddIOp::create(
            lb, l,
            arith::MulIOp::create(lb, l, round, indexConst(lb, l, perRound)),
            group);
        auto rowAt = [&](int64_t j) {
          Value row = arith::AddIOp::create(lb, l, first,
                                            indexConst(lb, l, j * groups));
          Value exists = arith::AndIOp::create(
              lb, l,
              arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ult, row,
                                    count),
              inside);
          return std::make_pair(row, exists);
        };
        scf::YieldOp::create(lb, l, body(lb, l, rowAt, values));
      });
}

/// The argument of a kernel built for `op` (its arguments: the op's inputs,
/// then its outputs) that stands for the op's shape source
/// (FusedOp::getShapeSource): the memref whose dimension 0 is M.
inline Value shapeSourceArgument(FusedOp op, ValueRange arguments) {
  Value source = op.getShapeSource();
  for (auto [operand, argument] : llvm::zip(op->getOperands(), arguments))
    if (operand == source)
      return argument;
  return {};
}

/// How many rows each block of a row kernel walks, from the row count M.
struct RowSplit {
  /// Rows per block (the split of a kernel with column outputs).
  int64_t rowsPerBlock = 1;
  /// With > 0: the rows per partial row follow M (norm.fused min_partials,
  /// FusedOp::buildRowsPerPartial).
  int64_t minPartials = 0;
  /// With minPartials: the fewest rows per partial row (norm.fused
  /// min_rows_per_partial; 0: 1).
  int64_t minRowsPerPartial = 0;
  /// With minPartials: the most partial rows (norm.fused max_partials; 0:
  /// none).
  int64_t maxPartials = 0;
  /// With > 0 (a forward, KernelPlan::minBlocks): min(rowsPerBlock,
  /// max(minRowsPerBlock, ceil(M / minBlocks))), a block per row (per
  /// minRowsPerBlock rows) up to minBlocks blocks.
  int64_t minBlocks = 0;
  /// With minBlocks: the fewest rows a block takes (its row groups, where
  /// they walk the block's rows together: groupsWalkBlockRows).
  int64_t minRowsPerBlock = 1;
  /// The row groups of a block without column outputs walk the block's rows
  /// in turn (group g: rows g, g + groups, ...), every group the same steps,
  /// instead of each group owning rowsPerBlock rows: the block's rows follow
  /// M (minBlocks) and need not be a multiple of the groups.
  bool groupsWalkBlockRows = false;
  /// One block walks every row (max(1, M) rows): a kernel whose column
  /// outputs sum whole columns (norm.whole_columns) with row work too.
  bool allRows = false;
  /// M is a multiple of a block's several rows (rowsPerBlock times the
  /// layout's row groups; norm.rows_multiple): a streamed kernel that holds
  /// its rows checks none of them against M.
  bool wholeBlocks = false;
  /// Not wholeBlocks, but every block except the grid's last holds
  /// rowsPerBlock (times the row groups) rows that all exist
  /// (norm.whole_blocks_branch): a streamed kernel that holds its rows
  /// branches on it, and its whole blocks run the rows' code without bounds.
  bool wholeBlocksBranch = false;

  /// The rows per block as a value (what the kernel and its host grid
  /// compute alike). The forward's divides by a constant only: a division
  /// by a computed value in the prologue of every block cost the
  /// short-lived blocks of the RMSNorm forward at 4096 x 1024 5-7% (H200)
  /// where their rows per block had not even changed.
  Value build(OpBuilder &b, Location loc, Value rows) const {
    if (allRows)
      return arith::MaxUIOp::create(
          b, loc, arith::ConstantIndexOp::create(b, loc, 1), rows);
    if (minPartials > 0)
      return FusedOp::buildRowsPerPartial(b, loc, rows, rowsPerBlock,
                                          minPartials, minRowsPerPartial,
                                          maxPartials);
    Value split = arith::ConstantIndexOp::create(b, loc, rowsPerBlock);
    if (minBlocks <= 0)
      return split;
    Value spread = arith::CeilDivUIOp::create(
        b, loc, rows, arith::ConstantIndexOp::create(b, loc, minBlocks));
    return arith::MinUIOp::create(
        b, loc, split,
        arith::MaxUIOp::create(
            b, loc, arith::ConstantIndexOp::create(b, loc, minRowsPerBlock),
            spread));
  }
};

/// Emits into `func` (arguments: the op's inputs, then its outputs) a kernel
/// that keeps each row (or, without row reductions, each column slice of it)
/// in registers: see RowKernelBuilder.cpp. A block walks `split`'s rows; a
/// `persistent` kernel walks rows bid, bid + G, ... (G: the grid), one at a
/// time.
LogicalResult buildRowKernel(FusedOp op, const RowLayout &layout, int64_t n,
                             const RowSplit &split, bool persistent,
                             gpu::GPUFuncOp func);

/// Emits into `func` (arguments: partials and output of each op in turn)
/// one kernel for the norm.combine ops `ops` with `layout`
/// (chooseCombineLayout), the blocks of each op after those of the ops
/// before it: see CombineKernelBuilder.cpp.
LogicalResult buildCombineKernel(ArrayRef<CombineOp> ops,
                                 const CombineLayout &layout,
                                 gpu::GPUFuncOp func);

/// Emits into `func` (arguments: the op's inputs, then its outputs) the
/// kernel of a norm.fused op that sums whole columns (column outputs only,
/// not split): blocks across the columns, `layout`
/// (chooseColumnKernelLayout), see ColumnKernelBuilder.cpp. With
/// `waitsAtEnd` it ends by waiting for the launch before it (it runs as that
/// launch's programmatic dependent).
LogicalResult buildColumnKernel(FusedOp op, const CombineLayout &layout,
                                bool waitsAtEnd, gpu::GPUFuncOp func);

/// Emits into `func` a kernel that streams its rows in vector chunks (a
/// statistics-only kernel over rows too long for registers, or a streamed
/// forward): see StreamingKernelBuilder.cpp. A block takes one row, or
/// `split`'s rows where the layout holds them in registers
/// (RowLayout::holdsRow). `shape` is describeKernel(op), which the caller
/// planned with.
LogicalResult buildStreamingKernel(FusedOp op, const KernelShape &shape,
                                   const RowLayout &layout, int64_t n,
                                   const RowSplit &split, gpu::GPUFuncOp func);

} // namespace mlir::norm

#endif // LIB_CONVERSION_GPUKERNELBUILDERS_H
