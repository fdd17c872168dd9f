//===- Launcher.h - run bundle functions through the driver -----*- C++ -*-===//
//
// Runs a bundle's function on device pointers and a stream through the CUDA
// driver API. libcuda is opened at run time (dlopen), so programs that link
// the runtime start on machines without a GPU and report a clear error only
// when they try to launch.
//
//===----------------------------------------------------------------------===//

#ifndef NORMRUNTIME_LAUNCHER_H
#define NORMRUNTIME_LAUNCHER_H

#include "NormRuntime/Bundle.h"

#include <functional>
#include <map>
#include <unordered_map>

namespace norm::runtime {

/// Device memory for outputs and workspaces: returns a pointer to `bytes`
/// bytes (16-byte aligned) or null. The default uses cuMemAlloc.
using Allocator = std::function<void *(int64_t bytes)>;

/// Loads a bundle's PTX into the calling thread's current CUDA context and
/// launches its functions. A Launcher belongs to the context current at its
/// first run: a run in another context (another device) is refused, since
/// its kernels exist in the first context only; use one Launcher per
/// context.
class Launcher {
public:
  explicit Launcher(const Bundle &bundle);
  ~Launcher();

  /// Runs `function` on `args` (contiguous, 16-byte aligned device tensors)
  /// on `stream` (a CUstream; null for the default stream). Outputs and
  /// workspaces are allocated with `allocate` (default: cuMemAlloc; the
  /// caller frees results with cuMemFree, workspaces are freed after the
  /// stream synchronizes when the default allocator is used). `results`
  /// receives the function's results. False with `error` on bad tensors or
  /// driver errors.
  bool run(const std::string &function, const std::vector<TensorRef> &args,
           std::vector<TensorRef> &results, void *stream, std::string &error,
           const Allocator &allocate = nullptr);

  /// Issues a planned call (Function::planCall of one of the bundle's
  /// functions) on `stream`: `addresses[s]` is the device address of slot
  /// s (the arguments, then the buffers, as CallPlan orders them), each
  /// 16-byte aligned and as large as the plan's bytes. Nothing is checked
  /// or allocated here; false with `error` on driver errors.
  bool launch(const CallPlan &plan, const void *const *addresses, void *stream,
              std::string &error);

private:
  bool ensureModule(std::string &error);
  /// The CUfunction of `launch`'s kernel, with its launch attributes set
  /// (non-portable cluster size, dynamic shared memory opt-in) the first
  /// time; null with `error` on driver errors.
  void *kernelFor(const LaunchDesc &launch, std::string &error);
  /// Blocks (or, for cluster kernels, clusters) of a persistent `launch`
  /// that the GPU holds at once, from the driver's occupancy queries; 0 when
  /// unknown. Cached per kernel.
  int64_t residentGrid(const LaunchDesc &launch, void *kernel, int64_t gridY,
                       void *stream);

  const Bundle &bundle;
  void *module = nullptr;
  /// The CUcontext `module` was loaded into.
  void *moduleContext = nullptr;
  /// Kernels looked up and configured so far, by launch: a launch costs
  /// one cuLaunchKernel, not a lookup and attribute calls each time.
  std::unordered_map<const LaunchDesc *, void *> kernels;
  std::unordered_map<const LaunchDesc *, int64_t> residentGrids;
};

/// True when a CUDA driver and at least one device are present.
bool cudaAvailable();

/// Of bundles compiled from one program for several chips, the one for the
/// GPU of the calling thread's current context: chooseChip over their
/// targets (that GPU's own chip, else the newest whose PTX it runs). Null
/// with `error` without a current context or where no bundle runs there.
const Bundle *bundleForDevice(const std::vector<const Bundle *> &bundles,
                              std::string &error);

/// Small driver helpers for programs that do not already manage CUDA (the
/// norm-run tool, tests). Each returns false with `error` on failure.
namespace device {
/// Makes device `ordinal`'s primary context current on this thread.
bool useDevice(int ordinal, std::string &error);
/// Makes device `ordinal`'s primary context current on this thread where
/// no context is current: a thread the CUDA runtime API selected the device
/// on without using it yet (PyTorch's autograd threads) has none until its
/// first runtime call, and the driver API launches need one. A context
/// already current is left as it is. Cheap after the first call.
bool ensureContext(int ordinal, std::string &error);
bool allocate(void **ptr, int64_t bytes, std::string &error);
bool release(void *ptr, std::string &error);
bool copyToDevice(void *dst, const void *src, int64_t bytes,
                  std::string &error);
bool copyToHost(void *dst, const void *src, int64_t bytes, std::string &error);
bool synchronize(std::string &error);
/// The compute capability of the current context's device.
bool capability(int &major, int &minor, std::string &error);
} // namespace device

} // namespace norm::runtime

#endif // NORMRUNTIME_LAUNCHER_H
