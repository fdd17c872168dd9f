//===- Bundle.cpp - kernel bundles: manifest and PTX ----------------------===//

#include "NormRuntime/Bundle.h"

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace norm::runtime;

int64_t norm::runtime::dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return 4;
  case DType::F8E4M3FN:
    return 1;
  default:
    return 2;
  }
}

const char *norm::runtime::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  case DType::F32:
    return "f32";
  case DType::F8E4M3FN:
    return "f8e4m3fn";
  }
  return "?";
}

static bool parseDType(const std::string &name, DType &out) {
  if (name == "bf16")
    out = DType::BF16;
  else if (name == "f16")
    out = DType::F16;
  else if (name == "f32")
    out = DType::F32;
  else if (name == "f8e4m3fn")
    out = DType::F8E4M3FN;
  else
    return false;
  return true;
}

/// Whether `expr` is operator `name` ({"name": [a, b]}); if so, its operands
/// evaluated into `a` and `b` (-1 for a malformed one).
static bool binaryOperands(const JsonValue &expr, const char *name,
                           int64_t rows, int64_t &a, int64_t &b) {
  const JsonValue *args = expr.get(name);
  if (!args)
    return false;
  a = b = -1;
  if (args->isArray() && args->array.size() == 2) {
    a = evaluate(args->array[0], rows);
    b = evaluate(args->array[1], rows);
  }
  return true;
}

/// Whether `expr` has the form of a size expression or condition: a
/// non-negative integer, "M", or {op: [a, b]} of such with a known op. Sizes
/// are checked for form when a bundle is read, so that evaluate's -1 at run
/// time means a size that is undefined at that M (a division by zero), not a
/// manifest nobody checked.
static bool isExpression(const JsonValue &expr, int depth = 0) {
  if (expr.isInteger())
    return expr.integer >= 0;
  if (expr.isString())
    return expr.string == "M";
  if (!expr.isObject() || expr.object.size() != 1 || depth > 32)
    return false;
  const auto &[op, args] = *expr.object.begin();
  static const char *const ops[] = {"ceildiv", "min", "max", "rem",
                                    "lt",      "ge",  "and", "or"};
  return std::find(std::begin(ops), std::end(ops), op) != std::end(ops) &&
         args.isArray() && args.array.size() == 2 &&
         isExpression(args.array[0], depth + 1) &&
         isExpression(args.array[1], depth + 1);
}

int64_t norm::runtime::evaluate(const JsonValue &expr, int64_t rows) {
  if (expr.isInteger())
    return expr.integer;
  if (expr.isString())
    return expr.string == "M" ? rows : -1;
  int64_t a = 0, b = 0;
  if (binaryOperands(expr, "ceildiv", rows, a, b))
    return a < 0 || b <= 0 ? -1 : a / b + (a % b != 0); // a + b - 1 overflows
  auto checked = [&](int64_t value) { return a < 0 || b < 0 ? -1 : value; };
  if (binaryOperands(expr, "min", rows, a, b))
    return checked(std::min(a, b));
  if (binaryOperands(expr, "max", rows, a, b))
    return checked(std::max(a, b));
  if (binaryOperands(expr, "rem", rows, a, b))
    return a < 0 || b <= 0 ? -1 : a % b;
  // Comparisons (launch conditions): 1 where they hold, else 0.
  if (binaryOperands(expr, "lt", rows, a, b))
    return checked(a < b ? 1 : 0);
  if (binaryOperands(expr, "ge", rows, a, b))
    return checked(a >= b ? 1 : 0);
  if (binaryOperands(expr, "and", rows, a, b))
    return checked(a != 0 && b != 0 ? 1 : 0);
  if (binaryOperands(expr, "or", rows, a, b))
    return checked(a != 0 || b != 0 ? 1 : 0);
  return -1;
}

