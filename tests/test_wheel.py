"""The built wheel, installed as a user would: configs by name, and no clash with a project's own `agents`.

Builds the wheel (``pip wheel . --no-deps``), installs it into a fresh virtualenv (its dependencies from the
package index and pip's cache; no training extras), and runs from a temporary directory that holds its own
``agents/`` package, as a research project often does.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow  # builds a wheel, a venv, installs numba & co. and compiles the core: 2-3 minutes

USER_SCRIPT = textwrap.dedent('''
    import os, sys
    import gymnasium
    import uno_env
    import agents  # the project's own package, not uno-env's
    assert agents.__file__.startswith(os.getcwd()), agents.__file__
    assert "site-packages" in uno_env.__file__, uno_env.__file__

    env = gymnasium.make("uno_env/Classic-v0", opponents="heuristic")
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        mask = obs["action_mask"]
        obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))
        done = terminated or truncated
        steps += 1
    assert steps > 0

    from uno_env.training.config import load_config, load_rllib_config, packaged_configs
    assert {"classic_ppo", "smoke", "rllib_classic"} <= set(packaged_configs()), packaged_configs()
    assert load_config("classic_ppo").name == "classic_ppo"
    assert load_rllib_config("rllib_classic").name == "rllib_classic"
    from importlib import resources
    assert resources.files("uno_env.configs").joinpath("rules", "classic_rlcard.yaml").is_file()
    from uno_env.agents.ppo import shipped_policies  # package data: the policies folder comes with the wheel
    assert isinstance(shipped_policies(), list)
    print("ok", steps)
''')


def _run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    assert r.returncode == 0, f"{cmd}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def test_wheel_installs_and_plays_next_to_a_users_agents_package(tmp_path):
    dist = tmp_path / "dist"
    # the build backend of this environment (setuptools) builds it: no isolated build environment to set up
    _run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q", "-w",
          str(dist)])
    (wheel,) = dist.glob("uno_env-*.whl")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    py = venv / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)])

    project = tmp_path / "project"
    (project / "agents").mkdir(parents=True)
    (project / "agents" / "__init__.py").write_text("MINE = True\n")
    (project / "agents" / "registry.py").write_text("raise ImportError('the wrong agents.registry')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    r = _run([str(py), "-c", USER_SCRIPT], cwd=project, env=env)
    assert r.stdout.startswith("ok"), r.stdout

    # outside a checkout, `uno-env train --config NAME` finds its config; without the train extra it says what
    # to install (and the same for train-rllib, whose default config is a packaged name)
    cli = venv / "bin" / "uno-env"
    r = subprocess.run([str(cli), "train", "--config", "smoke", "--run-dir", str(tmp_path / "run")], cwd=project,
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "pip install 'uno-env[train]'" in r.stderr, r.stdout + r.stderr
    assert "does not exist" not in r.stderr
    r = subprocess.run([str(cli), "train-rllib"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "pip install 'uno-env[train,rllib]'" in r.stderr, r.stdout + r.stderr
