"""Compiling norm programs to bundles, with an on-disk cache.

Compilation goes through the C API (libNormCAPI.so, loaded with ctypes). The
cache is keyed by the program text, the pipeline options, the compiler version
and the target chip, so a directory of prebuilt bundles (NORM_MLIR_CACHE) lets
a machine without MLIR run every program that was compiled for it elsewhere.
"""

import ctypes
import hashlib
import json
import os

from .bundle import BundleError, load_bundle

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The compiler version a cache entry was built with; must match
# mlirNormCompilerVersion() (checked when the library is loaded).
COMPILER_VERSION = "norm 0.1.0 (MLIR 22.1)"


class CompileError(RuntimeError):
    """The compiler rejected a program; the message holds its diagnostics."""


class _Bundle(ctypes.Structure):
    _fields_ = [("ptx", ctypes.c_void_p), ("manifest", ctypes.c_void_p),
                ("diagnostics", ctypes.c_void_p)]


_capi = None


def _library():
    """libNormCAPI.so: $NORM_CAPI_LIB, else the build tree of this checkout."""
    global _capi
    if _capi is not None:
        return _capi
    candidates = [os.environ.get("NORM_CAPI_LIB"),
                  os.path.join(os.environ.get("NORM_BUILD_DIR", os.path.join(_ROOT, "build")),
                               "lib", "libNormCAPI.so")]
    for path in candidates:
        if path and os.path.exists(path):
            lib = ctypes.CDLL(path)
            lib.mlirNormCompile.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                            ctypes.c_char_p, ctypes.POINTER(_Bundle)]
            lib.mlirNormCompile.restype = ctypes.c_bool
            lib.mlirNormBundleDestroy.argtypes = [ctypes.POINTER(_Bundle)]
            lib.mlirNormCompilerVersion.restype = ctypes.c_char_p
            version = lib.mlirNormCompilerVersion().decode()
            if version != COMPILER_VERSION:
                raise CompileError(f"{path} is {version!r}, this package expects "
                                   f"{COMPILER_VERSION!r}")
            _capi = lib
            return lib
    return None


def cache_dir():
    return os.environ.get("NORM_MLIR_CACHE",
                          os.path.join(os.path.expanduser("~"), ".cache", "norm_mlir"))


def tuning_table():
    """The measured tuning table compilations use: $NORM_TUNING_TABLE ('none'
    for the analytic rules only), else the repository's tuning/h200.json."""
    env = os.environ.get("NORM_TUNING_TABLE")
    if env:
        return None if env == "none" else env
    path = os.path.join(_ROOT, "tuning", "h200.json")
    return path if os.path.exists(path) else None


def cache_key(program, options, chip, table_text=""):
    h = hashlib.sha256()
    for part in (program, options, COMPILER_VERSION, chip, table_text):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def compile_program(program, chip="sm_90", options=""):
    """Returns a loaded Bundle for `program`, from the cache when possible."""
    opts = f"chip={chip}" + (f" {options}" if options else "")
    # The key covers the table's contents, not its path, so caches move
    # between machines.
    table = tuning_table()
    table_text = open(table).read() if table else ""
    directory = os.path.join(cache_dir(), cache_key(program, opts, chip, table_text))
    if os.path.exists(os.path.join(directory, "manifest.json")):
        return load_bundle(directory)
    lib = _library()
    if lib is None:
        raise CompileError(
            "no compiled bundle for this program in the cache "
            f"({directory}) and no compiler: build libNormCAPI.so (scripts/setup.sh) "
            "or point NORM_MLIR_CACHE at prebuilt bundles")
    out = _Bundle()
    full_opts = opts + f" tuning-table={table if table else 'none'}"
    ok = lib.mlirNormCompile(program.encode(), b"norm_mlir program", full_opts.encode(),
                             ctypes.byref(out))
    try:
        ptx = ctypes.string_at(out.ptx).decode() if out.ptx else ""
        manifest = ctypes.string_at(out.manifest).decode() if out.manifest else ""
        diagnostics = ctypes.string_at(out.diagnostics).decode() if out.diagnostics else ""
    finally:
        lib.mlirNormBundleDestroy(ctypes.byref(out))
    if not ok:
        raise CompileError(diagnostics or "compilation failed")
    os.makedirs(directory, exist_ok=True)
    tmp = directory + ".tmp%d" % os.getpid()
    os.makedirs(tmp, exist_ok=True)
    with open(os.path.join(tmp, "kernels.ptx"), "w") as f:
        f.write(ptx)
    with open(os.path.join(tmp, "manifest.json"), "w") as f:
        f.write(manifest)
    with open(os.path.join(tmp, "program.mlir"), "w") as f:
        f.write(program)
    for name in ("kernels.ptx", "program.mlir", "manifest.json"):
        os.replace(os.path.join(tmp, name), os.path.join(directory, name))
    os.rmdir(tmp)
    return load_bundle(directory)