std::string norm::runtime::checkGrid(const std::string &kernel, int64_t gridX,
                                     int64_t gridY, int64_t rows) {
  if (gridX <= kMaxGridX && gridY <= kMaxGridY)
    return {};
  return "M = " + std::to_string(rows) + " rows need a launch of " + kernel +
         " over " + std::to_string(gridX) + " x " + std::to_string(gridY) +
         " blocks, past CUDA's grid limit of " + std::to_string(kMaxGridX) +
         " x " + std::to_string(kMaxGridY);
}

static bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  out = buffer.str();
  return true;
}

static bool parseBuffer(const JsonValue &v, BufferDesc &out,
                        std::string &error) {
  const JsonValue *name = v.get("name"), *dtype = v.get("dtype"),
                  *shape = v.get("shape");
  if (!name || !name->isString() || !dtype || !dtype->isString() || !shape ||
      !shape->isArray()) {
    error = "manifest: a buffer needs name, dtype and shape";
    return false;
  }
  out.name = name->string;
  if (!parseDType(dtype->string, out.dtype)) {
    error = "manifest: buffer " + out.name + " has unsupported dtype " +
            dtype->string;
    return false;
  }
  for (const JsonValue &size : shape->array)
    if (!isExpression(size)) {
      error = "manifest: buffer " + out.name +
              " has a size that is no size expression";
      return false;
    }
  out.shape = shape->array;
  if (const JsonValue *zeroed = v.get("zeroed")) {
    if (zeroed->kind != JsonValue::Kind::Bool) {
      error = "manifest: buffer " + out.name + " has a non-boolean zeroed";
      return false;
    }
    out.zeroed = zeroed->boolean;
  }
  return true;
}

/// Reads the optional boolean field `key` of launch object `launch` (of
/// kernel `kernel`) into `out`; absent leaves `out` as it is.
static bool parseFlag(const JsonValue &launch, const char *key,
                      const std::string &kernel, bool &out,
                      std::string &error) {
  const JsonValue *flag = launch.get(key);
  if (!flag)
    return true;
  if (flag->kind != JsonValue::Kind::Bool) {
    error = "manifest: launch of " + kernel + " has a non-boolean " + key;
    return false;
  }
  out = flag->boolean;
  return true;
}

