"""Run import-linter (the contracts in pyproject.toml) on uno-env as it installs.

agents/ and training/ are top-level folders of the repository that install as ``uno_env.agents`` and
``uno_env.training`` (setuptools package-dir).  import-linter finds a package's modules by walking its folder,
so it would not see those two; this script lays the installed tree out in a temporary folder (copies of the
sources, nothing built) and runs ``lint-imports`` there.  Exit code: import-linter's (0 = every contract kept).
:func:`installed_tree` is the same layout for other import checks (``tests/test_import_cycles.py``).
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: folders of the repository that install inside uno_env ([tool.setuptools.package-dir]: uno_env.<name>)
MAPPED = ("agents", "training")


@contextmanager
def installed_tree(root: Path = ROOT) -> Iterator[Path]:
    """A temporary folder holding ``uno_env`` as it installs from ``root`` (agents/ and training/ inside it), first
    on ``sys.path`` and the working directory while the context lasts."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="uno-env-lint-") as tmp:
        pkg = Path(tmp) / "uno_env"
        shutil.copytree(root / "uno_env", pkg, ignore=ignore)
        for name in MAPPED:
            shutil.copytree(root / name, pkg / name, ignore=ignore)
        # the copy must win over the installed (editable) uno_env and over the checkout's own uno_env/, which
        # import-linter would find through the working directory
        sys.path.insert(0, tmp)
        os.chdir(tmp)
        try:
            yield Path(tmp)
        finally:
            os.chdir(cwd)
            sys.path.remove(tmp)


def main() -> int:
    from importlinter.cli import lint_imports

    with installed_tree():
        return lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)


if __name__ == "__main__":
    raise SystemExit(main())
