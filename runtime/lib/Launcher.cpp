//===- Launcher.cpp - run bundle functions through the driver -------------===//

#include "NormRuntime/Launcher.h"

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>

#include <mutex>

using namespace norm::runtime;

namespace {
/// The driver entry points the runtime uses, resolved with dlopen.
struct Driver {
  decltype(&cuInit) init = nullptr;
  decltype(&cuDeviceGetCount) deviceGetCount = nullptr;
  decltype(&cuCtxGetCurrent) ctxGetCurrent = nullptr;
  decltype(&cuModuleLoadDataEx) moduleLoadDataEx = nullptr;
  decltype(&cuModuleUnload) moduleUnload = nullptr;
  decltype(&cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&cuLaunchKernel) launchKernel = nullptr;
  decltype(&cuFuncSetAttribute) funcSetAttribute = nullptr;
  decltype(&cuMemAlloc_v2) memAlloc = nullptr;
  decltype(&cuMemFree_v2) memFree = nullptr;
  decltype(&cuStreamSynchronize) streamSynchronize = nullptr;
  decltype(&cuGetErrorString) getErrorString = nullptr;
  decltype(&cuDeviceGet) deviceGet = nullptr;
  decltype(&cuDevicePrimaryCtxRetain) primaryCtxRetain = nullptr;
  decltype(&cuCtxSetCurrent) ctxSetCurrent = nullptr;
  decltype(&cuMemcpyHtoD_v2) memcpyHtoD = nullptr;
  decltype(&cuMemcpyDtoH_v2) memcpyDtoH = nullptr;
  decltype(&cuCtxSynchronize) ctxSynchronize = nullptr;
  decltype(&cuMemsetD8Async) memsetD8Async = nullptr;
  // Optional: without them, persistent kernels get their full grid.
  decltype(&cuOccupancyMaxActiveClusters) occupancyMaxActiveClusters = nullptr;
  decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessor)
      occupancyMaxActiveBlocks = nullptr;
  decltype(&cuCtxGetDevice) ctxGetDevice = nullptr;
  decltype(&cuDeviceGetAttribute) deviceGetAttribute = nullptr;
  // Optional: without it, programmatic launches are ordinary ones.
  decltype(&cuLaunchKernelEx) launchKernelEx = nullptr;
  bool loaded = false;
  std::string error;

  static Driver &get() {
    static Driver driver;
    static std::once_flag once;
    std::call_once(once, [] { driver.load(); });
    return driver;
  }

  void load() {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error = "the CUDA driver (libcuda.so.1) is not available";
      return;
    }
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(lib, name));
      return fn != nullptr;
    };
    loaded = sym(init, "cuInit") && sym(deviceGetCount, "cuDeviceGetCount") &&
             sym(ctxGetCurrent, "cuCtxGetCurrent") &&
             sym(moduleLoadDataEx, "cuModuleLoadDataEx") &&
             sym(moduleUnload, "cuModuleUnload") &&
             sym(moduleGetFunction, "cuModuleGetFunction") &&
             sym(launchKernel, "cuLaunchKernel") &&
             sym(funcSetAttribute, "cuFuncSetAttribute") &&
             sym(memAlloc, "cuMemAlloc_v2") && sym(memFree, "cuMemFree_v2") &&
             sym(streamSynchronize, "cuStreamSynchronize") &&
             sym(getErrorString, "cuGetErrorString") &&
             sym(deviceGet, "cuDeviceGet") &&
             sym(primaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
             sym(ctxSetCurrent, "cuCtxSetCurrent") &&
             sym(memcpyHtoD, "cuMemcpyHtoD_v2") &&
             sym(memcpyDtoH, "cuMemcpyDtoH_v2") &&
             sym(ctxSynchronize, "cuCtxSynchronize") &&
             sym(memsetD8Async, "cuMemsetD8Async");
    sym(occupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters");
    sym(launchKernelEx, "cuLaunchKernelEx");
    sym(occupancyMaxActiveBlocks,
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    sym(ctxGetDevice, "cuCtxGetDevice");
    sym(deviceGetAttribute, "cuDeviceGetAttribute");
    if (!loaded)
      error = "the CUDA driver lacks an entry point the runtime needs";
    else if (init(0) != CUDA_SUCCESS) {
      loaded = false;
      error = "cuInit failed: no usable CUDA device";
    }
  }

  bool check(CUresult result, const char *what, std::string &out) const {
    if (result == CUDA_SUCCESS)
      return true;
    const char *text = nullptr;
    getErrorString(result, &text);
    out = std::string(what) + " failed: " + (text ? text : "unknown error");
    return false;
  }
};
} // namespace

