"""Builds the norm_mlir package: the Python modules, the native PyTorch
extension (norm_mlir._ops: the ops' schemas, CUDA and autograd kernels on
top of runtime/, no MLIR) and, inside the package, the compiler library the
ops compile with on first use (libNormCAPI.so linked with the LLVM/MLIR
parts it uses, CMake target NormCAPIStandalone) and the tuning table.

    pip install --no-build-isolation ./python     # or: pip wheel ...

needs PyTorch (the extension is built against the installed one, and the
package then requires that torch release), a C++17 compiler, CUDA's
headers (cuda.h; $CUDA_HOME or /usr/local/cuda) and the repository's build
(scripts/setup.sh; $NORM_BUILD_DIR, default build/), from which the
compiler library is taken or built.
"""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.environ.get("NORM_BUILD_DIR", os.path.join(ROOT, "build"))
COMPILER = os.path.join(BUILD, "lib", "standalone", "libNormCAPI.so")


def _cuda_include():
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and os.path.exists(os.path.join(home, "include", "cuda.h")):
            return os.path.join(home, "include")
    raise SystemExit("norm_mlir: CUDA's headers (cuda.h) were not found: set CUDA_HOME")


def _compiler_library():
    """The standalone compiler library, built in the repository's build
    tree if it is not there yet."""
    if not os.path.exists(COMPILER) and os.path.exists(os.path.join(BUILD, "build.ninja")):
        subprocess.check_call(["cmake", "--build", BUILD, "--target", "NormCAPIStandalone"])
    if not os.path.exists(COMPILER):
        raise SystemExit(f"norm_mlir: {COMPILER} is not built: run scripts/setup.sh "
                         "(or set NORM_BUILD_DIR to a build of this repository)")
    return COMPILER


class BuildPy(build_py):
    """Puts the compiler library and the tuning table into the package."""

    def run(self):
        super().run()
        package = os.path.join(self.build_lib, "norm_mlir")
        os.makedirs(os.path.join(package, "lib"), exist_ok=True)
        shutil.copy2(_compiler_library(), os.path.join(package, "lib", "libNormCAPI.so"))
        os.makedirs(os.path.join(package, "tuning"), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, "tuning", "h200.json"),
                     os.path.join(package, "tuning", "h200.json"))


def _extension():
    import torch
    from torch.utils.cpp_extension import BuildExtension, CppExtension
    runtime = os.path.join(ROOT, "runtime")
    # Paths relative to setup.py, as setuptools requires. The runtime's
    # objects land beside the temporary build directory (../ of it).
    sources = [os.path.join("csrc", f) for f in ("Ops.cpp", "Autograd.cpp", "Programs.cpp", "Tensors.cpp",
                                                     "L2GatedOps.cpp", "L2GatedAutograd.cpp", "QuantOps.cpp")]
    sources += [os.path.join("..", "runtime", "lib", f)
                for f in ("Json.cpp", "Bundle.cpp", "Launcher.cpp")]
    ext = CppExtension(
        "norm_mlir._ops", sources,
        include_dirs=[os.path.join(runtime, "include"), _cuda_include()],
        libraries=["c10_cuda"],
        extra_compile_args=["-O2", "-g0"],
        py_limited_api=True)
    release = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    return ext, BuildExtension, f"torch=={release}.*"


ext, build_ext, torch_requirement = _extension()
setup(
    ext_modules=[ext],
    cmdclass={"build_ext": build_ext, "build_py": BuildPy},
    install_requires=["numpy", torch_requirement],
    options={"bdist_wheel": {"py_limited_api": "cp39"}},
)
