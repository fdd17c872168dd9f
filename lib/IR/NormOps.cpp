//===- NormOps.cpp - norm dialect operations ------------------------------===//
//
// Custom assembly pieces and verifiers of the norm ops. Every verifier error
// has a test in test/Dialect/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/IR/NormShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::norm;

//===----------------------------------------------------------------------===//
// custom<RoledOperands>: `(%a : full tensor<?x8xf32>, %b : col tensor<8xf32>)`
//===----------------------------------------------------------------------===//

static ParseResult
parseRoledOperands(OpAsmParser &parser,
                   SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                   SmallVectorImpl<Type> &types, ArrayAttr &roles) {
  SmallVector<Attribute> roleAttrs;
  MLIRContext *ctx = parser.getContext();
  auto parseOne = [&]() -> ParseResult {
    OpAsmParser::UnresolvedOperand operand;
    StringRef keyword;
    Type type;
    if (parser.parseOperand(operand) || parser.parseColon())
      return failure();
    SMLoc roleLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<Role> role = symbolizeRole(keyword);
    if (!role)
      return parser.emitError(roleLoc, "unknown role '")
             << keyword << "': expected 'full', 'row' or 'col'";
    if (parser.parseType(type))
      return failure();
    operands.push_back(operand);
    types.push_back(type);
    roleAttrs.push_back(RoleAttr::get(ctx, *role));
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseOne))
    return failure();
  roles = ArrayAttr::get(ctx, roleAttrs);
  return success();
}

static void printRoledOperands(OpAsmPrinter &printer, Operation *,
                               OperandRange operands, TypeRange types,
                               ArrayAttr roles) {
  printer << "(";
  for (auto [i, operand] : llvm::enumerate(operands)) {
    if (i)
      printer << ", ";
    printer << operand << " : "
            << stringifyRole(cast<RoleAttr>(roles[i]).getValue()) << " "
            << types[i];
  }
  printer << ")";
}

#define GET_OP_CLASSES
#include "NormDialect/IR/NormOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

static Role roleAt(ArrayAttr roles, unsigned i) {
  return cast<RoleAttr>(roles[i]).getValue();
}

static LogicalResult emitIfError(Operation *op, const std::string &message,
                                 StringRef what) {
  if (message.empty())
    return success();
  return op->emitOpError() << what << ": " << message;
}

static LogicalResult verifyEpsilon(Operation *op, double epsilon) {
  if (std::isnan(epsilon) || epsilon <= 0.0)
    return op->emitOpError("epsilon must be a positive number, got ")
           << epsilon;
  return success();
}

/// Infers the iteration space (M, N) from `values` read with `roles`: full
/// values give both, row values M, col values N. Every value must then agree
/// with the space. `what` names the operand group in messages.
static LogicalResult inferAndCheckSpace(Operation *op, ValueRange values,
                                        ArrayAttr roles, StringRef what,
                                        int64_t &m, int64_t &n,
                                        int64_t groupSize) {
  if (values.size() != roles.size())
    return op->emitOpError() << "has " << values.size() << " " << what
                             << " but " << roles.size() << " roles";
  auto refine = [](int64_t &dim, int64_t seen) {
    if (ShapedType::isDynamic(dim))
      dim = seen;
  };
  for (auto [i, value] : llvm::enumerate(values)) {
    auto type = cast<ShapedType>(value.getType());
    if (!type.hasRank())
      return op->emitOpError() << what << " #" << i << " must be ranked";
    if (!isSupportedFloatType(type.getElementType()))
      return op->emitOpError()
             << what << " #" << i << " has element type "
             << type.getElementType() << ": expected bf16, f16 or f32";
    Role role = roleAt(roles, i);
    std::string message =
        checkRoleShape(role, type.getShape(), m, n, groupSize);
    if (!message.empty())
      return op->emitOpError() << what << " #" << i << " does not fit the " << m
                               << "x" << n << " iteration space: " << message;
    if (role == Role::full) {
      refine(m, type.getDimSize(0));
      refine(n, type.getDimSize(1));
    } else if (role == Role::row) {
      refine(m, type.getDimSize(0));
    } else if (role == Role::group) {
      refine(m, type.getDimSize(0));
      if (!type.isDynamicDim(1) && groupSize > 0)
        refine(n, type.getDimSize(1) * groupSize);
    } else {
      refine(n, type.getDimSize(0));
    }
    if (std::string message =
            checkRowWidth(n, type.getElementTypeBitWidth() / 8);
        !message.empty())
      return op->emitOpError() << what << " #" << i << ": " << message;
  }
  return success();
}