bool norm::runtime::cudaAvailable() {
  Driver &d = Driver::get();
  int count = 0;
  return d.loaded && d.deviceGetCount(&count) == CUDA_SUCCESS && count > 0;
}

Launcher::Launcher(const Bundle &bundle) : bundle(bundle) {}

Launcher::~Launcher() {
  if (!module)
    return;
  // cuModuleUnload unloads from the current context: where another one is
  // current (a Launcher destroyed on another thread or device), the
  // module's is made current for the call and the caller's restored.
  Driver &d = Driver::get();
  CUcontext current = nullptr;
  d.ctxGetCurrent(&current);
  auto owner = static_cast<CUcontext>(moduleContext);
  bool switched = current != owner && d.ctxSetCurrent(owner) == CUDA_SUCCESS;
  d.moduleUnload(static_cast<CUmodule>(module));
  if (switched)
    d.ctxSetCurrent(current);
}

bool Launcher::ensureModule(std::string &error) {
  Driver &d = Driver::get();
  if (!d.loaded) {
    error = d.error;
    return false;
  }
  CUcontext context = nullptr;
  if (!d.check(d.ctxGetCurrent(&context), "cuCtxGetCurrent", error))
    return false;
  if (!context) {
    error = "no current CUDA context on this thread";
    return false;
  }
  if (module) {
    // Kernel handles of one context are invalid in another.
    if (context == moduleContext)
      return true;
    error = "this Launcher's kernels were loaded in another CUDA context "
            "(another device); use one Launcher per context";
    return false;
  }
  // PTX for a newer chip than the GPU's fails to load with a JIT log about
  // SM versions; say which chip instead.
  int major = 0, minor = 0;
  std::string unknown;
  if (device::capability(major, minor, unknown) &&
      !chipRunsOn(bundle.target(), major, minor)) {
    error = "this bundle's kernels are compiled for " + bundle.target() +
            ", which a GPU of compute capability " + std::to_string(major) +
            "." + std::to_string(minor) +
            " cannot run: compile the program for its chip, or for sm_80 "
            "(which every GPU from 8.0 on runs)";
    return false;
  }
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
  CUmodule loaded = nullptr;
  if (!d.check(
          d.moduleLoadDataEx(&loaded, bundle.ptx().c_str(), 2, options, values),
          "cuModuleLoadDataEx", error)) {
    error += std::string("\n") + log;
    return false;
  }
  module = loaded;
  moduleContext = context;
  return true;
}

void *Launcher::kernelFor(const LaunchDesc &launch, std::string &error) {
  auto cached = kernels.find(&launch);
  if (cached != kernels.end())
    return cached->second;
  Driver &d = Driver::get();
  CUfunction kernel = nullptr;
  if (!d.check(d.moduleGetFunction(&kernel, static_cast<CUmodule>(module),
                                   launch.kernel.c_str()),
               "cuModuleGetFunction", error))
    return nullptr;
  // Clusters of more than 8 blocks (the portable limit) must be allowed
  // per kernel; the cluster shape itself is compiled into the PTX.
  if (launch.cluster > 8 &&
      !d.check(
          d.funcSetAttribute(
              kernel, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
          "cuFuncSetAttribute", error))
    return nullptr;
  // Static and dynamic shared memory together above 48 KB need an opt-in
  // for the dynamic part; opting in whenever there is a dynamic part
  // covers kernels just under 48 KB of it plus their static buffers. A
  // kernel's launches all ask for the same amount (one manifest entry).
  if (launch.sharedBytes > 0 &&
      !d.check(d.funcSetAttribute(
                   kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                   static_cast<int>(launch.sharedBytes)),
               "cuFuncSetAttribute", error))
    return nullptr;
  kernels[&launch] = kernel;
  return kernel;
}

int64_t Launcher::residentGrid(const LaunchDesc &launch, void *kernel,
                               int64_t gridY, void *stream) {
  auto cached = residentGrids.find(&launch);
  if (cached != residentGrids.end())
    return cached->second;
  Driver &d = Driver::get();
  auto function = static_cast<CUfunction>(kernel);
  int64_t resident = 0;
  if (launch.cluster > 1) {
    // Clusters that fit at once (the GPCs decide, not only the SM count:
    // 15 clusters of 8 on a 132-SM H200). The cluster shape is compiled
    // into the kernel, so the configuration names none.
    CUlaunchConfig config{};
    config.gridDimX = 1;
    config.gridDimY = static_cast<unsigned>(gridY);
    config.gridDimZ = 1;
    config.blockDimX = static_cast<unsigned>(launch.block);
    config.blockDimY = config.blockDimZ = 1;
    config.sharedMemBytes = static_cast<unsigned>(launch.sharedBytes);
    config.hStream = static_cast<CUstream>(stream);
    int clusters = 0;
    if (d.occupancyMaxActiveClusters &&
        d.occupancyMaxActiveClusters(&clusters, function, &config) ==
            CUDA_SUCCESS)
      resident = clusters;
  } else {
    int blocks = 0, sms = 0;
    CUdevice device = 0;
    if (d.occupancyMaxActiveBlocks && d.ctxGetDevice && d.deviceGetAttribute &&
        d.occupancyMaxActiveBlocks(&blocks, function,
                                   static_cast<int>(launch.block),
                                   launch.sharedBytes) == CUDA_SUCCESS &&
        d.ctxGetDevice(&device) == CUDA_SUCCESS &&
        d.deviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                             device) == CUDA_SUCCESS)
      resident = static_cast<int64_t>(blocks) * sms;
  }
  residentGrids[&launch] = resident;
  return resident;
}

