"""Where CUDA's command-line tools are on this machine, for the scripts that
assemble or disassemble the bundles' PTX (build-bundles.py, kernel-stats.py)."""

import os
import shutil


def ptxas_path():
    """$PTXAS, else ptxas on PATH, else CUDA's default install; None if none."""
    for candidate in (os.environ.get("PTXAS"), shutil.which("ptxas"),
                      "/usr/local/cuda/bin/ptxas"):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def nvdisasm_path():
    """$NVDISASM, else nvdisasm on PATH; None if neither."""
    for candidate in (os.environ.get("NVDISASM"), shutil.which("nvdisasm")):
        if candidate and os.path.exists(candidate):
            return candidate
    return None
