"""Runs a bundle function on torch tensors."""

import ctypes

from .bundle import BundleError, evaluate
from .driver import Module

def _torch_dtype(name):
    import torch
    return {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32,
            "f8e4m3fn": torch.float8_e4m3fn}[name]


def _descriptor(tensor):
    """The memref descriptor fields of a contiguous tensor: allocated and
    aligned pointer, offset, sizes, strides (the default MLIR GPU calling
    convention)."""
    ptr = ctypes.c_uint64(tensor.data_ptr())
    fields = [ptr, ctypes.c_uint64(tensor.data_ptr()), ctypes.c_int64(0)]
    fields += [ctypes.c_int64(s) for s in tensor.shape]
    fields += [ctypes.c_int64(s) for s in tensor.stride()]
    return fields


def _param(param, env, m):
    """The kernel arguments of one manifest parameter: a buffer's memref
    descriptor, its aligned pointer (norm-compact-kernel-args) or a size."""
    if "value" in param:
        return [ctypes.c_int64(evaluate(param["value"], m))]
    tensor = env[param["buffer"]]
    if param.get("field") == "aligned":
        return [ctypes.c_uint64(tensor.data_ptr())]
    return _descriptor(tensor)


class Launcher:
    """Binds a bundle to the current CUDA context."""

    def __init__(self, bundle, poison_outputs=False):
        """poison_outputs: fill every output and workspace with NaN before
        launching, so tests catch elements a kernel fails to write."""
        self.bundle = bundle
        self.module = None
        self._device = None
        self.poison_outputs = poison_outputs
        self._large_clusters = set()
        self._large_shared = set()
        self._resident = {}

    def _ensure_module(self, device):
        """Loads the PTX into the current context (that of `device`) on the
        first call. Kernel handles are the context's, so a call on another
        device is refused rather than failing in the driver; the torch ops
        keep one Launcher per device."""
        if self.module is None:
            import torch
            from .checks import chip_runs_on
            capability = torch.cuda.get_device_capability(device)
            if not chip_runs_on(self.bundle.target, *capability):
                raise BundleError(
                    f"this bundle's kernels are compiled for {self.bundle.target}, which a GPU "
                    f"of compute capability {capability[0]}.{capability[1]} cannot run: "
                    f"compile the program for its chip, or for sm_80 (which every GPU from "
                    f"8.0 on runs)")
            self.module = Module(self.bundle.ptx)
            self._device = device
        elif device != self._device:
            raise ValueError(f"this Launcher's kernels are loaded on {self._device}, got "
                             f"tensors on {device}; use one Launcher per device")

    def check_arguments(self, function, tensors):
        """Validates tensors against the signature; returns M."""
        import torch
        if len(tensors) != len(function.arguments):
            raise BundleError(f"{function.name} takes {len(function.arguments)} tensors, "
                              f"got {len(tensors)}")
        device = None
        for arg, t in zip(function.arguments, tensors):
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{function.name}: argument {arg['name']} must be a torch.Tensor, "
                                f"got {type(t).__name__}")
            want = _torch_dtype(arg["dtype"])
            if t.dtype != want:
                raise TypeError(f"{function.name}: argument {arg['name']} must be {want}, got {t.dtype}")
            if not t.is_cuda:
                raise ValueError(f"{function.name}: argument {arg['name']} must be on a CUDA device, "
                                 f"got {t.device}")
            if device is None:
                device = t.device
            elif t.device != device:
                raise ValueError(f"{function.name}: all tensors must be on one device, got "
                                 f"{device} and {t.device}")
            if not t.is_contiguous():
                raise ValueError(f"{function.name}: argument {arg['name']} must be contiguous")
            if t.data_ptr() % 16 != 0:
                raise ValueError(f"{function.name}: argument {arg['name']} must be 16-byte aligned "
                                 f"(got address {t.data_ptr():#x}); use a fresh or contiguous tensor")
        return function.bind_rows([list(t.shape) for t in tensors]), device

    def __call__(self, function_name, *tensors):
        import torch
        function = self.bundle.function(function_name)
        m, device = self.check_arguments(function, tensors)
        launches = function.check_grids(m)
        outputs = {}
        env = {a["name"]: t for a, t in zip(function.arguments, tensors)}
        for name, buf in function.buffers.items():
            shape = function.buffer_shape(name, m)
            # A workspace the kernels need zeroed (a block group's tickets
            # and slots) is zeroed whatever poison_outputs says.
            if buf.get("zeroed", False):
                outputs[name] = torch.zeros(shape, dtype=_torch_dtype(buf["dtype"]),
                                            device=device)
                continue
            outputs[name] = torch.empty(shape, dtype=_torch_dtype(buf["dtype"]), device=device)
            if self.poison_outputs:
                outputs[name].fill_(float("nan"))
        env.update(outputs)
        # Launches whose grid is empty are skipped; with M = 0 the combine
        # kernels still run and write dw = db = 0.
        with torch.cuda.device(device):
            self._ensure_module(device)
            stream = torch.cuda.current_stream(device).cuda_stream
            # A programmatic launch after a skipped one is an ordinary
            # launch: it would otherwise overlap the stream's work before
            # the call.
            previous_issued = False
            for launch, grid in launches:
                programmatic = launch.get("programmatic", False) and previous_issued
                previous_issued = False
                if grid[0] <= 0 or grid[1] <= 0:
                    continue
                previous_issued = True
                if launch.get("cluster", 1) > 8 and launch["kernel"] not in self._large_clusters:
                    self.module.allow_large_cluster(launch["kernel"])
                    self._large_clusters.add(launch["kernel"])
                shared = launch.get("shared_bytes", 0)
                # Static + dynamic shared memory above 48 KB needs the opt-in;
                # any dynamic part gets it (its static buffers are not known
                # here).
                if shared > 0 and launch["kernel"] not in self._large_shared:
                    self.module.allow_shared_bytes(launch["kernel"], shared)
                    self._large_shared.add(launch["kernel"])
                # A block group's blocks wait for each other: a GPU that
                # cannot hold them at once would hang.
                group = launch.get("block_group", 0)
                if group > 1:
                    name = launch["kernel"]
                    if name not in self._resident:
                        self._resident[name] = self.module.resident_grid(
                            name, 1, launch["block"], shared, 1, stream)
                    if 0 < self._resident[name] < group:
                        raise BundleError(
                            f"{name}: its rows are shared by block groups of {group} blocks, "
                            f"which must run at once, but this GPU holds "
                            f"{self._resident[name]} of its blocks at once; compile the "
                            f"program for this GPU")
                # A persistent kernel walks its rows strided by the grid:
                # as many blocks (clusters) as are resident at once do all
                # rows in one wave. An unknown count keeps the grid.
                if launch.get("persistent", False):
                    name = launch["kernel"]
                    if name not in self._resident:
                        self._resident[name] = self.module.resident_grid(
                            name, grid[1], launch["block"], shared,
                            launch.get("cluster", 1), stream)
                    if self._resident[name] > 0:
                        grid = (min(grid[0], self._resident[name]), grid[1])
                params = []
                for p in launch["params"]:
                    params += _param(p, env, m)
                self.module.launch(launch["kernel"], grid, launch["block"], params,
                                   stream=stream, shared_bytes=launch.get("shared_bytes", 0),
                                   programmatic=programmatic)
        return tuple(env[r] for r in function.results)