bool Launcher::launch(const CallPlan &plan, const void *const *addresses,
                      void *stream, std::string &error) {
  if (!ensureModule(error))
    return false;
  Driver &d = Driver::get();
  // The parameter words of one launch, with the addresses filled in: on the
  // stack for every kernel the compiler emits (descriptors of rank 2 take 7
  // words; the widest kernels take a few dozen).
  constexpr size_t kInlineWords = 128;
  int64_t inlineWords[kInlineWords];
  void *inlinePointers[kInlineWords];
  std::vector<int64_t> heapWords;
  std::vector<void *> heapPointers;
  // Workspaces the kernels need zeroed, on the stream before them (at
  // M = 0 a launch may be skipped, the zeroing costs nothing there).
  for (uint32_t slot : plan.zeroed)
    if (plan.bytes[slot] > 0 &&
        !d.check(d.memsetD8Async(reinterpret_cast<CUdeviceptr>(addresses[slot]),
                                 0, static_cast<size_t>(plan.bytes[slot]),
                                 static_cast<CUstream>(stream)),
                 "cuMemsetD8Async", error))
      return false;
  for (const CallPlan::Launch &planned : plan.launches) {
    const LaunchDesc &desc = *planned.desc;
    auto kernel = static_cast<CUfunction>(kernelFor(desc, error));
    if (!kernel)
      return false;
    int64_t grid = planned.grid;
    // A block group's blocks wait for each other: a GPU that cannot hold
    // them at once (fewer SMs than the bundle was planned for) would hang.
    if (desc.blockGroup > 1) {
      int64_t resident = residentGrid(desc, kernel, 1, stream);
      if (resident > 0 && resident < desc.blockGroup) {
        error = desc.kernel + ": its rows are shared by block groups of " +
                std::to_string(desc.blockGroup) +
                " blocks, which must run at once, but this GPU holds " +
                std::to_string(resident) +
                " of its blocks at once; compile the program for this GPU";
        return false;
      }
    }
    // A persistent kernel walks its rows strided by the grid: as many
    // blocks (clusters) as are resident at once do all the rows in one
    // wave, without a partial last wave. An unknown count keeps the grid.
    if (desc.persistent) {
      int64_t resident = residentGrid(desc, kernel, planned.gridY, stream);
      if (resident > 0)
        grid = std::min(grid, resident);
      if (std::string why =
              checkGrid(desc.kernel, grid, planned.gridY, plan.rows);
          !why.empty()) {
        error = why;
        return false;
      }
    }
    size_t count = planned.words.size();
    int64_t *words = inlineWords;
    void **params = inlinePointers;
    if (count > kInlineWords) {
      heapWords.resize(count);
      heapPointers.resize(count);
      words = heapWords.data();
      params = heapPointers.data();
    }
    std::copy(planned.words.begin(), planned.words.end(), words);
    for (auto [word, slot] : planned.addresses)
      words[word] = reinterpret_cast<int64_t>(addresses[slot]);
    for (size_t i = 0; i < count; ++i)
      params[i] = &words[i];
    // A programmatic dependent launch (PDL) may begin while the launch
    // before it finishes; the kernel waits for it (griddepcontrol.wait).
    if (planned.programmatic && d.launchKernelEx) {
      CUlaunchAttribute attribute{};
      attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attribute.value.programmaticStreamSerializationAllowed = 1;
      CUlaunchConfig config{};
      config.gridDimX = static_cast<unsigned>(grid);
      config.gridDimY = static_cast<unsigned>(planned.gridY);
      config.gridDimZ = 1;
      config.blockDimX = static_cast<unsigned>(desc.block);
      config.blockDimY = 1;
      config.blockDimZ = 1;
      config.sharedMemBytes = static_cast<unsigned>(desc.sharedBytes);
      config.hStream = static_cast<CUstream>(stream);
      config.attrs = &attribute;
      config.numAttrs = 1;
      if (!d.check(d.launchKernelEx(&config, kernel, params, nullptr),
                   "cuLaunchKernelEx", error))
        return false;
      continue;
    }
    if (!d.check(d.launchKernel(kernel, grid, planned.gridY, 1, desc.block, 1,
                                1, desc.sharedBytes,
                                static_cast<CUstream>(stream), params, nullptr),
                 "cuLaunchKernel", error))
      return false;
  }
  return true;
}

