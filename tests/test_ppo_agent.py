"""The shipped policies (agent ``distilled+heuristic``, ``ppo`` until this release): pickle-free files of a few
hundred KB, played with numpy alone (no torch), picked by game and player count, and stronger than ``greedy`` in a
short seeded arena.

The table's machinery is tested with a policy file made here; every file in ``agents/policies/`` is checked by
the parametrized tests below (size, metadata, a final arena that beat greedy, 1,000 seeded games against greedy
that agree with it) and played in a process that cannot import torch."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from uno_env.agents.registry import UnknownAgentError, make_agent
from uno_env.agents.shipped import shipped_policies
from uno_env.training.evaluate import run_arena, wilson_interval

POLICIES = Path(__file__).resolve().parents[1] / "agents" / "policies"
SHIPPED = shipped_policies()


def _fake_shipped(folder: Path, algorithm: str = "uno_env.distill") -> None:
    """A policy file for 2-player classic in ``folder``, distilled and advised by the heuristic as its metadata says
    (random weights: what is tested here is the machinery)."""
    import numpy as np

    from uno_env.agents.policy import PolicyWeights, save_policy_files

    g = _game("classic", 2)
    rng = np.random.default_rng(0)
    sizes = [g.obs_dim + 2 * g.num_actions, 32, g.num_actions]  # observation, mask and the heuristic's choice
    pw = PolicyWeights([rng.normal(size=(o, i)).astype(np.float32) * 0.1 for i, o in zip(sizes, sizes[1:])],
                       [np.zeros(o, np.float32) for o in sizes[1:]], "relu", "symlog", True, advice="heuristic")
    save_policy_files(pw, str(folder / "classic_2p.npz"), {"game": "classic", "num_players": 2,
                                                           "algorithm": algorithm, "advice": "heuristic",
                                                           "trained_by": "uno-env distill --config test",
                                                           "final_arena": [{}]}, dtype=np.float16)


def test_the_agent_picks_the_file_of_the_table(tmp_path, monkeypatch):
    import uno_env.agents.shipped as shipped

    _fake_shipped(tmp_path)
    monkeypatch.setattr(shipped, "_folder", lambda family="distilled+heuristic": tmp_path)
    agent = make_agent("distilled+heuristic", "classic", seed=0)
    assert agent.name == "distilled+heuristic" and agent.deterministic
    with pytest.raises(UnknownAgentError, match="no shipped policy for 'classic' with 3 players.*classic_2p"):
        make_agent("distilled+heuristic", _game("classic", 3))


def test_a_file_that_is_not_what_the_name_says_is_refused(tmp_path, monkeypatch):
    """The name says how the policy was made: a file whose metadata says otherwise (here: trained by PPO) does not
    play under it."""
    import uno_env.agents.shipped as shipped

    _fake_shipped(tmp_path, algorithm="batched_ppo")
    monkeypatch.setattr(shipped, "_folder", lambda family="distilled+heuristic": tmp_path)
    with pytest.raises(UnknownAgentError, match="not what the name says.*'algorithm': 'batched_ppo'"):
        make_agent("distilled+heuristic", "classic", seed=0)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_file_is_distilled_and_takes_the_heuristics_choice(name):
    meta = json.loads((POLICIES / f"{name}.json").read_text())
    assert meta["algorithm"] == "uno_env.distill" and meta["advice"] == "heuristic"
    assert meta["trained_by"].startswith("uno-env distill") and meta["teacher"].startswith("ismcts")


@pytest.mark.parametrize("name", SHIPPED)
def test_policy_files_are_small_and_say_how_they_were_made(name):
    npz, meta = POLICIES / f"{name}.npz", json.loads((POLICIES / f"{name}.json").read_text())
    assert npz.stat().st_size < 800_000  # float16 [256, 256] (dice_4p) is 710 KB; the wheel carries every one
    assert f"{meta['game']}_{meta['num_players']}p" == name
    assert meta["trained_by"].startswith(("uno-env train --config", "uno-env distill --config"))
    assert meta["final_arena"]


def test_policies_play_without_torch(tmp_path):
    """A process where ``import torch`` fails still loads and plays every shipped policy (a policy made here
    while none ships)."""
    folder = POLICIES
    if not SHIPPED:
        _fake_shipped(tmp_path)
        folder = tmp_path
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from pathlib import Path\n"
        "import uno_env.agents.ppo as ppo\n"
        f"ppo._folder = lambda: Path({str(folder)!r})\n"
        "import numpy as np\n"
        "from uno_env.agents.shipped import shipped_policies\n"
        "from uno_env.agents.registry import make_agent\n"
        "from uno_env.config import make_rules\n"
        "from uno_env.core.game import Game\n"
        "import uno_env\n"
        "for name in shipped_policies():\n"
        "    game, n = name.split('_'); n = int(n[:-1])\n"
        "    agent = make_agent('distilled+heuristic', Game(make_rules(game, n, None)), seed=0)\n"
        "    env = uno_env.env(game, num_players=n); env.reset(seed=1)\n"
        "    obs, *_ = env.last()\n"
        "    a = agent.act(obs['observation'], obs['action_mask'])\n"
        "    assert obs['action_mask'][a] == 1\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
        "print('ok', len(shipped_policies()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"ok {max(len(SHIPPED), 1)}"


@pytest.mark.parametrize("name", SHIPPED)
def test_each_policy_beats_greedy_and_plays_as_strong_as_its_record(name):
    """Each shipped policy beat greedy in its final arena (10,000 games, the interval above an even share), and a
    short seeded arena of the shipped file agrees with that record (within its own 99.9% interval): the file is
    the one that was measured, and it plays as strongly here."""
    game, n = name.split("_")
    n = int(n[:-1])
    record = {r["opponent"]: r for r in json.loads((POLICIES / f"{name}.json").read_text())["final_arena"]}
    greedy = record["greedy"]
    assert greedy["games"] >= 2000 and greedy["ci_low"] > 1.0 / n, greedy
    res = run_arena(["distilled+heuristic"] + ["greedy"] * (n - 1), game=game, num_players=n, games=1000, seed=0)
    lo, hi = wilson_interval(res.agents[0].wins, res.agents[0].games, 3.29)  # 99.9%
    assert lo <= greedy["win_rate"] <= hi, (f"the policy won {res.agents[0].win_rate:.1%} of 1000 games against "
                                            f"greedy in {name}; its record says {greedy['win_rate']:.1%}")


def test_no_policy_for_this_table_is_a_clear_error():
    with pytest.raises(UnknownAgentError) as e:
        make_agent("distilled+heuristic", _game("classic", 3))
    assert "no shipped policy" in str(e.value)


def _game(name: str, n: int):
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    return Game(make_rules(name, n, None))


def test_every_policy_file_is_package_data():
    """The wheel carries what ships: ``uno_env.agents.policies`` is a package of the wheel and each file of
    agents/policies/ matches its package-data patterns in pyproject.toml."""
    import fnmatch

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    setup = tomllib.loads((POLICIES.parent.parent / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "uno_env.agents.policies" in setup["packages"]
    patterns = setup["package-data"]["uno_env.agents.policies"]
    files = [p.name for p in POLICIES.iterdir() if p.suffix in (".npz", ".json")]
    assert len(files) == 2 * len(SHIPPED)
    for f in files:
        assert any(fnmatch.fnmatch(f, pat) for pat in patterns), f
