"""The repository's scripts (bench/, scripts/) as modules, for the tests that
check their pure parts without a GPU. Their file names need not be module
names (scripts/kernel-stats.py), and bench.py imports its sibling modules, so
each script's directory goes on sys.path before it is loaded."""

import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_script(name, relative_path):
    """Executes ROOT/relative_path as a module called `name` and returns it."""
    path = os.path.join(ROOT, relative_path)
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