bool Launcher::run(const std::string &functionName,
                   const std::vector<TensorRef> &args,
                   std::vector<TensorRef> &results, void *stream,
                   std::string &error, const Allocator &allocate) {
  const Function *function = bundle.function(functionName, error);
  if (!function)
    return false;
  int64_t rows = 0;
  if (!function->bindRows(args, rows, error))
    return false;
  // The launches this M makes, with their grids, settled before anything
  // is allocated or launched: a bad expression or a grid past CUDA's
  // limits then leaves no kernel of the call running.
  CallPlan plan;
  if (!function->planCall(rows, plan, error))
    return false;
  if (!ensureModule(error))
    return false;
  Driver &d = Driver::get();

  // Every slot's address: the arguments, then allocated outputs and
  // workspaces.
  std::vector<void *> addresses;
  for (const TensorRef &arg : args)
    addresses.push_back(arg.data);
  std::vector<CUdeviceptr> owned;
  auto release = [&] {
    for (CUdeviceptr p : owned)
      d.memFree(p);
  };
  for (size_t b = 0; b < function->buffers.size(); ++b) {
    int64_t bytes = plan.bytes[args.size() + b];
    void *data = nullptr;
    if (bytes > 0) {
      if (allocate) {
        data = allocate(bytes);
      } else {
        CUdeviceptr p = 0;
        if (!d.check(d.memAlloc(&p, bytes), "cuMemAlloc", error)) {
          release();
          return false;
        }
        data = reinterpret_cast<void *>(p);
        owned.push_back(p);
      }
      if (!data) {
        error = "allocation of " + function->buffers[b].name + " failed";
        release();
        return false;
      }
    }
    addresses.push_back(data);
  }

  if (!launch(plan, addresses.data(), stream, error)) {
    release();
    return false;
  }

  results.clear();
  for (const std::string &name : function->results)
    for (size_t b = 0; b < function->buffers.size(); ++b)
      if (function->buffers[b].name == name) {
        size_t slot = args.size() + b;
        results.push_back(
            {addresses[slot], function->buffers[b].dtype, plan.shapes[slot]});
      }
  // Workspaces we allocated are freed once the work is done; results belong
  // to the caller.
  std::vector<CUdeviceptr> workspaces;
  for (CUdeviceptr p : owned) {
    bool isResult = false;
    for (const TensorRef &r : results)
      isResult |= reinterpret_cast<CUdeviceptr>(r.data) == p;
    if (!isResult)
      workspaces.push_back(p);
  }
  if (!workspaces.empty()) {
    if (!d.check(d.streamSynchronize(static_cast<CUstream>(stream)),
                 "cuStreamSynchronize", error))
      return false;
    for (CUdeviceptr p : workspaces)
      d.memFree(p);
  }
  return true;
}

namespace {
Driver *loadedDriver(std::string &error) {
  Driver &d = Driver::get();
  if (!d.loaded) {
    error = d.error;
    return nullptr;
  }
  return &d;
}
} // namespace