/// Checks an op's `group_size` against its use: an op with a group order or
/// role (`usesGroups`) needs a positive one that divides a static N, and an
/// op without one takes none.
static LogicalResult verifyGroupSize(Operation *op,
                                     std::optional<int64_t> groupSize,
                                     bool usesGroups, int64_t n) {
  if (!groupSize) {
    if (usesGroups)
      return op->emitOpError("a 'group' order, role or norm.group_reduce "
                             "needs a group_size");
    return success();
  }
  if (!usesGroups)
    return op->emitOpError("has a group_size but no 'group' order, role or "
                           "norm.group_reduce");
  if (*groupSize <= 0)
    return op->emitOpError("group_size must be positive, got ") << *groupSize;
  if (!ShapedType::isDynamic(n) && n % *groupSize != 0)
    return op->emitOpError("group_size ")
           << *groupSize << " does not divide the row of " << n << " elements";
  return success();
}

static bool hasGroupRole(ArrayAttr roles) {
  return llvm::any_of(roles, [](Attribute r) {
    return cast<RoleAttr>(r).getValue() == Role::group;
  });
}

/// Checks that `block` has one scalar argument per operand, typed like the
/// operand's elements.
static LogicalResult verifyScalarArguments(Operation *op, Block &block,
                                           ValueRange operands) {
  if (block.getNumArguments() != operands.size())
    return op->emitOpError()
           << "region must have " << operands.size()
           << " arguments (one per input), got " << block.getNumArguments();
  for (auto [i, arg, operand] :
       llvm::enumerate(block.getArguments(), operands)) {
    Type elementType = cast<ShapedType>(operand.getType()).getElementType();
    if (arg.getType() != elementType)
      return op->emitOpError()
             << "region argument #" << i << " must have the input's element "
             << "type " << elementType << ", got " << arg.getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Level 1 verifiers
//===----------------------------------------------------------------------===//

/// A named operand or result of a user op, checked against x.
struct Named {
  Value value;
  StringRef name;
};

/// Checks per-row statistics (f32, x's leading dimensions) and weight/bias
/// vectors (length N, supported type) against activation shape `x`. Absent
/// optional values are skipped.
static LogicalResult verifyStatsAndParams(Operation *op, ArrayRef<int64_t> x,
                                          ArrayRef<Named> stats,
                                          ArrayRef<Named> params) {
  for (const Named &s : stats)
    if (failed(emitIfError(
            op, checkStatsType(cast<ShapedType>(s.value.getType()), x),
            s.name)))
      return failure();
  for (const Named &p : params)
    if (p.value &&
        failed(emitIfError(
            op, checkParamType(cast<ShapedType>(p.value.getType()), x),
            p.name)))
      return failure();
  return success();
}

/// Checks x and y of a forward op.
static LogicalResult verifyForwardActivations(Operation *op, RankedTensorType x,
                                              RankedTensorType y) {
  if (failed(emitIfError(op, checkActivationType(x), "x")))
    return failure();
  // y in f32 lets an elementwise consumer (a gate, a quantization) round
  // once, after its own work.
  if (y != x && y != x.clone(Float32Type::get(op->getContext())))
    return op->emitOpError("result y must have the type of x or be its f32 "
                           "counterpart, got ")
           << y;
  return success();
}

LogicalResult RMSNormOp::verify() {
  auto x = getX().getType();
  if (failed(verifyForwardActivations(*this, x, getY().getType())) ||
      failed(verifyStatsAndParams(*this, x.getShape(), {{getRstd(), "rstd"}},
                                  {{getWeight(), "weight"}})))
    return failure();
  if (std::isnan(getWeightOffset().convertToDouble()))
    return emitOpError("weight_offset must not be NaN");
  return verifyEpsilon(*this, getEpsilon().convertToDouble());
}

LogicalResult LayerNormOp::verify() {
  auto x = getX().getType();
  if (failed(verifyForwardActivations(*this, x, getY().getType())) ||
      failed(verifyStatsAndParams(
          *this, x.getShape(), {{getMean(), "mean"}, {getRstd(), "rstd"}},
          {{getWeight(), "weight"}, {getBias(), "bias"}})))
    return failure();
  if (std::isnan(getWeightOffset().convertToDouble()))
    return emitOpError("weight_offset must not be NaN");
  return verifyEpsilon(*this, getEpsilon().convertToDouble());
}

/// Checks dy/x/dx of a backward op.
static LogicalResult verifyGradActivations(Operation *op, RankedTensorType dy,
                                           RankedTensorType x,
                                           RankedTensorType dx) {
  if (failed(emitIfError(op, checkActivationType(x), "x")))
    return failure();
  if (dy != x)
    return op->emitOpError("dy must have the type of x, got ") << dy;
  // dx in f32 lets an elementwise consumer (a residual gradient added to
  // it) round once, after the sum.
  if (dx != x && dx != x.clone(Float32Type::get(op->getContext())))
    return op->emitOpError("result dx must have the type of x or be its f32 "
                           "counterpart, got ")
           << dx;
  return success();
}

/// Checks that a backward op returns dw exactly when it has a weight, of
/// the weight's type.
static LogicalResult verifyWeightGrad(Operation *op, Value weight, Value dw) {
  if (weight && !dw)
    return op->emitOpError("must return dw when a weight is given");
  if (!weight && dw)
    return op->emitOpError("returns dw but has no weight");
  if (dw && dw.getType() != weight.getType())
    return op->emitOpError("dw must have the type of the weight, got ")
           << dw.getType();
  return success();
}

LogicalResult RMSNormGradOp::verify() {
  auto x = getX().getType();
  if (failed(verifyGradActivations(*this, getDy().getType(), x,
                                   getDx().getType())))
    return failure();
  if (failed(verifyStatsAndParams(*this, x.getShape(), {{getRstd(), "rstd"}},
                                  {{getWeight(), "weight"}})))
    return failure();
  return verifyWeightGrad(*this, getWeight(), getDw());
}

LogicalResult LayerNormGradOp::verify() {
  auto x = getX().getType();
  if (failed(verifyGradActivations(*this, getDy().getType(), x,
                                   getDx().getType())))
    return failure();
  if (failed(verifyStatsAndParams(*this, x.getShape(),
                                  {{getMean(), "mean"}, {getRstd(), "rstd"}},
                                  {{getWeight(), "weight"}, {getDb(), "db"}})))
    return failure();
  if (failed(verifyWeightGrad(*this, getWeight(), getDw())))
    return failure();
  if (getHasBias() && !getDb())
    return emitOpError("must return db when has_bias is set");
  if (!getHasBias() && getDb())
    return emitOpError("returns db but has_bias is not set");
  return success();
}

//===----------------------------------------------------------------------===//
// Level 2 verifiers
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  int64_t m = ShapedType::kDynamic, n = ShapedType::kDynamic;
  int64_t groupSize = getGroupSize().value_or(0);
  if (failed(inferAndCheckSpace(*this, getInputs(), getRoles(), "input", m, n,
                                groupSize)))
    return failure();
  if (failed(verifyGroupSize(
          *this, getGroupSize(),
          getOrder() == Order::group || hasGroupRole(getRoles()), n)))
    return failure();
  if (!llvm::any_of(getRoles(), [](Attribute r) {
        return cast<RoleAttr>(r).getValue() == Role::full;
      }))
    return emitOpError("needs at least one 'full' input to define the M x N "
                       "space it reduces");
  Role resultRole = roleOfOrder(getOrder());
  auto resultType = getResult().getType();
  std::string message =
      checkRoleShape(resultRole, resultType.getShape(), m, n, groupSize);
  if (!message.empty())
    return emitOpError() << "result contradicts order '"
                         << stringifyOrder(getOrder()) << "': " << message;
  if (!isSupportedFloatType(resultType.getElementType()))
    return emitOpError("result element type must be bf16, f16 or f32");
  return success();
}

static LogicalResult verifyYieldTypes(Operation *op, Block &block,
                                      TypeRange expected) {
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().size() != expected.size())
    return op->emitOpError() << "region must yield " << expected.size()
                             << " value(s), got " << yield.getValues().size();
  for (auto [i, value, type] : llvm::enumerate(yield.getValues(), expected))
    if (value.getType() != type)
      return op->emitOpError() << "region yields " << value.getType()
                               << " for result #" << i << ", expected " << type;
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  Block &block = getBody().front();
  if (failed(verifyScalarArguments(*this, block, getInputs())))
    return failure();
  // Values are accumulated in f32 and rounded once to the result type.
  return verifyYieldTypes(*this, block, {Float32Type::get(getContext())});
}

