"""Run import-linter (the contracts in pyproject.toml) on uno-env as it installs.

agents/ and training/ are top-level folders of the repository that install as ``uno_env.agents`` and
``uno_env.training`` (setuptools package-dir).  import-linter finds a package's modules by walking its folder,
so it would not see those two; this script lays the installed tree out in a temporary folder (copies of the
sources, nothing built) and runs ``lint-imports`` there.  Exit code: import-linter's (0 = every contract kept).
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# package -> source folder, as in [tool.setuptools.package-dir] (uno_env itself lives at uno_env/)
MAPPED = {"agents": ROOT / "agents", "training": ROOT / "training"}


def main() -> int:
    from importlinter.cli import lint_imports

    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
    with tempfile.TemporaryDirectory(prefix="uno-env-lint-") as tmp:
        pkg = Path(tmp) / "uno_env"
        shutil.copytree(ROOT / "uno_env", pkg, ignore=ignore)
        for name, src in MAPPED.items():
            shutil.copytree(src, pkg / name, ignore=ignore)
        # the copy must win over the installed (editable) uno_env and over the checkout's own uno_env/, which
        # import-linter would find through the working directory
        sys.path.insert(0, tmp)
        os.chdir(tmp)
        return lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)


if __name__ == "__main__":
    raise SystemExit(main())