bool norm::runtime::device::useDevice(int ordinal, std::string &error) {
  Driver *d = loadedDriver(error);
  CUdevice device;
  CUcontext context;
  return d && d->check(d->deviceGet(&device, ordinal), "cuDeviceGet", error) &&
         d->check(d->primaryCtxRetain(&context, device),
                  "cuDevicePrimaryCtxRetain", error) &&
         d->check(d->ctxSetCurrent(context), "cuCtxSetCurrent", error);
}

bool norm::runtime::device::ensureContext(int ordinal, std::string &error) {
  Driver *d = loadedDriver(error);
  if (!d)
    return false;
  CUcontext current = nullptr;
  if (!d->check(d->ctxGetCurrent(&current), "cuCtxGetCurrent", error))
    return false;
  if (current)
    return true;
  // The primary contexts retained so far, by ordinal: each is retained once
  // and kept (PyTorch holds the same contexts for the process's life).
  static std::mutex mutex;
  static std::map<int, CUcontext> primary;
  CUcontext context = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = primary.find(ordinal);
    if (found != primary.end()) {
      context = found->second;
    } else {
      CUdevice device;
      if (!d->check(d->deviceGet(&device, ordinal), "cuDeviceGet", error) ||
          !d->check(d->primaryCtxRetain(&context, device),
                    "cuDevicePrimaryCtxRetain", error))
        return false;
      primary[ordinal] = context;
    }
  }
  return d->check(d->ctxSetCurrent(context), "cuCtxSetCurrent", error);
}

bool norm::runtime::device::allocate(void **ptr, int64_t bytes,
                                     std::string &error) {
  Driver *d = loadedDriver(error);
  CUdeviceptr p = 0;
  if (!d || !d->check(d->memAlloc(&p, bytes), "cuMemAlloc", error))
    return false;
  *ptr = reinterpret_cast<void *>(p);
  return true;
}

bool norm::runtime::device::release(void *ptr, std::string &error) {
  Driver *d = loadedDriver(error);
  return d && d->check(d->memFree(reinterpret_cast<CUdeviceptr>(ptr)),
                       "cuMemFree", error);
}

bool norm::runtime::device::copyToDevice(void *dst, const void *src,
                                         int64_t bytes, std::string &error) {
  Driver *d = loadedDriver(error);
  return d &&
         d->check(d->memcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, bytes),
                  "cuMemcpyHtoD", error);
}

bool norm::runtime::device::copyToHost(void *dst, const void *src,
                                       int64_t bytes, std::string &error) {
  Driver *d = loadedDriver(error);
  return d &&
         d->check(d->memcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), bytes),
                  "cuMemcpyDtoH", error);
}

bool norm::runtime::device::synchronize(std::string &error) {
  Driver *d = loadedDriver(error);
  return d && d->check(d->ctxSynchronize(), "cuCtxSynchronize", error);
}

bool norm::runtime::device::capability(int &major, int &minor,
                                       std::string &error) {
  Driver &d = Driver::get();
  if (!d.loaded) {
    error = d.error;
    return false;
  }
  if (!d.ctxGetDevice || !d.deviceGetAttribute) {
    error = "the CUDA driver lacks cuCtxGetDevice or cuDeviceGetAttribute";
    return false;
  }
  CUdevice device = 0;
  return d.check(d.ctxGetDevice(&device), "cuCtxGetDevice", error) &&
         d.check(
             d.deviceGetAttribute(
                 &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
             "cuDeviceGetAttribute", error) &&
         d.check(
             d.deviceGetAttribute(
                 &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
             "cuDeviceGetAttribute", error);
}

const Bundle *
norm::runtime::bundleForDevice(const std::vector<const Bundle *> &bundles,
                               std::string &error) {
  int major = 0, minor = 0;
  if (!device::capability(major, minor, error))
    return nullptr;
  std::vector<std::string> chips;
  for (const Bundle *bundle : bundles)
    chips.push_back(bundle->target());
  int chosen = chooseChip(chips, major, minor);
  if (chosen < 0) {
    error = "no bundle is compiled for a chip that a GPU of compute "
            "capability " +
            std::to_string(major) + "." + std::to_string(minor) +
            " runs (sm_80's run on every GPU from 8.0 on)";
    return nullptr;
  }
  return bundles[chosen];
}