LogicalResult MapOp::verify() {
  int64_t m = ShapedType::kDynamic, n = ShapedType::kDynamic;
  int64_t groupSize = getGroupSize().value_or(0);
  if (failed(inferAndCheckSpace(*this, getInputs(), getRoles(), "input", m, n,
                                groupSize)))
    return failure();
  Role resultRole = getResultRole();
  if (failed(verifyGroupSize(
          *this, getGroupSize(),
          resultRole == Role::group || hasGroupRole(getRoles()), n)))
    return failure();
  if (resultRole != Role::full)
    for (auto [i, role] : llvm::enumerate(getRoles())) {
      Role inputRole = cast<RoleAttr>(role).getValue();
      // A group's values are the same across it, as a row's are.
      bool sameAcross = inputRole == resultRole ||
                        (resultRole == Role::group && inputRole == Role::row);
      if (!sameAcross)
        return emitOpError()
               << "a '" << stringifyRole(resultRole)
               << "' result may only read '" << stringifyRole(resultRole)
               << (resultRole == Role::group ? "' and 'row" : "")
               << "' inputs, but input #" << i << " is '"
               << stringifyRole(inputRole) << "'";
    }
  std::string message = checkRoleShape(
      resultRole, getResult().getType().getShape(), m, n, groupSize);
  return emitIfError(*this, message, "result");
}

