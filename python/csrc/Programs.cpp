//===- Programs.cpp - compiled programs of the PyTorch ops ----------------===//

#include "Programs.h"

#include "NormRuntime/Bundle.h"
#include "NormRuntime/Launcher.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/hash.h>

#include <memory>
#include <mutex>
#include <unordered_map>

using namespace norm::runtime;

namespace norm_mlir {

bool ProgramKey::operator==(const ProgramKey &other) const {
  return kind == other.kind && n == other.n && dtype == other.dtype &&
         weightDtype == other.weightDtype && eps == other.eps &&
         offset == other.offset && bias == other.bias && stats == other.stats &&
         residual == other.residual && activation == other.activation &&
         normBeforeGate == other.normBeforeGate && quant == other.quant &&
         groupSize == other.groupSize && device == other.device;
}

namespace {

struct KeyHash {
  size_t operator()(const ProgramKey &k) const {
    return c10::get_hash(
        static_cast<int>(k.kind), k.n, static_cast<int>(k.dtype),
        k.weightDtype ? static_cast<int>(*k.weightDtype) : -1, k.eps, k.offset,
        k.bias, k.stats, k.residual, k.activation, k.normBeforeGate, k.quant,
        k.groupSize, static_cast<int>(k.device));
  }
};

/// The program names of norm_mlir.programs.
const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::RmsForward:
    return "rms_fwd";
  case Kind::RmsBackward:
    return "rms_bwd";
  case Kind::LayerForward:
    return "ln_fwd";
  case Kind::LayerBackward:
    return "ln_bwd";
  case Kind::L2Forward:
    return "l2_fwd";
  case Kind::L2Backward:
    return "l2_bwd";
  case Kind::GatedForward:
    return "gated_fwd";
  case Kind::GatedBackward:
    return "gated_bwd";
  }
  return "?";
}

c10::ScalarType scalarType(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return c10::ScalarType::BFloat16;
  case DType::F16:
    return c10::ScalarType::Half;
  case DType::F32:
    return c10::ScalarType::Float;
  case DType::F8E4M3FN:
    return c10::ScalarType::Float8_e4m3fn;
  }
  return c10::ScalarType::Undefined;
}

/// The bundle directory of `key`'s program: norm_mlir's Python side
/// (norm_mlir.ops) compiles it or finds it in the cache, through the
/// dispatcher, so the cache and its keys live in one place.
std::string bundleDirectory(const ProgramKey &key) {
  static auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("norm_mlir::_bundle_directory", "")
          .typed<std::string(c10::string_view, int64_t, c10::ScalarType,
                             std::optional<c10::ScalarType>, double, double,
                             bool, bool, bool, c10::string_view, bool, bool,
                             c10::Device, int64_t)>();
  try {
    return op.call(kindName(key.kind), key.n, key.dtype, key.weightDtype,
                   key.eps, key.offset, key.bias, key.stats, key.residual,
                   key.activation, key.normBeforeGate, key.quant,
                   c10::Device(c10::DeviceType::CUDA, key.device),
                   key.groupSize);
  } catch (const c10::Error &e) {
    TORCH_CHECK(false, "norm_mlir: no bundle for ", kindName(key.kind),
                " at N = ", std::to_string(key.n), " (",
                e.what_without_backtrace(),
                "); the Python package norm_mlir registers the compiler: "
                "import it before calling the ops");
  }
}

/// One program loaded on one device, with a launch plan per row count.
class LoadedProgram {
public:
  LoadedProgram(std::unique_ptr<Bundle> loaded, const Function *function)
      : bundle(std::move(loaded)), function(function), launcher(*bundle) {
    for (const std::string &name : function->results)
      for (size_t b = 0; b < function->buffers.size(); ++b)
        if (function->buffers[b].name == name)
          resultBuffers.push_back(b);
  }

