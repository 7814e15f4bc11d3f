"""The compiled baselines (``uno_env.core.baselines``) choose what the Python agents choose, on the same inputs.

Decisions come from games played at random under many option sets, so every phase (turn, drawn card, colour,
pending penalty, challenge, give, swap, jump-in) is met: thousands per game, each asked of both players.
"""
from __future__ import annotations

import numpy as np
import pytest

from uno_env import vector as V
from uno_env.agents.greedy import GreedyAgent
from uno_env.agents.heuristic import HeuristicAgent
from uno_env.core import baselines as BL

CASES = [
    ("classic", 2, None),
    ("classic", 4, {"wd4_legality": "any_playable", "stacking": "any", "jump_in": True}),
    ("classic", 3, {"seven_zero": True, "stacking": "same", "draw_until_playable": True}),
    ("classic", 2, "rlcard"),
    ("classic", 2, "official"),  # bluffs and challenges
    ("pocket", 2, None),
    ("pocket", 4, {"seven_zero": True, "jump_in": True, "uno_call": "auto"}),
]  # UNO Dice's players are not compiled (a play names a die, not a face): they move through act_batch


def _decisions(game: str, n: int, rules, count: int, seed: int):
    """``count`` (observation, mask) pairs met by random play (every seat's decisions, every phase)."""
    env = V.UnoVectorEnv(game, 64, num_players=n, rules=rules, seed=seed, num_threads=1)
    obs, masks, _ = env.reset()
    pol = V.RandomLegalPolicy(seed)
    got_o, got_m = [], []
    while sum(len(o) for o in got_o) < count:
        got_o.append(obs.copy())
        got_m.append(masks.copy())
        obs, masks, *_ = env.step(pol.act_batch(obs, masks))
    return np.concatenate(got_o)[:count], np.concatenate(got_m)[:count], env.game


@pytest.mark.parametrize("game,n,rules", CASES)
def test_compiled_greedy_matches_python(game, n, rules):
    obs, masks, g = _decisions(game, n, rules, 3000, seed=n)
    shifts = np.random.default_rng(0).integers(0, g.num_actions, size=len(obs))
    agent = GreedyAgent(g, seed=0)
    agent._rotation = lambda b: shifts  # the same tie-break rotation as the compiled player gets
    expected = agent.act_batch(obs, masks)
    got = np.empty(len(obs), dtype=np.int64)
    BL.baseline_actions(BL.KIND_GREEDY, obs, masks, g.cfg, g.spec, g.obs_offsets, BL.heuristic_weight_array(),
                        shifts, got)
    assert (masks[np.arange(len(obs)), got] == 1).all()
    bad = np.flatnonzero(got != expected)
    assert bad.size == 0, f"{bad.size} of {len(obs)} differ, first at {bad[:5]}: {got[bad[:5]]} vs {expected[bad[:5]]}"


@pytest.mark.parametrize("game,n,rules", CASES)
def test_compiled_heuristic_matches_python(game, n, rules):
    obs, masks, g = _decisions(game, n, rules, 3000, seed=10 + n)
    agent = HeuristicAgent(g, seed=0)
    expected = np.array([agent.act(o, m) for o, m in zip(obs, masks)])
    got = np.empty(len(obs), dtype=np.int64)
    BL.baseline_actions(BL.KIND_HEURISTIC, obs, masks, g.cfg, g.spec, g.obs_offsets, BL.heuristic_weight_array(),
                        np.zeros(len(obs), dtype=np.int64), got)
    # the decisions that are choices at all (more than one legal action) are most of them
    assert (masks.sum(axis=1) > 1).mean() > 0.3
    bad = np.flatnonzero(got != expected)
    assert bad.size == 0, f"{bad.size} of {len(obs)} differ, first at {bad[:5]}: {got[bad[:5]]} vs {expected[bad[:5]]}"


def test_heuristic_weights_reach_the_compiled_player():
    obs, masks, g = _decisions("classic", 2, None, 2000, seed=3)
    weights = {"deny": 0.0, "wild_save": -5.0, "challenge_threshold": 0.0}
    agent = HeuristicAgent(g, weights=weights)
    expected = np.array([agent.act(o, m) for o, m in zip(obs, masks)])
    got = np.empty(len(obs), dtype=np.int64)
    BL.baseline_actions(BL.KIND_HEURISTIC, obs, masks, g.cfg, g.spec, g.obs_offsets,
                        BL.heuristic_weight_array(weights), np.zeros(len(obs), dtype=np.int64), got)
    assert (got == expected).all()
    default = np.array([HeuristicAgent(g).act(o, m) for o, m in zip(obs, masks)])
    assert (default != expected).any()  # the weights changed some choices


@pytest.mark.parametrize("game", ["classic", "pocket"])
def test_in_kernel_heuristic_plays_like_the_python_agent(game):
    """The kernel's heuristic seat and the Python agent's act_batch give the same games, move for move."""
    a = V.UnoSingleAgentVectorEnv(game, 32, opponents="heuristic", seed=5, learner_seat="rotate", num_threads=1)
    b = V.UnoSingleAgentVectorEnv(game, 32, opponents=HeuristicAgent(game), seed=5, learner_seat="rotate",
                                  num_threads=1)
    assert a.opponents_in_kernel and not b.opponents_in_kernel
    oa, ma = a.reset()
    ob, mb = b.reset()
    pol = V.RandomLegalPolicy(1)
    ended = 0
    for _ in range(300):
        assert np.array_equal(oa, ob) and np.array_equal(ma, mb)
        act = pol.act_batch(oa, ma)
        oa, ma, ra, ta, _, _ = a.step(act)
        ob, mb, rb, tb, _, _ = b.step(act)
        assert np.array_equal(ra, rb) and np.array_equal(ta, tb)
        ended += int(ta.sum())
    assert ended > 10