LogicalResult MapOp::verifyRegions() {
  Block &block = getBody().front();
  if (failed(verifyScalarArguments(*this, block, getInputs())))
    return failure();
  return verifyYieldTypes(*this, block,
                          {getResult().getType().getElementType()});
}

//===----------------------------------------------------------------------===//
// Level 3: FusedOp
//===----------------------------------------------------------------------===//

Role FusedOp::getInputRole(unsigned i) { return roleAt(getRoles(), i); }
Role FusedOp::getOutputRole(unsigned i) { return roleAt(getOutputRoles(), i); }

bool FusedOp::hasColumnOutputs() {
  for (unsigned i = 0, e = getOutputs().size(); i < e; ++i)
    if (getOutputRole(i) == Role::col)
      return true;
  return false;
}

bool FusedOp::hasOnlyColumnOutputs() {
  for (unsigned i = 0, e = getOutputs().size(); i < e; ++i)
    if (getOutputRole(i) != Role::col)
      return false;
  return true;
}

/// Rows of one wave of `minPartials` partial rows of `rowsPerPartial` rows
/// each, saturated (a split size near the int64 range is one wave).
static int64_t waveRows(int64_t rowsPerPartial, int64_t minPartials) {
  if (rowsPerPartial > std::numeric_limits<int64_t>::max() / minPartials)
    return std::numeric_limits<int64_t>::max();
  return rowsPerPartial * minPartials;
}

/// The partial rows min_rows_per_partial yields to: ceil(F / 4) for
/// `minPartials` F (getRowsPerPartialFor and buildRowsPerPartial alike).
static int64_t floorYieldPartials(int64_t minPartials) {
  return (minPartials + 3) / 4;
}

std::optional<int64_t> FusedOp::getRowsPerPartialFor(int64_t m) {
  std::optional<int64_t> split = getRowsPerPartial();
  if (!split)
    return std::nullopt;
  return getRowsPerPartialFor(m, *split, getMinPartials().value_or(0),
                              getMinRowsPerPartial().value_or(0),
                              getMaxPartials().value_or(0));
}