  std::vector<at::Tensor> run(const std::vector<at::Tensor> &inputs,
                              int64_t rows, c10::Device device) {
    size_t arguments = function->arguments.size();
    TORCH_CHECK(inputs.size() == arguments, "norm_mlir: ", function->name,
                " takes ", std::to_string(arguments), " tensors, got ",
                std::to_string(inputs.size()));
    c10::DeviceGuard guard(device);
    std::lock_guard<std::mutex> lock(mutex);
    const CallPlan &plan = planFor(rows);
    std::vector<const void *> addresses(plan.shapes.size());
    for (size_t i = 0; i < arguments; ++i) {
      const at::Tensor &t = inputs[i];
      // The ops build their inputs to the signature; a mismatch is a bug
      // here, and would otherwise read past a buffer.
      TORCH_CHECK(t.scalar_type() == scalarType(function->arguments[i].dtype) &&
                      static_cast<int64_t>(t.nbytes()) == plan.bytes[i],
                  "norm_mlir: ", function->name, ": argument ",
                  function->arguments[i].name, " does not match the program");
      addresses[i] = t.const_data_ptr();
    }
    std::vector<at::Tensor> buffers;
    buffers.reserve(function->buffers.size());
    for (size_t b = 0; b < function->buffers.size(); ++b) {
      size_t slot = arguments + b;
      buffers.push_back(at::empty(plan.shapes[slot],
                                  at::TensorOptions().device(device).dtype(
                                      scalarType(function->buffers[b].dtype))));
      addresses[slot] = buffers.back().const_data_ptr();
    }
    void *stream = c10::cuda::getCurrentCUDAStream(device.index()).stream();
    std::string error;
    TORCH_CHECK(norm::runtime::device::ensureContext(device.index(), error),
                "norm_mlir: ", function->name, ": ", error);
    TORCH_CHECK(launcher.launch(plan, addresses.data(), stream, error),
                "norm_mlir: ", function->name, ": ", error);
    std::vector<at::Tensor> results;
    results.reserve(resultBuffers.size());
    for (size_t b : resultBuffers)
      results.push_back(buffers[b]);
    return results;
  }

private:
  /// The plan for `rows`, made on the first call with that M. Row counts
  /// vary with batch and sequence length; past kMaxPlans distinct ones the
  /// cache starts over rather than grow without bound.
  const CallPlan &planFor(int64_t rows) {
    auto found = plans.find(rows);
    if (found != plans.end())
      return found->second;
    constexpr size_t kMaxPlans = 4096;
    if (plans.size() >= kMaxPlans)
      plans.clear();
    CallPlan plan;
    std::string error;
    TORCH_CHECK(function->planCall(rows, plan, error),
                "norm_mlir: ", function->name, ": ", error);
    return plans.emplace(rows, std::move(plan)).first->second;
  }

  std::unique_ptr<Bundle> bundle;
  const Function *function;
  Launcher launcher;
  /// The function's results as indices into its buffers.
  std::vector<size_t> resultBuffers;
  std::unordered_map<int64_t, CallPlan> plans;
  /// Calls come from the caller's threads and autograd's device threads.
  std::mutex mutex;
};

LoadedProgram &loadedProgram(const ProgramKey &key) {
  static std::mutex mutex;
  static std::unordered_map<ProgramKey, std::unique_ptr<LoadedProgram>, KeyHash>
      programs;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = programs.find(key);
    if (found != programs.end())
      return *found->second;
  }
  // Compiling takes seconds and calls into Python: not under the lock.
  std::string directory = bundleDirectory(key);
  std::string error;
  std::unique_ptr<Bundle> bundle = Bundle::load(directory, error);
  TORCH_CHECK(bundle, "norm_mlir: the bundle in ", directory,
              " cannot be loaded: ", error);
  const Function *function = bundle->function("", error);
  TORCH_CHECK(function, "norm_mlir: the bundle in ", directory, ": ", error);
  std::lock_guard<std::mutex> lock(mutex);
  auto &slot = programs[key];
  // Another thread may have loaded it meanwhile: keep the first.
  if (!slot)
    slot = std::make_unique<LoadedProgram>(std::move(bundle), function);
  return *slot;
}

} // namespace

std::vector<at::Tensor> runProgram(const ProgramKey &key,
                                   const std::vector<at::Tensor> &inputs,
                                   int64_t rows) {
  return loadedProgram(key).run(inputs, rows,
                                c10::Device(c10::DeviceType::CUDA, key.device));
}

} // namespace norm_mlir
