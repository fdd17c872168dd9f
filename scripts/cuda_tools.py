"""Where CUDA's command-line tools are on this machine, for the scripts that
assemble or disassemble the bundles' PTX (build-bundles.py, kernel-stats.py,
same-launches.py), and the SASS they make of it."""

import glob
import os
import re
import shutil
import subprocess
import tempfile


def ptxas_path():
    """$PTXAS, else ptxas on PATH, else CUDA's default install; None if none."""
    for candidate in (os.environ.get("PTXAS"), shutil.which("ptxas"),
                      "/usr/local/cuda/bin/ptxas"):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def nvdisasm_path():
    """$NVDISASM, else nvdisasm on PATH, else the one scripts/test.sh puts
    in the build tree (<build>/pytools/nvidia/*/bin, from PyPI); None if
    none."""
    build = os.environ.get("NORM_BUILD_DIR") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build")
    for candidate in (os.environ.get("NVDISASM"), shutil.which("nvdisasm"),
                      *sorted(glob.glob(os.path.join(build, "pytools", "nvidia", "*",
                                                     "bin", "nvdisasm")))):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def sass_listing(ptx, chip, ptxas, nvdisasm):
    """nvdisasm's code listing of the PTX file `ptx` as ptxas assembles it
    for `chip` (e.g. sm_90); RuntimeError with ptxas's message if it fails."""
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        out = subprocess.run([ptxas, f"-arch={chip}", ptx, "-o", cubin],
                             capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(out.stderr.strip())
        return subprocess.run([nvdisasm, "-c", cubin], capture_output=True,
                              text=True, check=True).stdout


def sass_by_kernel(listing):
    """{kernel: [its instructions]} of an nvdisasm listing, each instruction
    without its address, so that two builds of the same code compare equal."""
    kernels, name = {}, None
    for line in listing.splitlines():
        if m := re.match(r"\s*\.section\s+\.text\.(\w+)", line):
            name = m.group(1)
            kernels[name] = []
        elif name and (m := re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)):
            kernels[name].append(m.group(1))
    return kernels