static bool parseFunction(const JsonValue &v, Function &f, std::string &error) {
  const JsonValue *name = v.get("function"), *args = v.get("arguments"),
                  *buffers = v.get("buffers"), *results = v.get("results"),
                  *launches = v.get("launches");
  if (!name || !name->isString() || !args || !args->isArray() || !buffers ||
      !buffers->isArray() || !results || !results->isArray() || !launches ||
      !launches->isArray()) {
    error = "manifest: a function needs function, arguments, buffers, "
            "results and launches";
    return false;
  }
  f.name = name->string;
  std::map<std::string, bool> known;
  for (const JsonValue &a : args->array) {
    f.arguments.emplace_back();
    if (!parseBuffer(a, f.arguments.back(), error))
      return false;
    // An argument's sizes are what a caller's tensor is checked against:
    // a number of elements or M, never an expression (as the Python
    // loader requires too).
    for (const JsonValue &size : f.arguments.back().shape)
      if (!(size.isInteger() && size.integer >= 0) &&
          !(size.isString() && size.string == "M")) {
        error = "manifest: argument " + f.arguments.back().name +
                " has a size that is neither an integer from 0 nor \"M\"";
        return false;
      }
    known[f.arguments.back().name] = true;
  }
  for (const JsonValue &b : buffers->array) {
    f.buffers.emplace_back();
    if (!parseBuffer(b, f.buffers.back(), error))
      return false;
    known[f.buffers.back().name] = true;
  }
  for (const JsonValue &r : results->array) {
    if (!r.isString() || !known.count(r.string)) {
      error = "manifest: " + f.name + " returns an unknown buffer";
      return false;
    }
    f.results.push_back(r.string);
  }
  for (const JsonValue &l : launches->array) {
    LaunchDesc launch;
    const JsonValue *kernel = l.get("kernel"), *block = l.get("block"),
                    *grid = l.get("grid"), *params = l.get("params");
    if (!kernel || !kernel->isString() || !block || !block->isInteger() ||
        !grid || !params || !params->isArray()) {
      error = "manifest: a launch needs kernel, block, grid and params";
      return false;
    }
    launch.kernel = kernel->string;
    // CUDA's blocks hold 1 to 1024 threads; the launch parameter is 32-bit.
    if (block->integer < 1 || block->integer > 1024) {
      error = "manifest: launch of " + launch.kernel +
              " has a bad block size (1 to 1024 threads)";
      return false;
    }
    launch.block = block->integer;
    launch.grid = *grid;
    launch.gridY.kind = JsonValue::Kind::Integer;
    launch.gridY.integer = 1;
    if (const JsonValue *gridY = l.get("grid_y"))
      launch.gridY = *gridY;
    if (!isExpression(launch.grid) || !isExpression(launch.gridY)) {
      error = "manifest: launch of " + launch.kernel +
              " has a grid that is no size expression";
      return false;
    }
    if (const JsonValue *smem = l.get("shared_bytes")) {
      // Dynamic shared memory: at most Hopper's 227 KB per block.
      if (!smem->isInteger() || smem->integer < 0 ||
          smem->integer > kMaxSharedBytes) {
        error = "manifest: launch of " + launch.kernel +
                " has a bad shared_bytes (0 to 232448)";
        return false;
      }
      launch.sharedBytes = smem->integer;
    }
    if (const JsonValue *cluster = l.get("cluster")) {
      // Hopper clusters hold 1 to 16 blocks along y (grid_y is the cluster).
      if (!cluster->isInteger() || cluster->integer < 1 ||
          cluster->integer > 16) {
        error = "manifest: launch of " + launch.kernel +
                " has a bad cluster size (1 to 16 blocks)";
        return false;
      }
      launch.cluster = cluster->integer;
    }
    if (const JsonValue *group = l.get("block_group")) {
      // The blocks of a block group wait for each other: 2 to 16.
      if (!group->isInteger() || group->integer < 2 || group->integer > 16) {
        error = "manifest: launch of " + launch.kernel +
                " has a bad block_group (2 to 16 blocks)";
        return false;
      }
      launch.blockGroup = group->integer;
    }
    if (const JsonValue *when = l.get("when")) {
      // A condition on M: the launch runs where it evaluates to 1.
      int64_t atZero = evaluate(*when, 0);
      if (!isExpression(*when) || (atZero != 0 && atZero != 1)) {
        error = "manifest: launch of " + launch.kernel +
                " has a bad when (a comparison of M)";
        return false;
      }
      launch.when = *when;
      launch.conditional = true;
    }
    if (!parseFlag(l, "persistent", launch.kernel, launch.persistent, error) ||
        !parseFlag(l, "programmatic", launch.kernel, launch.programmatic,
                   error))
      return false;
    for (const JsonValue &p : params->array) {
      LaunchParam param;
      if (const JsonValue *value = p.get("value")) {
        if (!isExpression(*value) || evaluate(*value, 1) < 0) {
          error = "manifest: launch of " + launch.kernel +
                  " has a malformed size parameter";
          return false;
        }
        param.kind = LaunchParam::Kind::Size;
        param.value = *value;
        launch.params.push_back(std::move(param));
        continue;
      }
      const JsonValue *buffer = p.get("buffer"), *rank = p.get("rank"),
                      *field = p.get("field");
      if (!buffer || !buffer->isString() || !known.count(buffer->string)) {
        error = "manifest: launch of " + launch.kernel +
                " has a parameter naming an unknown buffer";
        return false;
      }
      param.buffer = buffer->string;
      // The Python loader's schema (norm_mlir/manifest.py): a rank, where
      // given, is an integer from 0, with or without a field.
      if (rank && (!rank->isInteger() || rank->integer < 0)) {
        error = "manifest: launch of " + launch.kernel + " passes " +
                buffer->string + " with a rank that is no integer from 0";
        return false;
      }
      if (field) {
        if (!field->isString() || field->string != "aligned") {
          error = "manifest: launch of " + launch.kernel + " passes a field " +
                  "of " + buffer->string + " other than 'aligned'";
          return false;
        }
        param.kind = LaunchParam::Kind::AlignedPointer;
      } else if (!rank) {
        error = "manifest: launch of " + launch.kernel + " passes " +
                buffer->string + " without a rank or field";
        return false;
      }
      launch.params.push_back(std::move(param));
    }
    f.launches.push_back(std::move(launch));
  }
  return true;
}

