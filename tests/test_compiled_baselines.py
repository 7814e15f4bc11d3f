"""The compiled baselines (``uno_env.players``) choose what the Python
agents choose, on the same inputs.

Decisions come from games played at random under many option sets, so every phase (turn, drawn card, colour,
pending penalty, challenge, give, swap, jump-in; in UNO Dice rerolls, the drawn die, a bluffed Wild Draw Four) is
met: thousands per game, each asked of both players.
"""
from __future__ import annotations

import numpy as np
import pytest

from uno_env import vector as V
from uno_env.agents.dice_heuristic import DiceHeuristicAgent
from uno_env.agents.greedy import GreedyAgent
from uno_env.agents.heuristic import HeuristicAgent
from uno_env.players import baselines as BL
from uno_env.players.parameters import baseline_weight_array, heuristic_weight_array

CASES = [
    ("classic", 2, None),
    ("classic", 4, {"wd4_legality": "any_playable", "stacking": "any", "jump_in": True}),
    ("classic", 3, {"seven_zero": True, "stacking": "same", "draw_until_playable": True}),
    ("classic", 2, "rlcard"),
    ("classic", 2, "official"),  # bluffs and challenges
    ("pocket", 2, None),
    ("pocket", 4, {"seven_zero": True, "jump_in": True, "uno_call": "auto"}),
    ("dice", 2, None),
    ("dice", 3, {"dice_wd4_bluff": True}),
    ("dice", 4, {"uno_call": "auto", "episode": "match"}),
    ("dice", 2, "custom_set"),  # another number of dice: every table of the parameter array changes size
]


def _rules(rules, tmp_path_factory):
    """``"custom_set"``: a 16-dice set with more wilds and skips than the packaged one (tables of another size)."""
    if rules != "custom_set":
        return rules
    p = tmp_path_factory.mktemp("dice") / "bag.yaml"
    faces = ["[R1, Y2, G3, B4, RS, W]", "[RD, YR, GS, W, W4, B6]", "[R5, Y5, G5, B5, W, W]", "[BS, BR, BD, G1, G2, R3]"]
    p.write_text("dice:\n" + "".join(f"  - {faces[i % 4]}\n" for i in range(16)))
    return {"dice_set": str(p), "dice_wd4_bluff": True}


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
def test_compiled_greedy_matches_python(game, n, rules, tmp_path_factory):
    obs, masks, g = _decisions(game, n, _rules(rules, tmp_path_factory), 3000, seed=n)
    shifts = np.random.default_rng(0).integers(0, g.num_actions, size=len(obs))
    agent = GreedyAgent(g, seed=0)
    if g.num_dice:  # UNO Dice's act_batch is a loop of act, which draws one rotation per decision
        expected = np.empty(len(obs), dtype=np.int64)
        for i in range(len(obs)):
            agent._rotation = lambda b, s=shifts[i]: np.array([s])
            expected[i] = agent.act(obs[i], masks[i])
    else:
        agent._rotation = lambda b: shifts  # the same tie-break rotation as the compiled player gets
        expected = agent.act_batch(obs, masks)
    got = np.empty(len(obs), dtype=np.int64)
    assert BL.baseline_actions(BL.KIND_GREEDY, obs, masks, g.cfg, g.spec, g.obs_offsets,
                               baseline_weight_array(g), shifts, got) == -1
    assert (masks[np.arange(len(obs)), got] == 1).all()
    bad = np.flatnonzero(got != expected)
    assert bad.size == 0, f"{bad.size} of {len(obs)} differ, first at {bad[:5]}: {got[bad[:5]]} vs {expected[bad[:5]]}"


@pytest.mark.parametrize("game,n,rules", CASES)
def test_compiled_heuristic_matches_python(game, n, rules, tmp_path_factory):
    obs, masks, g = _decisions(game, n, _rules(rules, tmp_path_factory), 3000, seed=10 + n)
    agent = HeuristicAgent(g, seed=0)
    expected = np.array([agent.act(o, m) for o, m in zip(obs, masks)])
    got = np.empty(len(obs), dtype=np.int64)
    assert BL.baseline_actions(BL.KIND_HEURISTIC, obs, masks, g.cfg, g.spec, g.obs_offsets,
                               baseline_weight_array(g), np.zeros(len(obs), dtype=np.int64), got) == -1
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
                        heuristic_weight_array(weights), np.zeros(len(obs), dtype=np.int64), got)
    assert (got == expected).all()
    default = np.array([HeuristicAgent(g).act(o, m) for o, m in zip(obs, masks)])
    assert (default != expected).any()  # the weights changed some choices


@pytest.mark.parametrize("game", ["classic", "pocket", "dice"])
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



