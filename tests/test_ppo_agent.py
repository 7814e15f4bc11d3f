"""The shipped policies (agent ``ppo``): pickle-free files of a few hundred KB, played with numpy alone (no torch),
picked by game and player count, and stronger than ``greedy`` in a short seeded arena."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from uno_env.agents.ppo import shipped_policies
from uno_env.agents.registry import UnknownAgentError, make_agent
from uno_env.training.evaluate import run_arena

POLICIES = Path(__file__).resolve().parents[1] / "agents" / "policies"
SHIPPED = shipped_policies()


def test_the_shipped_policies():
    # pocket and dice: not yet trained on their final rules (README, "Training")
    assert {"classic_2p", "classic_4p"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_policy_files_are_small_and_say_how_they_were_made(name):
    npz, meta = POLICIES / f"{name}.npz", json.loads((POLICIES / f"{name}.json").read_text())
    assert npz.stat().st_size < 600_000
    assert f"{meta['game']}_{meta['num_players']}p" == name
    assert meta["trained_by"].startswith("uno-env train --config") and meta["final_arena"]


def test_policies_play_without_torch():
    """A process where ``import torch`` fails still loads and plays every shipped policy."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import numpy as np\n"
        "from uno_env.agents.ppo import shipped_policies\n"
        "from uno_env.agents.registry import make_agent\n"
        "from uno_env.config import make_rules\n"
        "from uno_env.core.game import Game\n"
        "import uno_env\n"
        "for name in shipped_policies():\n"
        "    game, n = name.split('_'); n = int(n[:-1])\n"
        "    agent = make_agent('ppo', Game(make_rules(game, n, None)), seed=0)\n"
        "    env = uno_env.env(game, num_players=n); env.reset(seed=1)\n"
        "    obs, *_ = env.last()\n"
        "    a = agent.act(obs['observation'], obs['action_mask'])\n"
        "    assert obs['action_mask'][a] == 1\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
        "print('ok', len(shipped_policies()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")


@pytest.mark.parametrize("name", SHIPPED)
def test_ppo_beats_greedy_in_a_short_seeded_arena(name):
    game, n = name.split("_")
    n = int(n[:-1])
    res = run_arena(["ppo"] + ["greedy"] * (n - 1), game=game, num_players=n, games=300, seed=0)
    lo, _ = res.agents[0].ci
    assert lo > 1.0 / n, f"ppo won {res.agents[0].win_rate:.1%} of 300 games against greedy in {name}"


def test_no_policy_for_this_table_is_a_clear_error():
    with pytest.raises(UnknownAgentError) as e:
        make_agent("ppo", _game("classic", 3))
    assert "no shipped policy" in str(e.value) and "classic_2p" in str(e.value)


def _game(name: str, n: int):
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    return Game(make_rules(name, n, None))