std::unique_ptr<Bundle> Bundle::load(const std::string &directory,
                                     std::string &error) {
  std::string text;
  if (!readFile(directory + "/manifest.json", text)) {
    error = "no manifest.json in " + directory;
    return nullptr;
  }
  JsonValue manifest;
  if (!parseJson(text, manifest, error)) {
    error = directory + "/manifest.json: invalid JSON: " + error;
    return nullptr;
  }
  const JsonValue *format = manifest.get("format");
  if (!format || format->string != "norm-kernel-bundle") {
    error = directory + "/manifest.json is not a norm kernel bundle manifest";
    return nullptr;
  }
  const JsonValue *version = manifest.get("version");
  if (!version || !version->isInteger() || version->integer != 1) {
    error = "unsupported bundle version";
    return nullptr;
  }
  // The optional top-level fields are strings where present (as the
  // Python loader's schema says).
  for (const char *key : {"ptx", "target", "compiler"})
    if (const JsonValue *value = manifest.get(key);
        value && !value->isString()) {
      error = std::string("manifest: ") + key + " must be a string";
      return nullptr;
    }
  auto bundle = std::make_unique<Bundle>();
  const JsonValue *ptx = manifest.get("ptx");
  std::string ptxName = ptx ? ptx->string : "kernels.ptx";
  if (!readFile(directory + "/" + ptxName, bundle->ptxText)) {
    error = "bundle PTX " + directory + "/" + ptxName + " is missing";
    return nullptr;
  }
  if (const JsonValue *target = manifest.get("target"))
    bundle->targetName = target->string;
  const JsonValue *functions = manifest.get("functions");
  if (!functions || !functions->isArray()) {
    error = "manifest: no functions";
    return nullptr;
  }
  for (const JsonValue &f : functions->array) {
    Function function;
    if (!parseFunction(f, function, error))
      return nullptr;
    std::string name = function.name;
    if (!bundle->functions.emplace(name, std::move(function)).second) {
      error = "manifest: two functions named " + name;
      return nullptr;
    }
  }
  return bundle;
}

const Function *Bundle::function(const std::string &name,
                                 std::string &error) const {
  if (name.empty()) {
    if (functions.size() == 1)
      return &functions.begin()->second;
    error = "the bundle has " + std::to_string(functions.size()) +
            " functions: name one";
    return nullptr;
  }
  auto it = functions.find(name);
  if (it == functions.end()) {
    error = "the bundle has no function '" + name + "'";
    return nullptr;
  }
  return &it->second;
}

static std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