int64_t FusedOp::getRowsPerPartialFor(int64_t m, int64_t rowsPerPartial,
                                      int64_t minPartials,
                                      int64_t minRowsPerPartial,
                                      int64_t maxPartials) {
  if (minPartials <= 0)
    return rowsPerPartial;
  // As buildRowsPerPartial: ceil(M / F) rows spread over whole waves, at
  // least K while that leaves ceil(F / 4) partial rows.
  int64_t spread = (m + minPartials - 1) / minPartials;
  int64_t wave = waveRows(rowsPerPartial, minPartials);
  int64_t waves = std::max<int64_t>(1, m / wave + (m % wave != 0));
  int64_t floor = 1;
  if (minRowsPerPartial > 1) {
    int64_t quarter = floorYieldPartials(minPartials);
    floor = std::min(minRowsPerPartial, (m + quarter - 1) / quarter);
  }
  int64_t capped = maxPartials > 0 ? (m + maxPartials - 1) / maxPartials : 1;
  return std::max<int64_t>({1, floor, capped, (spread + waves - 1) / waves});
}

Value FusedOp::buildRowsPerPartial(OpBuilder &b, Location loc, Value rows) {
  std::optional<int64_t> split = getRowsPerPartial();
  if (!split)
    return {};
  return buildRowsPerPartial(b, loc, rows, *split, getMinPartials().value_or(0),
                             getMinRowsPerPartial().value_or(0),
                             getMaxPartials().value_or(0));
}

Value FusedOp::buildRowsPerPartial(OpBuilder &b, Location loc, Value rows,
                                   int64_t rowsPerPartial, int64_t minPartials,
                                   int64_t minRowsPerPartial,
                                   int64_t maxPartials) {
  if (minPartials <= 0)
    return arith::ConstantIndexOp::create(b, loc, rowsPerPartial);
  // R = max(K', ceil(ceil(M / F) / W)), W = max(1, ceil(M / (F * S))): the
  // fewest whole waves W of F partial rows of at most S rows each, and the
  // rows spread evenly over them. Where M <= F * S (one wave) that is
  // ceil(M / F) <= S; past it, ceil(M / F) = 147 partial rows of 64 (M =
  // 9362, F = 132) would run a second wave of 15 blocks, which 261 of 36
  // rows avoid. K' = max(1, min(K, ceil(M / ceil(F / 4)))) with K
  // min_rows_per_partial (1 without it): the floor yields where it would
  // leave fewer than a quarter of F partial rows. With max_partials P, R is
  // at least ceil(M / P) too: past F * S rows one wave of P partial rows
  // instead of W waves of F. At M = 0 the partial rows ceil(M / R) are 0
  // instead of a division by zero.
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value floor = one;
  if (minRowsPerPartial > 1) {
    Value quarter =
        arith::ConstantIndexOp::create(b, loc, floorYieldPartials(minPartials));
    floor = arith::MaxUIOp::create(
        b, loc, one,
        arith::MinUIOp::create(
            b, loc, arith::ConstantIndexOp::create(b, loc, minRowsPerPartial),
            arith::CeilDivUIOp::create(b, loc, rows, quarter)));
  }
  if (maxPartials > 0)
    floor = arith::MaxUIOp::create(
        b, loc, floor,
        arith::CeilDivUIOp::create(
            b, loc, rows, arith::ConstantIndexOp::create(b, loc, maxPartials)));
  Value spread = arith::CeilDivUIOp::create(
      b, loc, rows, arith::ConstantIndexOp::create(b, loc, minPartials));
  Value waves = arith::MaxUIOp::create(
      b, loc, one,
      arith::CeilDivUIOp::create(
          b, loc, rows,
          arith::ConstantIndexOp::create(
              b, loc, waveRows(rowsPerPartial, minPartials))));
  return arith::MaxUIOp::create(
      b, loc, floor, arith::CeilDivUIOp::create(b, loc, spread, waves));
}

Value FusedOp::getShapeSource() {
  for (unsigned i = 0, e = getInputs().size(); i < e; ++i)
    if (getInputRole(i) == Role::full)
      return getInputs()[i];
  for (unsigned i = 0, e = getOutputs().size(); i < e; ++i)
    if (getOutputRole(i) == Role::full)
      return getOutputs()[i];
  return {};
}