def test_dice_heuristic_weights_reach_the_compiled_player():
    obs, masks, g = _decisions("dice", 2, None, 2000, seed=4)
    weights = {"deny": 0.0, "keep_wild": -1.0, "flex": 3.0, "lead": 0.5}
    agent = DiceHeuristicAgent(g, weights=weights)
    expected = np.array([agent.act(o, m) for o, m in zip(obs, masks)])
    got = np.empty(len(obs), dtype=np.int64)
    BL.baseline_actions(BL.KIND_HEURISTIC, obs, masks, g.cfg, g.spec, g.obs_offsets,
                        baseline_weight_array(g, dice_weights=weights), np.zeros(len(obs), dtype=np.int64), got)
    assert (got == expected).all()
    default = np.array([DiceHeuristicAgent(g).act(o, m) for o, m in zip(obs, masks)])
    assert (default != expected).any()  # the weights changed some choices
    with pytest.raises(ValueError, match=r"unknown dice heuristic weights \['dny'\]; known: deny, draw"):
        baseline_weight_array(g, dice_weights={"dny": 1.0})


@pytest.mark.parametrize("kind", [BL.KIND_GREEDY, BL.KIND_HEURISTIC])
def test_dice_players_refuse_a_parameter_array_without_the_dice_block(kind):
    """The card games' 16 weights (or another dice set's block) give no action rather than reads past the array."""
    obs, masks, g = _decisions("dice", 2, None, 50, seed=1)
    other = V.UnoVectorEnv("dice", 1, num_players=4, num_threads=1).game  # same dice set, D fits; K, D checked
    got = np.empty(len(obs), dtype=np.int64)
    for w in (heuristic_weight_array(), baseline_weight_array(g)[:-1]):
        assert BL.baseline_actions(kind, obs, masks, g.cfg, g.spec, g.obs_offsets, w,
                                   np.zeros(len(obs), dtype=np.int64), got) == 0
        assert (got == -1).all()
    assert BL.baseline_actions(kind, obs, masks, g.cfg, g.spec, g.obs_offsets, baseline_weight_array(other),
                               np.zeros(len(obs), dtype=np.int64), got) == -1


def test_in_kernel_dice_greedy_is_reproducible():
    """Greedy in the kernel draws its tie-break rotation from each game's opponent stream (as in the card games;
    the Python agent draws it from its own numpy stream): the same seed gives the same games."""
    def play():
        env = V.UnoSingleAgentVectorEnv("dice", 16, opponents="greedy", seed=11, learner_seat="rotate", num_threads=1)
        assert env.opponents_in_kernel
        obs, masks = env.reset()
        pol = V.RandomLegalPolicy(2)
        seen, ended = [], 0
        for _ in range(200):
            seen.append(obs.copy())
            obs, masks, _, term, *_ = env.step(pol.act_batch(obs, masks))
            ended += int(term.sum())
        assert ended > 5
        return np.stack(seen)
    assert np.array_equal(play(), play())


def test_dice_trainer_advice_is_the_shipped_players():
    """The batched trainer's teacher (the compiled dice heuristic) and the numpy policy player's advisor (the Python
    agent) name the same action on the learner's decisions, so a dice policy trained with ``advice: heuristic``
    is told at play time what it was told in training."""
    pytest.importorskip("torch")
    from pathlib import Path

    from uno_env.agents.policy import NumpyPolicyAgent, heuristic_advisor
    from uno_env.training.algorithms import batched_ppo as algo
    from uno_env.training.config import load_config
    from uno_env.training.pool import OpponentPool

    root = Path(__file__).resolve().parents[1]
    cfg = load_config(root / "configs" / "train" / "dice_ppo.yaml", ["env.n_envs=64", "env.num_threads=1"])
    env = algo.make_env(cfg, OpponentPool(cfg.opponents.baselines, 0.0, seed=0), 0)
    assert env.env.opponents_in_kernel  # the heuristic opponent plays in the kernel in UNO Dice too
    shipped = NumpyPolicyAgent.load(root / "agents" / "policies" / "dice_2p.npz", env.game)
    assert shipped.weights.advice == "heuristic"
    advisor = heuristic_advisor(env.game)  # what the shipped player asks on every observation
    obs, masks = env.reset()
    teacher = np.zeros(env.num_envs, dtype=np.int64)
    choices = 0
    for _ in range(40):
        env.teacher_actions(obs, masks, teacher)
        assert np.array_equal(teacher, advisor(obs, masks))
        choices += int(((masks != 0).sum(1) > 1).sum())
        obs, masks, *_ = env.step(teacher)
    assert choices > 500
