"""A small ctypes binding of the CUDA driver API: load PTX, launch kernels.

Only libcuda is needed (no toolkit, no MLIR, no cuda-python): the bundle
runtime must work wherever a driver and PyTorch are installed. It uses the
current context, which PyTorch creates on first CUDA use.
"""

import ctypes
import ctypes.util


class CudaError(RuntimeError):
    pass


_lib = None


def _driver():
    global _lib
    if _lib is None:
        for name in ("libcuda.so.1", "libcuda.so", ctypes.util.find_library("cuda")):
            if not name:
                continue
            try:
                _lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if _lib is None:
            raise CudaError("the CUDA driver (libcuda.so.1) is not available on this machine")
    return _lib


def _check(result, what):
    if result != 0:
        name = ctypes.c_char_p()
        message = ctypes.c_char_p()
        lib = _driver()
        lib.cuGetErrorName(result, ctypes.byref(name))
        lib.cuGetErrorString(result, ctypes.byref(message))
        raise CudaError(f"{what} failed: {(name.value or b'?').decode()} "
                        f"({(message.value or b'').decode()})")


class _LaunchConfig(ctypes.Structure):
    """CUlaunchConfig (cuda.h)."""
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint),
                ("gridDimZ", ctypes.c_uint), ("blockDimX", ctypes.c_uint),
                ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.c_void_p), ("numAttrs", ctypes.c_uint)]


class _LaunchAttribute(ctypes.Structure):
    """CUlaunchAttribute (cuda.h): an id padded to 8 bytes and a 64-byte
    value union, of which only the first int is used here."""
    _fields_ = [("id", ctypes.c_uint), ("pad", ctypes.c_char * 4),
                ("value", ctypes.c_int), ("rest", ctypes.c_char * 60)]


CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6


class Module:
    """A loaded PTX module of the current context."""

    def __init__(self, ptx):
        lib = _driver()
        _check(lib.cuInit(0), "cuInit")
        context = ctypes.c_void_p()
        _check(lib.cuCtxGetCurrent(ctypes.byref(context)), "cuCtxGetCurrent")
        if not context.value:
            raise CudaError("no current CUDA context: initialize CUDA (e.g. torch.cuda.init()) first")
        self._module = ctypes.c_void_p()
        # JIT log buffer so ptxas errors are reported, not just an error code.
        log_size = 1 << 14
        log = ctypes.create_string_buffer(log_size)
        CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 5, 6
        options = (ctypes.c_int * 2)(CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        values = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p).value, log_size)
        data = ptx.encode() + b"\0"
        result = lib.cuModuleLoadDataEx(ctypes.byref(self._module), data, 2, options, values)
        if result != 0:
            detail = log.value.decode(errors="replace")
            try:
                _check(result, "cuModuleLoadDataEx")
            except CudaError as e:
                raise CudaError(f"{e}\n{detail}") from None
        self._functions = {}

    def function(self, name):
        if name not in self._functions:
            f = ctypes.c_void_p()
            _check(_driver().cuModuleGetFunction(ctypes.byref(f), self._module, name.encode()),
                   f"cuModuleGetFunction({name})")
            self._functions[name] = f
        return self._functions[name]

    def allow_large_cluster(self, name):
        """Lets kernel `name` run in clusters of more than 8 blocks (the
        portable limit; Hopper has 16)."""
        CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
        _check(_driver().cuFuncSetAttribute(
            self.function(name), CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
            f"cuFuncSetAttribute({name})")

    def allow_shared_bytes(self, name, nbytes):
        """Lets kernel `name` use `nbytes` of dynamic shared memory (needed
        once its static and dynamic shared memory exceed 48 KB)."""
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
        _check(_driver().cuFuncSetAttribute(
            self.function(name), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, nbytes),
            f"cuFuncSetAttribute({name})")

    def resident_grid(self, name, grid_y, block, shared_bytes=0, cluster=1, stream=0):
        """Blocks (for cluster kernels: clusters) of kernel `name` that the
        GPU holds at once, from the driver's occupancy queries; 0 when the
        driver cannot tell."""
        lib = _driver()
        f = self.function(name)
        count = ctypes.c_int(0)
        if cluster > 1:
            if not hasattr(lib, "cuOccupancyMaxActiveClusters"):
                return 0
            # The cluster shape is compiled into the kernel; the
            # configuration names none.
            config = _LaunchConfig(1, grid_y, 1, block, 1, 1, shared_bytes,
                                   ctypes.c_void_p(stream), None, 0)
            if lib.cuOccupancyMaxActiveClusters(ctypes.byref(count), f, ctypes.byref(config)):
                return 0
            return count.value
        device, sms = ctypes.c_int(0), ctypes.c_int(0)
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
        if (lib.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                ctypes.byref(count), f, ctypes.c_int(block), ctypes.c_size_t(shared_bytes))
                or lib.cuCtxGetDevice(ctypes.byref(device))
                or lib.cuDeviceGetAttribute(ctypes.byref(sms),
                                            CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device)):
            return 0
        return count.value * sms.value

    def launch(self, name, grid, block, params, stream=0, shared_bytes=0,
               programmatic=False):
        """grid: (x, y); params: list of ctypes scalars (kept alive by the
        caller). `programmatic`: a programmatic dependent launch of the
        kernel before it in the stream (the kernel waits for that one with
        griddepcontrol.wait), through cuLaunchKernelEx where the driver has
        it; otherwise, and without it, an ordinary stream-ordered launch."""
        f = self.function(name)
        grid_x, grid_y = grid
        pointers = (ctypes.c_void_p * len(params))(
            *[ctypes.cast(ctypes.byref(p), ctypes.c_void_p) for p in params])
        lib = _driver()
        if programmatic and hasattr(lib, "cuLaunchKernelEx"):
            attribute = _LaunchAttribute(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                                         b"", 1, b"")
            config = _LaunchConfig(grid_x, grid_y, 1, block, 1, 1, shared_bytes,
                                   ctypes.c_void_p(stream),
                                   ctypes.cast(ctypes.byref(attribute), ctypes.c_void_p), 1)
            _check(lib.cuLaunchKernelEx(ctypes.byref(config), f, pointers, None),
                   f"cuLaunchKernelEx({name})")
            return
        _check(lib.cuLaunchKernel(
            f, ctypes.c_uint(grid_x), ctypes.c_uint(grid_y), 1, ctypes.c_uint(block), 1, 1,
            ctypes.c_uint(shared_bytes), ctypes.c_void_p(stream), pointers, None),
            f"cuLaunchKernel({name})")