LogicalResult FusedOp::verify() {
  int64_t m = ShapedType::kDynamic, n = ShapedType::kDynamic;
  int64_t groupSize = getGroupSize().value_or(0);
  if (failed(inferAndCheckSpace(*this, getInputs(), getRoles(), "input", m, n,
                                groupSize)))
    return failure();
  bool groupReduces =
      !getBody().empty() && !getBody().front().getOps<GroupReduceOp>().empty();
  if (failed(verifyGroupSize(*this, getGroupSize(),
                             groupReduces || hasGroupRole(getRoles()) ||
                                 hasGroupRole(getOutputRoles()),
                             n)))
    return failure();
  for (auto [i, output] : llvm::enumerate(getOutputs())) {
    auto type = cast<ShapedType>(output.getType());
    if (!type.hasRank() ||
        !isSupportedOutputType(type.getElementType(), getOutputRole(i)))
      return emitOpError() << "output #" << i
                           << " must be a ranked bf16, f16 or f32 value "
                              "(f8E4M3FN unless a column output), got "
                           << type;
    if (std::string message =
            checkRowWidth(n, type.getElementTypeBitWidth() / 8);
        !message.empty())
      return emitOpError() << "output #" << i << ": " << message;
  }
  if (!getShapeSource())
    return emitOpError("needs a 'full' input or output to define the M x N "
                       "space it iterates over");
  bool onTensors = llvm::all_of(
      getOperandTypes(), [](Type t) { return isa<RankedTensorType>(t); });
  bool onMemrefs = llvm::all_of(getOperandTypes(),
                                [](Type t) { return isa<MemRefType>(t); });
  if (!onTensors && !onMemrefs)
    return emitOpError("operands must be all tensors or all memrefs");
  if (onTensors && getResultTypes() != getOutputs().getTypes())
    return emitOpError("on tensors, the results must have the types of the "
                       "outputs");
  if (onMemrefs && getNumResults() != 0)
    return emitOpError("on memrefs, the op has no results");
  // Plain values rather than the optional in the messages below: GCC's
  // -Wmaybe-uninitialized misreads the optional's payload there (Release).
  bool split = getRowsPerPartial().has_value();
  int64_t splitRows = getRowsPerPartial().value_or(0);
  if (split && splitRows <= 0)
    return emitOpError("rows_per_partial must be positive, got ") << splitRows;
  if (std::optional<int64_t> fill = getMinPartials()) {
    if (!split)
      return emitOpError("min_partials needs rows_per_partial");
    if (*fill <= 0)
      return emitOpError("min_partials must be positive, got ") << *fill;
  }
  if (std::optional<int64_t> cap = getMaxPartials()) {
    if (!getMinPartials())
      return emitOpError("max_partials needs min_partials");
    if (*cap < *getMinPartials())
      return emitOpError("max_partials must be at least min_partials (")
             << *getMinPartials() << "), got " << *cap;
  }
  if (std::optional<int64_t> floor = getMinRowsPerPartial()) {
    if (!getMinPartials())
      return emitOpError("min_rows_per_partial needs min_partials");
    if (*floor <= 0 || *floor > splitRows)
      return emitOpError("min_rows_per_partial must be from 1 to "
                         "rows_per_partial (")
             << splitRows << "), got " << *floor;
  }
  if (getOutputs().size() != getOutputRoles().size())
    return emitOpError() << "has " << getOutputs().size() << " outputs but "
                         << getOutputRoles().size() << " output roles";
  // The dialect verifies these attributes' kinds (integer or unit,
  // NormDialect::verifyOperationAttribute); their values are checked here.
  if (auto count =
          (*this)->getAttrOfType<IntegerAttr>(getRowsPerBlockAttrName())) {
    if (count.getInt() <= 0)
      return emitOpError("'") << getRowsPerBlockAttrName()
                              << "' must be a positive integer, got " << count;
    if (split)
      return emitOpError("'") << getRowsPerBlockAttrName()
                              << "' and rows_per_partial both set the rows "
                                 "of a block: give one";
  }
  if (auto count =
          (*this)->getAttrOfType<IntegerAttr>(getMinBlocksPerSMAttrName())) {
    // Hopper's limit of resident blocks an SM; .minnctapersm takes no more.
    if (count.getInt() < 1 || count.getInt() > 32)
      return emitOpError("'")
             << getMinBlocksPerSMAttrName()
             << "' must be an integer from 1 to 32, got " << count;
  }
  if (auto bound =
          (*this)->getAttrOfType<IntegerAttr>(getRowsBelowAttrName())) {
    if (bound.getInt() <= 0)
      return emitOpError("'") << getRowsBelowAttrName()
                              << "' must be a positive integer, got " << bound;
    int64_t m = cast<ShapedType>(getShapeSource().getType()).getDimSize(0);
    if (!ShapedType::isDynamic(m) && m >= bound.getInt())
      return emitOpError("has ")
             << m << " rows, not below its '" << getRowsBelowAttrName()
             << "' of " << bound.getInt();
  }
  if (auto factor =
          (*this)->getAttrOfType<IntegerAttr>(getRowsMultipleAttrName())) {
    if (factor.getInt() <= 0)
      return emitOpError("'") << getRowsMultipleAttrName()
                              << "' must be a positive integer, got " << factor;
    int64_t m = cast<ShapedType>(getShapeSource().getType()).getDimSize(0);
    if (!ShapedType::isDynamic(m) && m % factor.getInt() != 0)
      return emitOpError("has ")
             << m << " rows, not a multiple of its '"
             << getRowsMultipleAttrName() << "' " << factor.getInt();
  }
  if (auto count =
          (*this)->getAttrOfType<IntegerAttr>(getVectorWidthAttrName())) {
    auto space = cast<ShapedType>(getShapeSource().getType());
    int64_t w = count.getInt();
    if (w <= 0 || (w & (w - 1)) != 0)
      return emitOpError("'") << getVectorWidthAttrName()
                              << "' must be a power of two, got " << count;
    // 16 bytes: the widest vector load a thread issues.
    unsigned bits = space.getElementTypeBitWidth();
    if (w * bits > 128)
      return emitOpError("'")
             << getVectorWidthAttrName() << "' of " << w << " elements of "
             << bits << " bits exceeds a 16-byte vector";
    if (space.getRank() != 2 || ShapedType::isDynamic(space.getDimSize(1)) ||
        space.getDimSize(1) % w != 0)
      return emitOpError("'") << getVectorWidthAttrName() << "' of " << w
                              << " needs a static row width it divides";
  }
  if ((*this)->hasAttr(getPreloadColumnsAttrName())) {
    if (!(*this)->hasAttr(getStreamRowsAttrName()))
      return emitOpError("'") << getPreloadColumnsAttrName() << "' needs '"
                              << getStreamRowsAttrName()
                              << "': only streamed kernels preload columns";
  }
  if ((*this)->hasAttr(getWholeColumnsAttrName())) {
    if (split)
      return emitOpError("'") << getWholeColumnsAttrName()
                              << "' kernels are not split (rows_per_partial)";
    if (!hasColumnOutputs())
      return emitOpError("'") << getWholeColumnsAttrName()
                              << "' marks kernels with column outputs; this "
                                 "one has none";
  }
  for (auto [i, output] : llvm::enumerate(getOutputs())) {
    auto type = cast<ShapedType>(output.getType());
    Role role = getOutputRole(i);
    if (role == Role::col && split) {
      int64_t partials = ShapedType::kDynamic;
      if (!ShapedType::isDynamic(m)) {
        int64_t rows = *getRowsPerPartialFor(m);
        partials = (m + rows - 1) / rows;
      }
      std::string message =
          checkRoleShape(Role::full, type.getShape(), partials, n);
      if (!message.empty())
        return emitOpError()
               << "output #" << i << " holds column partials of "
               << "ceil(M/" << splitRows << ") rows"
               << (getMinPartials() ? " (or more, min_partials)" : "") << ": "
               << message;
      if (!type.getElementType().isF32())
        return emitOpError()
               << "output #" << i << ": column partials must be f32";
      continue;
    }
    std::string message =
        checkRoleShape(role, type.getShape(), m, n, groupSize);
    if (!message.empty())
      return emitOpError() << "output #" << i << " does not fit the " << m
                           << "x" << n << " iteration space: " << message;
  }
  return success();
}

