//===- KernelBundle.cpp - PTX + manifest for MLIR-free launch -------------===//

#include "NormDialect/Target/KernelBundle.h"
#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/Target/PtxLinker.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::norm;
namespace json = llvm::json;

namespace {

std::string dtypeName(Type type) {
  if (type.isBF16())
    return "bf16";
  if (type.isF16())
    return "f16";
  if (type.isF32())
    return "f32";
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3fn";
  return "unsupported";
}

/// Builds the manifest while walking the host function.
class Describer {
public:
  FailureOr<json::Object> run(func::FuncOp func) {
    json::Array args;
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        return func.emitError("bundle: argument #")
               << i << " is not a memref (bufferize the program first)";
      FailureOr<json::Array> shape = argumentShape(func, type, i);
      if (failed(shape))
        return failure();
      std::string name = "arg" + std::to_string(i);
      names[arg] = name;
      args.push_back(json::Object{{"name", name},
                                  {"dtype", dtypeName(type.getElementType())},
                                  {"shape", std::move(*shape)}});
    }
    json::Array buffers, launches;
    if (failed(describeBlock(func.getBody().front(), std::nullopt, buffers,
                             launches)))
      return failure();
    json::Array results;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (Value v : ret.getOperands()) {
      std::optional<std::string> name = bufferName(v);
      if (!name)
        return ret.emitError("bundle: a result is not a buffer the program "
                             "allocates");
      results.push_back(*name);
    }
    return json::Object{{"function", func.getSymName().str()},
                        {"arguments", std::move(args)},
                        {"buffers", std::move(buffers)},
                        {"results", std::move(results)},
                        {"launches", std::move(launches)}};
  }

private:
  /// The buffers and launches of `block` in program order; its launches
  /// run only where `when` (an expression of M, 0 or 1) holds, if given.
  /// The branches of an scf.if on M (norm-short-rows' versions) give their
  /// launches the condition and its negation; every buffer is allocated
  /// whatever the branch (a workspace that a branch does not use costs
  /// memory, not time).
  LogicalResult describeBlock(Block &block, std::optional<json::Value> when,
                              json::Array &buffers, json::Array &launches) {
    for (Operation &op : block) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        json::Array shape;
        unsigned dynamicIndex = 0;
        for (int64_t d : alloc.getType().getShape()) {
          if (!ShapedType::isDynamic(d)) {
            shape.push_back(d);
            continue;
          }
          FailureOr<json::Value> size =
              expression(alloc.getDynamicSizes()[dynamicIndex++]);
          if (failed(size))
            return failure();
          shape.push_back(std::move(*size));
        }
        std::string name = "buf" + std::to_string(buffers.size());
        names[alloc.getResult()] = name;
        buffers.push_back(
            json::Object{{"name", name},
                         {"dtype", dtypeName(alloc.getType().getElementType())},
                         {"shape", std::move(shape)}});
      } else if (auto memset = dyn_cast<gpu::MemsetOp>(op)) {
        // A workspace its kernels need zeroed (a block group's tickets and
        // slots): the runtimes allocate it zeroed, before any launch.
        auto alloc = memset.getDst().getDefiningOp<memref::AllocOp>();
        bool zero = matchPattern(memset.getValue(), m_Zero()) ||
                    matchPattern(memset.getValue(), m_AnyZeroFloat());
        auto it = alloc ? names.find(alloc.getResult()) : names.end();
        if (it == names.end() || !zero)
          return memset.emitError("bundle: gpu.memset must zero a buffer "
                                  "the program allocates");
        for (json::Value &buffer : buffers)
          if (json::Object *object = buffer.getAsObject();
              object && object->getString("name") == it->second)
            (*object)["zeroed"] = true;
      } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        FailureOr<json::Object> described = describeLaunch(launch);
        if (failed(described))
          return failure();
        if (when)
          (*described)["when"] = *when;
        launches.push_back(std::move(*described));
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        FailureOr<std::pair<json::Value, json::Value>> conditions =
            condition(branch.getCondition());
        if (failed(conditions))
          return failure();
        // A branch inside a branch: both conditions ({"and": [a, b]}).
        auto within = [&](json::Value inner) {
          if (!when)
            return inner;
          return json::Value(
              json::Object{{"and", json::Array{*when, std::move(inner)}}});
        };
        if (failed(describeBlock(*branch.thenBlock(), within(conditions->first),
                                 buffers, launches)))
          return failure();
        if (branch.elseBlock() &&
            failed(describeBlock(*branch.elseBlock(),
                                 within(conditions->second), buffers,
                                 launches)))
          return failure();
      }
    }
    return success();
  }

  /// An scf.if condition on M as the expressions of the then and else
  /// branches: {"lt": [a, b]} (1 where a < b, else 0) and {"ge": [a, b]};
  /// both of two comparisons (arith.andi, a range of M) {"and": [c, d]} and
  /// its negation {"or": [!c, !d]} (nested branches join theirs with
  /// {"and": [c, d]}). A size equal to 0 (a remainder of M,
  /// norm-short-rows' versions for M a multiple of a block's rows) is
  /// {"lt": [a, 1]}: sizes are never negative.
  FailureOr<std::pair<json::Value, json::Value>> condition(Value value) {
    if (auto both = value.getDefiningOp<arith::AndIOp>()) {
      FailureOr<std::pair<json::Value, json::Value>> lhs =
          condition(both.getLhs());
      FailureOr<std::pair<json::Value, json::Value>> rhs =
          condition(both.getRhs());
      if (failed(lhs) || failed(rhs))
        return failure();
      auto join = [](StringRef name, json::Value c, json::Value d) {
        return json::Value(
            json::Object{{name, json::Array{std::move(c), std::move(d)}}});
      };
      return std::make_pair(join("and", lhs->first, rhs->first),
                            join("or", lhs->second, rhs->second));
    }
    auto cmp = value.getDefiningOp<arith::CmpIOp>();
    bool isZero = cmp && cmp.getPredicate() == arith::CmpIPredicate::eq &&
                  matchPattern(cmp.getRhs(), m_Zero());
    if (!cmp || (cmp.getPredicate() != arith::CmpIPredicate::ult &&
                 cmp.getPredicate() != arith::CmpIPredicate::uge && !isZero))
      return mlir::emitError(value.getLoc(),
                             "bundle: a launch condition must compare sizes "
                             "of M (unsigned < or >=, or == 0)");
    FailureOr<json::Value> lhs = expression(cmp.getLhs());
    FailureOr<json::Value> rhs = isZero ? FailureOr<json::Value>(json::Value(1))
                                        : expression(cmp.getRhs());
    if (failed(lhs) || failed(rhs))
      return failure();
    auto make = [&](StringRef name) {
      return json::Value(json::Object{{name, json::Array{*lhs, *rhs}}});
    };
    if (isZero || cmp.getPredicate() == arith::CmpIPredicate::ult)
      return std::make_pair(make("lt"), make("ge"));
    return std::make_pair(make("ge"), make("lt"));
  }

  /// The name of the buffer `value` is: an argument, an allocation, or a
  /// view of one (rootBuffer).
  std::optional<std::string> bufferName(Value value) {
    if (auto it = names.find(rootBuffer(value)); it != names.end())
      return it->second;
    return std::nullopt;
  }

  /// The buffer `value` is a view of, through memref.cast and the results of
  /// scf.ifs whose branches both yield the same buffer; `value` itself
  /// otherwise. A cast changes what is known of the shape (norm-short-rows'
  /// one-row version casts M to 1), not the buffer.
  Value rootBuffer(Value value) {
    if (auto cast = value.getDefiningOp<memref::CastOp>())
      return rootBuffer(cast.getSource());
    if (auto branch = value.getDefiningOp<scf::IfOp>()) {
      if (!branch.elseBlock())
        return value;
      unsigned k = cast<OpResult>(value).getResultNumber();
      Value a = rootBuffer(branch.thenYield().getOperand(k));
      Value b = rootBuffer(branch.elseYield().getOperand(k));
      return a == b ? a : value;
    }
    return value;
  }

  /// Dynamic dimensions of norm programs are row counts: dim 0 of a 2-D
  /// activation or of a 1-D per-row statistic. They are all "M"; the runtime
  /// checks that the tensors it is given agree.
  FailureOr<json::Array> argumentShape(func::FuncOp func, MemRefType type,
                                       unsigned index) {
    json::Array shape;
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      if (!ShapedType::isDynamic(size)) {
        shape.push_back(size);
        continue;
      }
      if (d != 0 && static_cast<int64_t>(d) + 1 == type.getRank())
        return func.emitError("bundle: argument #")
               << index << " has a dynamic normalized dimension; the GPU "
               << "path needs a static N";
      if (d != 0)
        return func.emitError("bundle: argument #")
               << index << " has dynamic dimension " << d << " of " << type
               << "; a bundle's one dynamic size is the row count M, "
               << "dimension 0: collapse the leading dimensions into one";
      shape.push_back("M");
    }
    return shape;
  }

  /// A host index value as an expression of M: integers, "M",
  /// {"ceildiv": [a, b]}, {"min": [a, b]} or {"max": [a, b]}.
  FailureOr<json::Value> expression(Value value) {
    if (auto cst = value.getDefiningOp<arith::ConstantIndexOp>())
      return json::Value(cst.value());
    if (auto dim = value.getDefiningOp<memref::DimOp>()) {
      std::optional<int64_t> index = dim.getConstantIndex();
      auto type = cast<MemRefType>(dim.getSource().getType());
      if (index && !type.isDynamicDim(*index))
        return json::Value(type.getDimSize(*index));
      // A dim of an allocated buffer (a workspace of partial rows): its
      // size; of an argument: M.
      Value source = rootBuffer(dim.getSource());
      if (auto alloc = source.getDefiningOp<memref::AllocOp>()) {
        // Seen through a cast, an allocation of a static size (a one-row
        // version's workspace) has a dynamic dim.
        if (index && !alloc.getType().isDynamicDim(*index))
          return json::Value(alloc.getType().getDimSize(*index));
        if (index)
          return expression(
              alloc.getDynamicSizes()[alloc.getType().getDynamicDimIndex(
                  *index)]);
      } else if (index && *index == 0 && isa<BlockArgument>(source) &&
                 names.count(source)) {
        return json::Value("M");
      }
    }
    auto binary = [&](StringRef name, Value a,
                      Value b) -> FailureOr<json::Value> {
      FailureOr<json::Value> lhs = expression(a);
      FailureOr<json::Value> rhs = expression(b);
      if (failed(lhs) || failed(rhs))
        return failure();
      return json::Value(
          json::Object{{name, json::Array{std::move(*lhs), std::move(*rhs)}}});
    };
    if (auto div = value.getDefiningOp<arith::CeilDivUIOp>())
      return binary("ceildiv", div.getLhs(), div.getRhs());
    if (auto min = value.getDefiningOp<arith::MinUIOp>())
      return binary("min", min.getLhs(), min.getRhs());
    if (auto max = value.getDefiningOp<arith::MaxUIOp>())
      return binary("max", max.getLhs(), max.getRhs());
    if (auto rem = value.getDefiningOp<arith::RemUIOp>())
      return binary("rem", rem.getLhs(), rem.getRhs());
    return mlir::emitError(value.getLoc(),
                           "bundle: cannot express this size in terms of M");
  }

  /// One kernel parameter: a buffer's memref descriptor ({"buffer": b,
  /// "rank": r}), its aligned pointer ({"buffer": b, "field": "aligned"};
  /// norm-compact-kernel-args), or a size ({"value": expression of M}).
  FailureOr<json::Object> describeParam(Value operand) {
    if (auto type = dyn_cast<MemRefType>(operand.getType())) {
      std::optional<std::string> name = bufferName(operand);
      if (!name)
        return failure();
      return json::Object{{"buffer", *name}, {"rank", type.getRank()}};
    }
    auto cast = operand.getDefiningOp<arith::IndexCastOp>();
    if (!cast || !operand.getType().isInteger(64))
      return failure();
    if (auto pointer =
            cast.getIn()
                .getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>()) {
      std::optional<std::string> name = bufferName(pointer.getSource());
      if (!name)
        return failure();
      return json::Object{{"buffer", *name}, {"field", "aligned"}};
    }
    FailureOr<json::Value> size = expression(cast.getIn());
    if (failed(size))
      return failure();
    return json::Object{{"value", std::move(*size)}};
  }

  FailureOr<json::Object> describeLaunch(gpu::LaunchFuncOp launch) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!kernel)
      return launch.emitError("bundle: kernel not found");
    FailureOr<json::Value> grid = expression(launch.getGridSizeX());
    FailureOr<json::Value> gridY = expression(launch.getGridSizeY());
    if (failed(grid) || failed(gridY))
      return failure();
    json::Array params;
    for (Value operand : launch.getKernelOperands()) {
      FailureOr<json::Object> param = describeParam(operand);
      if (failed(param))
        return launch.emitError("bundle: kernel operands must be buffers "
                                "(program arguments or allocations), their "
                                "aligned pointers, or sizes of M");
      params.push_back(std::move(*param));
    }
    int64_t block = 0;
    if (auto attr = kernel->getAttrOfType<IntegerAttr>(
            mlir::norm::NormDialect::BlockSizeAttrHelper::getNameStr()))
      block = attr.getInt();
    else
      return launch.emitError("bundle: kernel has no norm.block_size");
    // Blocks per thread block cluster (PTX .reqnctapercluster); above 8 the
    // runtime must allow a non-portable cluster size before launching.
    int64_t cluster = 1;
    if (auto attr = kernel->getAttrOfType<IntegerAttr>(
            mlir::norm::NormDialect::ClusterSizeAttrHelper::getNameStr()))
      cluster = attr.getInt();
    // Blocks of a block group (RowLayout::globalExchange), which wait for
    // each other: the runtime refuses a GPU that cannot hold them at once.
    int64_t blockGroup = 0;
    if (auto attr = kernel->getAttrOfType<IntegerAttr>(
            mlir::norm::NormDialect::BlockGroupAttrHelper::getNameStr()))
      blockGroup = attr.getInt();
    // Dynamic shared memory (rows staged by bulk copies): a constant.
    int64_t sharedBytes = 0;
    if (Value size = launch.getDynamicSharedMemorySize()) {
      IntegerAttr constant;
      if (!matchPattern(size, m_Constant(&constant)))
        return launch.emitError("bundle: dynamic shared memory size must be "
                                "a constant");
      sharedBytes = constant.getInt();
    }
    // A persistent kernel walks rows strided by its grid: the runtime may
    // launch fewer blocks than the grid says (KernelPlan::persistent).
    bool persistent = kernel->hasAttr(
        mlir::norm::NormDialect::PersistentAttrHelper::getNameStr());
    // A programmatic dependent launch (PDL) of the launch before it: the
    // kernel waits for that one itself (griddepcontrol.wait).
    bool programmatic = kernel->hasAttr(
        mlir::norm::NormDialect::ProgrammaticAttrHelper::getNameStr());
    json::Object described{{"kernel", kernel.getName().str()},
                           {"block", block},
                           {"cluster", cluster},
                           {"persistent", persistent},
                           {"programmatic", programmatic},
                           {"grid", std::move(*grid)},
                           {"grid_y", std::move(*gridY)},
                           {"shared_bytes", sharedBytes},
                           {"params", std::move(params)}};
    if (blockGroup > 1)
      described["block_group"] = blockGroup;
    return described;
  }

  llvm::DenseMap<Value, std::string> names;
};

} // namespace

FailureOr<json::Object> mlir::norm::describeLaunches(Operation *op) {
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError("bundle: expected a func.func");
  return Describer().run(func);
}

FailureOr<std::string> mlir::norm::extractPTX(ModuleOp module) {
  SmallVector<StringRef> modules;
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    auto objects = binary.getObjects().getAsRange<gpu::ObjectAttr>();
    auto ptx = llvm::find_if(objects, [](gpu::ObjectAttr object) {
      return object.getFormat() == gpu::CompilationTarget::Assembly;
    });
    if (ptx == objects.end())
      return binary.emitError("bundle: the binary holds no PTX (use "
                              "format=isa)");
    modules.push_back((*ptx).getObject().getValue());
  }
  if (modules.empty())
    return module.emitError("bundle: no gpu.binary (the program launches no "
                            "kernel)");
  llvm::Expected<std::string> linked = linkPTXModules(modules);
  if (!linked)
    return module.emitError("bundle: ") << llvm::toString(linked.takeError());
  return std::move(*linked);
}
