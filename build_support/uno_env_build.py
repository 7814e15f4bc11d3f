"""Build backend of uno-env: setuptools, plus numba's cache of the rules core compiled into the wheel.

numba compiles the rules core on a process's first use (25-45 s on a 2-core machine) and keeps the result in
``__pycache__`` beside the sources, keyed by their contents, the numba version and the CPU. A wheel built here
runs ``uno-env precompile`` on its own build tree, so that tree's ``__pycache__`` ships inside the wheel and a
fresh ``pip install`` starts warm (under a second from ``import uno_env`` to the first step) instead of compiling.

The cache is only valid for the numba version and the CPU model of the build: ``pip install`` from the source
tree or an sdist builds on the machine that will run it. A wheel taken to another CPU model (or installed beside
another numba) still works; its first use compiles, as it would without the cache. ``UNO_ENV_PRECOMPILE=0``
builds without the cache (a few seconds instead of minutes). Editable installs skip it: their kernels compile
into the checkout, which the Makefile's set-up warms with ``uno-env precompile``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - the PEP 517 hooks this backend does not change
from setuptools.command.build_py import build_py

SWITCH = "UNO_ENV_PRECOMPILE"


def _precompile_wanted() -> bool:
    value = os.environ.get(SWITCH, "1")
    if value not in ("0", "1"):
        raise ValueError(f"{SWITCH}={value!r}: allowed values are 0 (no compiled kernels in the wheel) and 1")
    return value == "1"


def _runtime_dependencies() -> list[str]:
    # the precompile step imports uno_env, so the build environment needs what uno_env needs at run time; read
    # from pyproject.toml so that there is one list
    from setuptools.config.pyprojecttoml import load_file

    return list(load_file("pyproject.toml")["project"]["dependencies"])


def get_requires_for_build_wheel(config_settings=None):
    extra = _runtime_dependencies() if _precompile_wanted() else []
    return [*_setuptools.get_requires_for_build_wheel(config_settings), *extra]


class BuildPyWithKernels(build_py):
    """``build_py`` that then compiles the copied package's kernels into its own ``__pycache__``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False) or not _precompile_wanted():
            return
        build_lib = Path(self.build_lib).resolve()
        # the Gymnasium env finds its opponents through the package's entry points: the uninstalled copy needs its
        # metadata beside it, alone in a directory of its own (the source tree would also expose the checkout)
        self.run_command("egg_info")
        egg_info = Path(self.get_finalized_command("egg_info").egg_info).resolve()
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
        print(f"uno-env: compiling the rules core into the wheel ({SWITCH}=0 skips this; 2-4 minutes)", flush=True)
        with tempfile.TemporaryDirectory() as metadata:
            shutil.copytree(egg_info, Path(metadata) / egg_info.name)
            # import the copy in build_lib (so numba writes the cache beside it), not the checkout; pip's isolated
            # build environment reaches its packages through PYTHONPATH too, so it is extended, not replaced
            path = [str(build_lib), metadata, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
            env.update(PYTHONPATH=os.pathsep.join(path), PYTHONDONTWRITEBYTECODE="1", PYTHONSAFEPATH="1")
            subprocess.run([sys.executable, "-m", "uno_env.cli", "precompile", "--quiet"], cwd=build_lib, env=env,
                           check=True)
        written = sorted(build_lib.rglob("*.nbi"))
        if not written:
            raise RuntimeError("uno-env precompile wrote no numba cache into the build tree")
        print(f"uno-env: {len(written)} numba cache indexes in the wheel", flush=True)
