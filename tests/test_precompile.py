"""`uno-env precompile` fills numba's cache with everything a shell's first step needs.

`make`'s set-up runs it after installing, so that a fresh checkout's first use loads kernels instead of compiling
them (20-45 s). The check counts numba's cache misses in a new process: a shell whose kernels the precompile step
does not reach would compile on first use, and show up here as a miss.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from uno_env.precompile import GAMES

FIRST_STEPS = r"""
import json, sys
import numpy as np
import gymnasium
import uno_env
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
    s = UnoSingleAgentVectorEnv(game, num_envs=3, seed=7)
    _, masks = s.reset()
    s.step([int(np.flatnonzero(m)[-1]) for m in masks])

from numba.core.registry import CPUDispatcher
misses = {}
for name, module in list(sys.modules.items()):
    if not name.startswith("uno_env"):
        continue
    for attr, value in vars(module).items():
        if isinstance(value, CPUDispatcher) and sum(value.stats.cache_misses.values()):
            misses[f"{name}.{attr}"] = sum(value.stats.cache_misses.values())
print(json.dumps(misses))
"""


@pytest.mark.slow  # a cold compile of every kernel: 50 s on an idle 2-core machine, minutes under load
def test_after_precompile_no_shell_compiles_on_first_use(tmp_path):
    # a cache directory of its own: the suite's other tests must not be what warmed it
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "uno_env.cli", "precompile", "--quiet"], env=env, capture_output=True,
                   timeout=900, check=True)
    assert any(tmp_path.rglob("*.nbi")), "precompile wrote nothing into the cache directory"
    out = subprocess.run([sys.executable, "-c", FIRST_STEPS % {"games": GAMES}], env=env, capture_output=True,
                         text=True, timeout=900, check=True).stdout
    misses = json.loads(out.strip().splitlines()[-1])
    assert misses == {}, f"kernels compiled on first use despite `uno-env precompile`: {misses}"