bool Function::bindRows(const std::vector<TensorRef> &args, int64_t &rows,
                        std::string &error) const {
  if (args.size() != arguments.size()) {
    error = name + " takes " + std::to_string(arguments.size()) +
            " tensors, got " + std::to_string(args.size());
    return false;
  }
  rows = -1;
  for (size_t i = 0; i < args.size(); ++i) {
    const BufferDesc &want = arguments[i];
    const TensorRef &got = args[i];
    if (got.dtype != want.dtype) {
      error = name + ": argument " + want.name + " must be " +
              dtypeName(want.dtype) + ", got " + dtypeName(got.dtype);
      return false;
    }
    if (got.shape.size() != want.shape.size()) {
      error = name + ": argument " + want.name + " must have rank " +
              std::to_string(want.shape.size()) + ", got shape " +
              shapeText(got.shape);
      return false;
    }
    int64_t elements = 1;
    for (int64_t d : got.shape) {
      if (d < 0) {
        error = name + ": argument " + want.name + " has a negative size " +
                "in shape " + shapeText(got.shape);
        return false;
      }
      if (__builtin_mul_overflow(elements, d, &elements)) {
        error = name + ": argument " + want.name + " of shape " +
                shapeText(got.shape) + " has more elements than 64 bits count";
        return false;
      }
    }
    if (elements > 0 &&
        (!got.data || reinterpret_cast<uintptr_t>(got.data) % 16 != 0)) {
      error = name + ": argument " + want.name +
              " must be a non-null, 16-byte aligned device pointer";
      return false;
    }
    for (size_t d = 0; d < got.shape.size(); ++d) {
      const JsonValue &dim = want.shape[d];
      if (dim.isString() && dim.string == "M") {
        if (got.shape[d] < 0) {
          error = name + ": negative size";
          return false;
        }
        if (rows >= 0 && got.shape[d] != rows) {
          error = name + ": argument " + want.name + " has " +
                  std::to_string(got.shape[d]) +
                  " rows, but another argument has " + std::to_string(rows);
          return false;
        }
        rows = got.shape[d];
      } else if (evaluate(dim, 0) != got.shape[d]) {
        error = name + ": argument " + want.name + " dimension " +
                std::to_string(d) + " must be " +
                std::to_string(evaluate(dim, 0)) + ", got " +
                std::to_string(got.shape[d]);
        return false;
      }
    }
  }
  if (rows < 0)
    rows = 0;
  return true;
}

std::vector<int64_t> Function::shapeOf(const BufferDesc &buffer,
                                       int64_t rows) const {
  std::vector<int64_t> shape;
  for (const JsonValue &d : buffer.shape)
    shape.push_back(evaluate(d, rows));
  return shape;
}

bool Function::bufferBytes(const BufferDesc &buffer, int64_t rows,
                           int64_t &bytes, std::string &error) const {
  bytes = dtypeBytes(buffer.dtype);
  for (int64_t s : shapeOf(buffer, rows)) {
    // -1: a size undefined at this M (a division by zero in the manifest).
    if (s < 0 || __builtin_mul_overflow(bytes, s, &bytes)) {
      error = "manifest: buffer " + buffer.name +
              " has no valid size at M = " + std::to_string(rows);
      return false;
    }
  }
  return true;
}

bool Function::planLaunches(int64_t rows, std::vector<PlannedLaunch> &planned,
                            std::string &error) const {
  planned.clear();
  bool previousIssued = false;
  for (const LaunchDesc &launch : launches) {
    bool afterIssued = previousIssued;
    previousIssued = false;
    if (launch.conditional) {
      int64_t holds = evaluate(launch.when, rows);
      if (holds < 0) {
        error = "manifest: bad when expression for " + launch.kernel;
        return false;
      }
      if (holds == 0)
        continue;
    }
    int64_t grid = evaluate(launch.grid, rows);
    int64_t gridY = evaluate(launch.gridY, rows);
    if (grid < 0 || gridY < 0) {
      error = "manifest: bad grid expression for " + launch.kernel;
      return false;
    }
    if (grid == 0 || gridY == 0)
      continue;
    if (std::string why =
            checkGrid(launch.kernel, launch.persistent ? 1 : grid, gridY, rows);
        !why.empty()) {
      error = why;
      return false;
    }
    for (const LaunchParam &param : launch.params)
      if (param.kind == LaunchParam::Kind::Size &&
          evaluate(param.value, rows) < 0) {
        error = "manifest: bad size parameter of " + launch.kernel +
                " at M = " + std::to_string(rows);
        return false;
      }
    previousIssued = true;
    planned.push_back({&launch, grid, gridY, afterIssued});
  }
  return true;
}

