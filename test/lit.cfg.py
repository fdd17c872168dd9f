# -*- Python -*-
# lit configuration of the norm tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "NORM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.norm_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "downstream"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%norm_src", config.norm_src_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.norm_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["norm-opt", "norm-compile", "norm-capi-test", "mlir-opt", "not", "FileCheck", "count"],
    tool_dirs)
config.substitutions.append(("%norm_libs", os.path.join(config.norm_obj_root, "lib")))

# PTX checks need ptxas from the CUDA toolkit.
ptxas = shutil.which("ptxas") or (
    os.path.join(config.cuda_root, "bin", "ptxas")
    if config.cuda_root and os.path.exists(os.path.join(config.cuda_root, "bin", "ptxas"))
    else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# libdevice, for the serialization of kernels that call it.
if config.cuda_root and os.path.exists(
        os.path.join(config.cuda_root, "nvvm", "libdevice", "libdevice.10.bc")):
    config.available_features.add("libdevice")
    config.substitutions.append(("%cuda_root", config.cuda_root))
