"""Importing a script that is not a package module (``benchmarks/*.py``, ``docs/hooks.py``) by its path."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(relative_path: str) -> ModuleType:
    """The script at ``ROOT / relative_path`` as a module named after its file. It is registered in
    ``sys.modules`` (a dataclass looks its module up there), and its folder is on ``sys.path`` while it loads, for
    its sibling imports (the benchmarks' ``_baselines``), then taken off again."""
    path = ROOT / relative_path
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    folder = str(path.parent)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    finally:
        while folder in sys.path:  # the script may put it there too
            sys.path.remove(folder)
    return module
