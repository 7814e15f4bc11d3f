"""The ``uno-env`` command ends cleanly on Ctrl-C and on a closed output pipe; integer-like actions are accepted."""
from __future__ import annotations

import enum
import os
import subprocess
import sys

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env.aec import ActionOutOfRangeError
from uno_env.gym_env import UnoGymEnv
from uno_env.vector import UnoSingleAgentVectorEnv, UnoVectorEnv

# A real SIGINT, delivered while `play` loads its opponents. The child first takes Python's own handler back: a
# process started by a parent that ignores SIGINT (a pytest-xdist worker can, depending on what ran in it before)
# inherits the ignore, and Python then installs no KeyboardInterrupt handler, so the signal did nothing and `play`
# ended at end of input with status 0. The signal is raised from inside the loading step, not sent from outside
# after a fixed sleep, which could land after start-up, where Ctrl-C quits the game (status 0) by design.
_INTERRUPT_WHILE_LOADING = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
import uno_env.agents.registry as registry
import uno_env.cli
load_agent = registry.load_agent
def interrupted_load(*args, **kwargs):
    signal.raise_signal(signal.SIGINT)
    return load_agent(*args, **kwargs)
registry.load_agent = interrupted_load
sys.exit(uno_env.cli.main(['play', '--game', 'classic', '--opponents', 'heuristic']))
"""


def test_ctrl_c_while_play_starts_is_one_line_and_status_130():
    proc = subprocess.Popen([sys.executable, "-c", _INTERRUPT_WHILE_LOADING], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip() == "uno-env: interrupted"


def test_closed_output_pipe_is_a_quiet_exit():
    r, w = os.pipe()
    os.close(r)  # the reader is gone before anything is written, like `uno-env rules | head -0`
    proc = subprocess.run([sys.executable, "-c", "import sys, uno_env.cli; sys.exit(uno_env.cli.main(['rules']))"],
                          stdout=w, stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(w)
    assert proc.returncode == 1
    assert proc.stderr == ""


def _legal_enum(mask) -> enum.IntEnum:
    return enum.IntEnum("Legal", {"A": int(np.flatnonzero(mask)[0])}).A


@pytest.mark.parametrize("game", ["classic", "dice"])
def test_intenum_and_numpy_integer_actions_are_accepted(game):
    env = uno_env.raw_env(game)
    env.reset(seed=0)
    twin = uno_env.raw_env(game)
    twin.reset(seed=0)
    for kind in (_legal_enum, lambda m: np.int16(np.flatnonzero(m)[0]), lambda m: np.uint8(np.flatnonzero(m)[0])):
        action = kind(env.observe(env.agent_selection)["action_mask"])
        env.step(action)
        twin.step(int(action))
        assert env.state_dict() == twin.state_dict()
    for bad in (True, np.bool_(False), 1.0, "3", None):
        with pytest.raises(ActionOutOfRangeError, match="action must be an integer"):
            env.step(bad)

    g = UnoGymEnv(game)
    obs, _ = g.reset(seed=1)
    obs, *_ = g.step(_legal_enum(obs["action_mask"]))
    with pytest.raises(ActionOutOfRangeError):
        g.step(True)
    wrapped = gymnasium.make(f"uno_env/{game.capitalize()}-v0")
    obs, _ = wrapped.reset(seed=1)
    wrapped.step(_legal_enum(obs["action_mask"]))

    v = UnoVectorEnv(game, num_envs=2, seed=0)
    v.reset()
    v.step([_legal_enum(m) for m in v.masks])
    with pytest.raises(ActionOutOfRangeError):
        v.step([True, False])
    s = UnoSingleAgentVectorEnv(game, num_envs=2, seed=0)
    obs, masks = s.reset()
    s.step(np.array([_legal_enum(m) for m in masks]))


def test_observe_an_unknown_agent_names_the_agents():
    env = uno_env.raw_env("pocket")
    env.reset(seed=0)
    with pytest.raises(KeyError, match="unknown agent 'player_9'; the agents are player_0, player_1"):
        env.observe("player_9")
    with pytest.raises(KeyError, match="unknown agent"):
        env.observe(["x"] * 10**6)