bool Function::planCall(int64_t rows, CallPlan &plan,
                        std::string &error) const {
  plan = CallPlan();
  plan.rows = rows;
  std::map<std::string, uint32_t> slots;
  auto addSlot = [&](const BufferDesc &buffer) {
    int64_t bytes = 0;
    if (!bufferBytes(buffer, rows, bytes, error))
      return false;
    slots[buffer.name] = static_cast<uint32_t>(plan.shapes.size());
    plan.shapes.push_back(shapeOf(buffer, rows));
    plan.bytes.push_back(bytes);
    return true;
  };
  for (const BufferDesc &buffer : arguments)
    if (!addSlot(buffer))
      return false;
  for (const BufferDesc &buffer : buffers) {
    if (buffer.zeroed)
      plan.zeroed.push_back(static_cast<uint32_t>(plan.shapes.size()));
    if (!addSlot(buffer))
      return false;
  }

  std::vector<PlannedLaunch> planned;
  if (!planLaunches(rows, planned, error))
    return false;
  for (const PlannedLaunch &p : planned) {
    CallPlan::Launch launch;
    launch.desc = p.launch;
    launch.grid = p.grid;
    launch.gridY = p.gridY;
    launch.programmatic = p.launch->programmatic && p.afterIssued;
    for (const LaunchParam &param : p.launch->params) {
      if (param.kind == LaunchParam::Kind::Size) {
        launch.words.push_back(evaluate(param.value, rows));
        continue;
      }
      // Buffer names were checked when the manifest was loaded.
      uint32_t slot = slots.at(param.buffer);
      auto address = [&] {
        launch.addresses.push_back(
            {static_cast<uint32_t>(launch.words.size()), slot});
        launch.words.push_back(0);
      };
      if (param.kind == LaunchParam::Kind::AlignedPointer) {
        address();
        continue;
      }
      // A memref descriptor: allocated and aligned pointer, offset, sizes,
      // strides (row-major).
      address();
      address();
      launch.words.push_back(0);
      const std::vector<int64_t> &shape = plan.shapes[slot];
      launch.words.insert(launch.words.end(), shape.begin(), shape.end());
      std::vector<int64_t> strides(shape.size());
      int64_t stride = 1;
      for (size_t k = shape.size(); k-- > 0;) {
        strides[k] = stride;
        stride *= shape[k];
      }
      launch.words.insert(launch.words.end(), strides.begin(), strides.end());
    }
    plan.launches.push_back(std::move(launch));
  }
  return true;
}

std::vector<std::string> Bundle::functionNames() const {
  std::vector<std::string> names;
  for (const auto &[name, function] : functions)
    names.push_back(name);
  return names;
}

/// (major, minor) of sm_NN[a|f], or (-1, -1).
static std::pair<int, int> capabilityOf(const std::string &chip) {
  if (chip.rfind("sm_", 0) != 0)
    return {-1, -1};
  std::string digits = chip.substr(3);
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f'))
    digits.pop_back();
  if (digits.size() < 2 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return {-1, -1};
  return {std::stoi(digits.substr(0, digits.size() - 1)), digits.back() - '0'};
}

bool norm::runtime::chipRunsOn(const std::string &chip, int major, int minor) {
  std::pair<int, int> wanted = capabilityOf(chip);
  if (wanted.first < 0)
    return false;
  std::pair<int, int> gpu{major, minor};
  return chip.back() == 'a' ? wanted == gpu : wanted <= gpu;
}

int norm::runtime::chooseChip(const std::vector<std::string> &chips, int major,
                              int minor) {
  int best = -1;
  for (int i = 0, e = static_cast<int>(chips.size()); i < e; ++i) {
    if (!chipRunsOn(chips[i], major, minor))
      continue;
    // The GPU's own chip wins; among the others, the newest.
    if (capabilityOf(chips[i]) == std::make_pair(major, minor))
      return i;
    if (best < 0 || capabilityOf(chips[best]) < capabilityOf(chips[i]))
      best = i;
  }
  return best;
}
