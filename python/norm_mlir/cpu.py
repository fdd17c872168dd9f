"""Running norm programs on the CPU: the CPU lowering (norm-to-cpu) compiled
in-process by MLIR's ExecutionEngine, through the C API.

Programs take their outputs as arguments (destination-passing style) so the
caller owns every buffer. Arrays are numpy arrays; bf16 data is carried in
uint16 arrays (the raw bits).
"""

import ctypes
import re

import numpy as np

from . import compiler
from .compiler import CompileError
from .programs import op_program

_DTYPES = {"bf16": np.uint16, "f16": np.float16, "f32": np.float32}

# Element types of memref arguments, as MLIR prints them, and the numpy
# dtypes that carry them (bf16 and f8E4M3FN as their raw bits).
_ELEMENT_DTYPES = {"bf16": np.uint16, "f16": np.float16, "f32": np.float32, "f8E4M3FN": np.uint8,
                   "f64": np.float64, "i8": np.int8, "i16": np.int16,
                   "i32": np.int32, "i64": np.int64}


def cpu_program_text(kind, n, dtype, weight_dtype, **flags):
    """The op's program (see programs.op_program) wrapped so that inputs and
    outputs are memrefs: func @<kind>(inputs..., outputs...)."""
    text = op_program(kind, n, dtype, weight_dtype, **flags)
    lines = text.strip().split("\n")
    args = re.findall(r"%(\w+): (tensor<[^>]*>)", lines[0])
    name = re.match(r"func\.func @(\w+)\(", lines[0]).group(1)
    ret = lines[-2].strip()
    names_part, types_part = ret[len("return "):].split(" : ")
    results = [r.strip().lstrip("%") for r in names_part.split(",")]
    result_types = [t.strip() for t in types_part.split(", ")]
    memref = lambda t: "memref" + t[len("tensor"):]  # noqa: E731
    params = [f"%{a}_m: {memref(t)}" for a, t in args]
    params += [f"%{r}_out: {memref(t)}" for r, t in zip(results, result_types)]
    body = [f"  %{a} = bufferization.to_tensor %{a}_m restrict : {memref(t)} to {t}"
            for a, t in args]
    body += [line for line in lines[1:-2]]
    body += [f"  bufferization.materialize_in_destination %{r} in restrict writable "
             f"%{r}_out : ({t}, {memref(t)}) -> ()" for r, t in zip(results, result_types)]
    return (f"func.func @{name}({', '.join(params)}) {{\n" + "\n".join(body)
            + "\n  return\n}\n")


def _descriptor_type(rank):
    return type(f"Memref{rank}D", (ctypes.Structure,), {"_fields_": [
        ("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
        ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * rank),
        ("strides", ctypes.c_int64 * rank)]})


