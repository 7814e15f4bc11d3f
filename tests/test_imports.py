"""Imports run one way: core <- shells <- agents <- training <- cli (the import-linter contract in pyproject.toml)."""
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
    assert "2 kept, 0 broken" in r.stdout


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


def test_the_contract_catches_an_upward_import(tmp_path):
    """The checker does fail: a copy of the tree where an agent imports training breaks the contract."""
    pytest.importorskip("importlinter")
    r = _lint_a_copy_with(tmp_path, "agents/random_agent.py", "from uno_env.training import evaluate")
    assert r.returncode != 0
    assert "uno_env.agents.random_agent -> uno_env.training.evaluate" in r.stdout


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
