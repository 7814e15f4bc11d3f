"""Shared by the precompile and wheel tests: a new process's first step in every shell, and what it compiled.

``run_first_steps`` starts a Python process that takes one step of every game in each shell (PettingZoo AEC,
Gymnasium, ``UnoVectorEnv``, ``UnoSingleAgentVectorEnv`` with the heuristic opponents in its kernel), asks the
``greedy`` and ``heuristic`` agents (the compiled players) for one action and for a batch, and reports the
compiled functions that missed numba's cache (each one compiled on that first use) and where ``uno_env`` was
imported from.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from uno_env.precompile import GAMES

SCRIPT = r"""
import json, sys
import numpy as np
import gymnasium
import uno_env
from uno_env.agents.registry import load_agent
from uno_env.vector import UnoSingleAgentVectorEnv, UnoVectorEnv

for game in %(games)r:
    env = uno_env.env(game, num_players=3)
    env.reset(seed=7)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    g = gymnasium.make(f"uno_env/{game.capitalize()}-v0")
    obs, _ = g.reset(seed=7)
    g.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    v = UnoVectorEnv(game, num_envs=3, seed=7)
    _, masks, _ = v.reset()
    v.step([int(np.flatnonzero(m)[-1]) for m in masks])
    s = UnoSingleAgentVectorEnv(game, num_envs=3, seed=7, opponents="heuristic")
    obs, masks = s.reset()
    s.step([int(np.flatnonzero(m)[-1]) for m in masks])
    for name in ("greedy", "heuristic"):
        agent = load_agent(name, s.game, seed=0)
        agent.act(obs[0], masks[0])
        agent.act_batch(obs, masks)

from numba.core.registry import CPUDispatcher
misses = {}
for name, module in list(sys.modules.items()):
    if not name.startswith("uno_env"):
        continue
    for attr, value in vars(module).items():
        if isinstance(value, CPUDispatcher) and sum(value.stats.cache_misses.values()):
            misses[f"{name}.{attr}"] = sum(value.stats.cache_misses.values())
print(json.dumps({"misses": misses, "uno_env": uno_env.__file__}))
"""


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would redirect the package or numba's cache, plus ``extra``."""
    drop = ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT", "PYTHONPATH", "UNO_ENV_PRECOMPILE", "VIRTUAL_ENV")
    return {**{k: v for k, v in os.environ.items() if k not in drop}, **extra}


def run_first_steps(command: list[str], cwd: Path, env: dict[str, str]) -> dict:
    """Run the script with ``command + ["-c", script]`` (an interpreter, or a wrapper that ends with one)."""
    done = subprocess.run([*command, "-c", SCRIPT % {"games": GAMES}], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
