"""Compiling norm programs to bundles, with an on-disk cache.

Compilation goes through the C API (libNormCAPI.so, loaded with ctypes). The
cache is keyed by the program text, the pipeline options, the compiler version,
the target chip and the tuning table, so a directory of prebuilt bundles
(NORM_MLIR_CACHE) lets a machine without MLIR run every program that was
compiled for it elsewhere. Where the compiler is at hand, an entry is only used
if that very compiler built it (compiler_identity), so a rebuilt compiler never
serves kernels of an older one.
"""

import ctypes
import hashlib
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
_identities = {}


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _library_path():
    """Where libNormCAPI.so is: $NORM_CAPI_LIB, else the one in the package
    (an installed wheel brings it, with the LLVM/MLIR parts it uses linked
    in), else the build tree of this checkout; None when none exists."""
    candidates = [os.environ.get("NORM_CAPI_LIB"),
                  os.path.join(_PACKAGE, "lib", "libNormCAPI.so"),
                  os.path.join(os.environ.get("NORM_BUILD_DIR", os.path.join(_ROOT, "build")),
                               "lib", "libNormCAPI.so")]
    return next((p for p in candidates if p and os.path.exists(p)), None)


def compiler_identity():
    """A digest of the compiler library (None without one). The version
    string only changes with releases; the digest changes with every
    rebuild that changes the generated code, so cache entries built by an
    older compiler are recompiled where a compiler is at hand."""
    path = _library_path()
    if path is None:
        return None
    stat = os.stat(path)
    key = (path, stat.st_size, stat.st_mtime_ns)
    if key not in _identities:
        with open(path, "rb") as f:
            _identities[key] = hashlib.sha256(f.read()).hexdigest()[:32]
    return _identities[key]


def _library():
    """libNormCAPI.so, loaded (see _library_path)."""
    global _capi
    if _capi is not None:
        return _capi
    path = _library_path()
    if path is None:
        return None
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


def cache_dir():
    return os.environ.get("NORM_MLIR_CACHE",
                          os.path.join(os.path.expanduser("~"), ".cache", "norm_mlir"))


def tuning_table():
    """The measured tuning table compilations use: $NORM_TUNING_TABLE ('none'
    for the analytic rules only), else the package's copy (a wheel brings
    one), else the repository's tuning/h200.json."""
    env = os.environ.get("NORM_TUNING_TABLE")
    if env:
        return None if env == "none" else env
    for path in (os.path.join(_PACKAGE, "tuning", "h200.json"),
                 os.path.join(_ROOT, "tuning", "h200.json")):
        if os.path.exists(path):
            return path
    return None


def cache_key(program, options, chip, table_text=""):
    h = hashlib.sha256()
    for part in (program, options, COMPILER_VERSION, chip, table_text):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def compile_program(program, chip="sm_90", options=""):
    """Returns a loaded Bundle for `program`, from the cache when possible."""
    return load_bundle(bundle_directory(program, chip, options))


def bundle_directory(program, chip="sm_90", options=""):
    """The cache directory holding `program`'s bundle, compiled there first
    where the cache has no valid one."""
    opts = f"chip={chip}" + (f" {options}" if options else "")
    # The key covers the table's contents, not its path, so caches move
    # between machines.
    table = tuning_table()
    try:
        table_text = open(table).read() if table else ""
    except (OSError, UnicodeDecodeError) as e:
        raise CompileError(f"the tuning table {table} cannot be read: {e}") from None
    directory = os.path.join(cache_dir(), cache_key(program, opts, chip, table_text))
    if os.path.exists(os.path.join(directory, "manifest.json")):
        # Served as is where no compiler exists (prebuilt bundles); with a
        # compiler, only if that compiler built it.
        identity = compiler_identity()
        built_by = os.path.join(directory, "compiler-id")
        if identity is None or (os.path.exists(built_by)
                                and open(built_by).read().strip() == identity):
            try:
                load_bundle(directory)
                return directory
            except BundleError:
                # A damaged entry (an interrupted copy, an edit): where a
                # compiler is at hand it is rebuilt below, else the error
                # names the entry.
                if identity is None:
                    raise
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
    with open(os.path.join(tmp, "compiler-id"), "w") as f:
        f.write((compiler_identity() or "") + "\n")
    for name in ("kernels.ptx", "program.mlir", "compiler-id", "manifest.json"):
        os.replace(os.path.join(tmp, name), os.path.join(directory, name))
    os.rmdir(tmp)
    return directory