/// True when `value` is the same for every column of a row (`across` row)
/// or of a group (`across` group): a row input, a norm.row_reduce result, a
/// value from outside the body, for groups also a group input or a
/// norm.group_reduce result, or an op computed only from such values.
static bool isUniform(Value value, FusedOp op, Role across,
                      llvm::DenseMap<Value, bool> &cache) {
  if (auto it = cache.find(value); it != cache.end())
    return it->second;
  Block &body = op.getBody().front();
  bool uniform;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Role role = arg.getOwner() == &body ? op.getInputRole(arg.getArgNumber())
                                        : Role::row;
    uniform = role == Role::row || (across == Role::group && role == across);
  } else {
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != &body || isa<RowReduceOp>(def) ||
        (across == Role::group && isa<GroupReduceOp>(def))) {
      uniform = true;
    } else {
      cache[value] = false; // Guards against (invalid) cycles.
      uniform = llvm::all_of(def->getOperands(), [&](Value operand) {
        return isUniform(operand, op, across, cache);
      });
    }
  }
  cache[value] = uniform;
  return uniform;
}

LogicalResult FusedOp::verifyRegions() {
  Block &block = getBody().front();
  if (failed(verifyScalarArguments(*this, block, getInputs())))
    return failure();
  SmallVector<Type> expected;
  for (auto [i, output] : llvm::enumerate(getOutputs())) {
    Type element = cast<ShapedType>(output.getType()).getElementType();
    // Column outputs are accumulated in f32 and rounded once when stored.
    expected.push_back(getOutputRole(i) == Role::col
                           ? Float32Type::get(getContext())
                           : element);
  }
  if (failed(verifyYieldTypes(*this, block, expected)))
    return failure();
  llvm::DenseMap<Value, bool> rowCache, groupCache;
  auto yield = cast<YieldOp>(block.getTerminator());
  for (auto [i, value] : llvm::enumerate(yield.getValues())) {
    Role role = getOutputRole(i);
    if (role == Role::row && !isUniform(value, *this, role, rowCache))
      return emitOpError() << "output #" << i
                           << " is a 'row' output but its value varies along "
                              "the row (reduce it with norm.row_reduce first)";
    if (role == Role::group && !isUniform(value, *this, role, groupCache))
      return emitOpError()
             << "output #" << i
             << " is a 'group' output but its value varies along the group "
                "(reduce it with norm.group_reduce first)";
  }
  return success();
}

void FusedOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : getInputsMutable())
    if (isa<MemRefType>(operand.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  for (OpOperand &operand : getOutputsMutable())
    if (isa<MemRefType>(operand.get().getType()))
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// Level 3: CombineOp
//===----------------------------------------------------------------------===//

LogicalResult CombineOp::verify() {
  auto partials = cast<ShapedType>(getPartials().getType());
  auto output = cast<ShapedType>(getOutput().getType());
  if (!partials.hasRank() || partials.getRank() != 2 ||
      !partials.getElementType().isF32())
    return emitOpError("partials must be a rank-2 f32 buffer (P x N)");
  if (!output.hasRank() || output.getRank() != 1 ||
      !isSupportedFloatType(output.getElementType()))
    return emitOpError("output must be a rank-1 bf16, f16 or f32 N-vector");
  if (!dimsCompatible(partials.getDimSize(1), output.getDimSize(0)))
    return emitOpError("partials have ")
           << partials.getDimSize(1) << " columns but the output has "
           << output.getDimSize(0);
  if (isa<RankedTensorType>(partials) != isa<RankedTensorType>(output))
    return emitOpError("operands must be both tensors or both memrefs");
  if (isa<RankedTensorType>(output)) {
    if (getResult().size() != 1 || getResult()[0].getType() != output)
      return emitOpError("on tensors, the result must have the output's type");
  } else if (!getResult().empty()) {
    return emitOpError("on memrefs, the op has no results");
  }
  return success();
}

void CombineOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (isa<MemRefType>(getPartials().getType()))
    effects.emplace_back(MemoryEffects::Read::get(), &getPartialsMutable(),
                         SideEffects::DefaultResource::get());
  if (isa<MemRefType>(getOutput().getType()))
    effects.emplace_back(MemoryEffects::Write::get(), &getOutputMutable(),
                         SideEffects::DefaultResource::get());
}