class CpuProgram:
    """A norm program compiled for this CPU."""

    def __init__(self, source, name="norm_mlir cpu program"):
        lib = compiler._library()
        if lib is None:
            raise CompileError("running on the CPU needs the compiler (libNormCAPI.so)")
        lib.mlirNormCpuProgramCreate.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                                 ctypes.POINTER(ctypes.c_void_p),
                                                 ctypes.POINTER(ctypes.c_void_p)]
        lib.mlirNormCpuProgramCreate.restype = ctypes.c_bool
        lib.mlirNormCpuProgramRun.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                              ctypes.POINTER(ctypes.c_void_p), ctypes.c_ssize_t,
                                              ctypes.POINTER(ctypes.c_void_p)]
        lib.mlirNormCpuProgramRun.restype = ctypes.c_bool
        lib.mlirNormCpuProgramArgumentTypes.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
            ctypes.POINTER(ctypes.c_void_p)]
        lib.mlirNormCpuProgramArgumentTypes.restype = ctypes.c_bool
        lib.mlirNormCpuProgramDestroy.argtypes = [ctypes.c_void_p]
        lib.mlirNormStringDestroy.argtypes = [ctypes.c_void_p]
        self._lib = lib
        self._types = {}
        self._handle = ctypes.c_void_p()
        diagnostics = ctypes.c_void_p()
        if not lib.mlirNormCpuProgramCreate(source.encode(), name.encode(),
                                            ctypes.byref(self._handle),
                                            ctypes.byref(diagnostics)):
            message = ctypes.string_at(diagnostics).decode() if diagnostics else ""
            lib.mlirNormStringDestroy(diagnostics)
            self._handle = None
            raise CompileError(message or "CPU compilation failed")

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.mlirNormCpuProgramDestroy(self._handle)

    def _take_string(self, pointer):
        text = ctypes.string_at(pointer).decode() if pointer else ""
        self._lib.mlirNormStringDestroy(pointer)
        return text

    def argument_types(self, function):
        """The MLIR types of `function`'s arguments ("memref<?x16xbf16>");
        RuntimeError when the program has no such callable function."""
        if function in self._types:
            return self._types[function]
        types, error = ctypes.c_void_p(), ctypes.c_void_p()
        if not self._lib.mlirNormCpuProgramArgumentTypes(
                self._handle, function.encode(), ctypes.byref(types), ctypes.byref(error)):
            raise RuntimeError(f"running {function} failed: {self._take_string(error)}")
        self._types[function] = self._take_string(types).split()
        return self._types[function]

    def run(self, function, *arrays):
        """Calls `function` on C-contiguous numpy arrays (inputs, then
        outputs, which it writes). Their count, ranks and element types are
        checked here; their sizes and strides by the compiler's C API."""
        types = self.argument_types(function)
        if len(arrays) != len(types):
            raise ValueError(f"{function} takes {len(types)} arrays ({', '.join(types)}), "
                             f"got {len(arrays)}")
        descriptors = []
        for i, (a, memref) in enumerate(zip(arrays, types)):
            if not isinstance(a, np.ndarray) or not a.flags["C_CONTIGUOUS"]:
                raise ValueError("CPU programs take C-contiguous numpy arrays")
            element = re.fullmatch(r"memref<((?:[?\d]+x)*)(\w+)(?:,.*)?>", memref)
            expected = _ELEMENT_DTYPES.get(element.group(2)) if element else None
            if expected is None:
                raise TypeError(f"{function}: argument #{i} is {memref}, which numpy "
                                "arrays cannot be passed as")
            if a.ndim != element.group(1).count("x"):
                raise ValueError(f"{function}: argument #{i} is {memref}; got a "
                                 f"{a.ndim}-D array")
            if a.dtype != expected:
                raise TypeError(f"{function}: argument #{i} is {memref}, carried by "
                                f"{np.dtype(expected)} arrays; got {a.dtype}")
            d = _descriptor_type(a.ndim)()
            d.allocated = d.aligned = a.ctypes.data
            d.offset = 0
            for k, (size, stride) in enumerate(zip(a.shape, a.strides)):
                d.sizes[k] = size
                d.strides[k] = stride // a.itemsize
            descriptors.append(d)
        pointers = (ctypes.c_void_p * len(descriptors))(
            *[ctypes.cast(ctypes.byref(d), ctypes.c_void_p) for d in descriptors])
        error = ctypes.c_void_p()
        if not self._lib.mlirNormCpuProgramRun(self._handle, function.encode(), pointers,
                                               len(descriptors), ctypes.byref(error)):
            raise RuntimeError(f"running {function} failed: {self._take_string(error)}")


_programs = {}


def op(kind, n, dtype, weight_dtype, **flags):
    """The CPU program of one op (compiled once per process)."""
    source = cpu_program_text(kind, n, dtype, weight_dtype, **flags)
    if source not in _programs:
        _programs[source] = CpuProgram(source)
    return _programs[source]


def storage_dtype(name):
    """The numpy dtype that carries a norm element type ('bf16' -> uint16)."""
    return _DTYPES[name]
