"""Imports run one way: core <- shells <- agents <- training <- cli, and inside the core the engine over the rule
families over their base (the import-linter contracts in pyproject.toml)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_import_layers_contract_is_kept():
    pytest.importorskip("importlinter")
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "lint_imports.py")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    contracts = (ROOT / "pyproject.toml").read_text(encoding="utf-8").count("[[tool.importlinter.contracts]]")
    assert contracts >= 3 and f"{contracts} kept, 0 broken" in r.stdout


def _lint_a_copy_with(tmp_path, module: str, line: str) -> subprocess.CompletedProcess:
    """import-linter on a copy of the tree where ``line`` is appended to ``module`` (a path in the checkout)."""
    import shutil

    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc")
    for name in ("uno_env", "agents", "training", "configs", "tools"):
        shutil.copytree(ROOT / name, copy / name, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    with open(copy / module, "a", encoding="utf-8") as f:
        f.write(f"\n{line}  # noqa: E402,F401\n")
    return subprocess.run([sys.executable, str(copy / "tools" / "lint_imports.py")], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("module, line, reported", [
    ("agents/random_agent.py", "from uno_env.training import evaluate",
     "uno_env.agents.random_agent -> uno_env.training.evaluate"),
    # inside the core: one rule family importing another
    ("uno_env/core/drawing.py", "from . import house", "uno_env.core.drawing -> uno_env.core.house"),
])
def test_the_contract_catches_an_upward_import(tmp_path, module, line, reported):
    """The checker does fail: a copy of the tree with one import against a layers contract breaks it."""
    pytest.importorskip("importlinter")
    r = _lint_a_copy_with(tmp_path, module, line)
    assert r.returncode != 0
    assert reported in r.stdout


def test_the_contract_catches_an_import_cycle_among_the_agents(tmp_path):
    """An agent that imports the registry back (which imports every agent) breaks the acyclic contract."""
    pytest.importorskip("importlinter")
    r = _lint_a_copy_with(tmp_path, "agents/ppo.py", "from uno_env.agents import registry")
    assert r.returncode != 0
    assert "No cycles are allowed in uno_env.agents" in r.stdout


def test_agents_and_shells_never_import_training():
    code = ("import sys, gymnasium, uno_env; from uno_env.agents.registry import load_agent; "
            "[load_agent(n, 'classic') for n in ('random', 'greedy', 'heuristic')]; "
            "env = gymnasium.make('uno_env/Classic-v0', opponents='heuristic'); env.reset(seed=0); "
            "print(sorted(m for m in sys.modules if m.startswith('uno_env.training')))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_star_import_checks_are_on_but_for_files_that_exist():
    """ruff's F403/F405/F821 (star imports, names they hide, undefined names) are never ignored for the package
    as a whole, and an exception names a file that exists: once the file is gone its entry must go too."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]
    star = {"F403", "F405", "F821"}
    assert not star & set(lint.get("ignore", []))
    for pattern, codes in lint.get("per-file-ignores", {}).items():
        if star & set(codes):
            assert "*" not in pattern and (ROOT / pattern).is_file(), f"stale or broad per-file ignore: {pattern}"
