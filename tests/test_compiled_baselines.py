"""One implementation per player: the agents ``greedy`` and ``heuristic`` play the compiled players of
``uno_env.players``, and the batched simulator's in-kernel opponents play the same code.

The agent face reaches the players through its input checks, its parameter array and its own random stream; the
kernel through the observation it writes for the opponent's seat, the env's parameter array and the game's opponent
stream.  Games against the in-kernel heuristic and against the agent (asked through ``act`` and ``act_batch``) are
the same games, move for move, in every game and table size; greedy, whose tie-break rotation comes from a different
stream in each face, is held to its documented rule instead.
"""
from __future__ import annotations

import numpy as np
import pytest

from uno_env import vector as V
from uno_env.agents.base import ActionView, NoLegalActionError, ObsView
from uno_env.agents.dice_heuristic import DiceHeuristicAgent
from uno_env.agents.greedy import GreedyAgent
from uno_env.agents.heuristic import HeuristicAgent
from uno_env.agents.policy import compiled_heuristic
from uno_env.players import baselines as BL
from uno_env.players.parameters import baseline_weight_array, heuristic_weight_array

#: every game at 2 and 4 players, and rule sets that reach every phase (turn, drawn card, colour, pending penalty,
#: challenge, give, swap, jump-in; in UNO Dice rerolls, the drawn die, a bluffed Wild Draw Four)
TABLES = [
    ("classic", 2, None),
    ("classic", 4, None),
    ("classic", 4, {"wd4_legality": "any_playable", "stacking": "any", "jump_in": True}),
    ("classic", 3, {"seven_zero": True, "stacking": "same", "draw_until_playable": True}),
    ("classic", 2, "rlcard"),
    ("classic", 2, "official"),  # bluffs and challenges
    ("pocket", 2, None),
    ("pocket", 4, {"seven_zero": True, "jump_in": True, "uno_call": "auto"}),
    ("dice", 2, None),
    ("dice", 4, {"uno_call": "auto", "episode": "match"}),
    ("dice", 3, {"dice_wd4_bluff": True}),
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


class _BothFaces:
    """An opponent for the batched simulator played from Python: the agent's ``act_batch``, checked row by row
    against its ``act``; counts the decisions that were choices (more than one legal action)."""

    def __init__(self, agent):
        self.agent = agent
        self.choices = 0

    def act_batch(self, observations, masks):
        batch = self.agent.act_batch(observations, masks)
        one = [self.agent.act(o, m) for o, m in zip(observations, masks)]
        assert batch.tolist() == one
        self.choices += int(((masks != 0).sum(axis=1) > 1).sum())
        return batch


@pytest.mark.parametrize("game,n,rules", TABLES)
def test_the_in_kernel_heuristic_and_the_agent_play_the_same_games(game, n, rules, tmp_path_factory):
    """The kernel's heuristic seats and the ``heuristic`` agent asked from Python give the same games, move for move
    (every observation, mask, reward and end of the learner's), over hundreds of episodes."""
    rules = _rules(rules, tmp_path_factory)
    kernel = V.UnoSingleAgentVectorEnv(game, 32, num_players=n, rules=rules, opponents="heuristic", seed=5,
                                       learner_seat="rotate", num_threads=1)
    face = _BothFaces(HeuristicAgent(kernel.game, seed=1))
    python = V.UnoSingleAgentVectorEnv(game, 32, num_players=n, rules=rules, opponents=face, seed=5,
                                       learner_seat="rotate", num_threads=1)
    assert kernel.opponents_in_kernel and not python.opponents_in_kernel
    ok, mk = kernel.reset()
    op, mp = python.reset()
    learner = V.RandomLegalPolicy(1)
    ended = 0
    for _ in range(250):
        assert np.array_equal(ok, op) and np.array_equal(mk, mp)
        act = learner.act_batch(ok, mk)
        ok, mk, rk, tk, uk, _ = kernel.step(act)
        op, mp, rp, tp, up, _ = python.step(act)
        assert np.array_equal(rk, rp) and np.array_equal(tk, tp) and np.array_equal(uk, up)
        ended += int(tk.sum())
    assert ended > 30
    assert face.choices > 1000  # the opponents' decisions that were choices, each made alike by both faces


def _greedy_rule(g, obs, mask, shift):
    """The ``greedy`` agent's documented rule, written out plainly: the highest score (plays 1000 + points, the UNO
    call half a point more, a give 500 + points, a swap 500, a colour 100, keep 10, a challenge never, anything else
    0; naming a colour: the colour held most of; swapping: the smallest other hand), ties to the largest
    ``(a - shift) mod A``; in UNO Dice by face, then the lowest die showing it."""
    av, ov = ActionView(g), ObsView(g)
    mask, dice_plays = av.dice_as_kinds(obs, mask)
    a_n, k = g.num_actions, g.num_kinds
    pts = av.kind_points

    def score(a):
        if a < av.play_uno:
            return 1000.0 + pts[a - av.play]
        if a < av.colour:
            return 1000.5 + pts[a - av.play_uno]
        if a < av.colour + 4:
            held = np.asarray(obs[ov.hand], dtype=np.float32)
            return float(np.float32(held[av.kind_colour == a - av.colour].sum()))
        if a == av.keep:
            return 10.0
        if a == av.challenge:
            return -1e9
        if av.give <= a < av.give + k:
            return 500.0 + pts[a - av.give]
        if a >= av.swap:
            return -float(obs[ov.hand_sizes][a - av.swap + 1])
        return 0.0

    best = max(np.flatnonzero(mask), key=lambda a: (int(score(a)) if av.colour <= a < av.colour + 4 else score(a),
                                                    (a - shift) % a_n))
    return dice_plays[best][0] if best in dice_plays else int(best)


@pytest.mark.parametrize("game,n,rules", TABLES)
def test_greedy_follows_its_rule_with_its_own_tie_breaks(game, n, rules, tmp_path_factory):
    """Both faces of ``greedy`` choose by its rule, their ties broken by rotations drawn from the agent's seeded
    stream: ``act_batch`` draws one per row (in UNO Dice one at a time, as ``act`` does)."""
    obs, masks, g = _decisions(game, n, _rules(rules, tmp_path_factory), 1500, seed=n)
    agent = GreedyAgent(g, seed=7)
    got = agent.act_batch(obs, masks)
    stream = np.random.default_rng(7)
    shifts = (np.array([stream.integers(0, g.num_actions, size=1)[0] for _ in range(len(obs))]) if g.num_dice
              else stream.integers(0, g.num_actions, size=len(obs)))
    expected = [_greedy_rule(g, o, m, s) for o, m, s in zip(obs, masks, shifts)]
    bad = np.flatnonzero(got != np.array(expected))
    assert bad.size == 0, f"{bad.size} of {len(obs)} differ, first at {bad[:5]}: {got[bad[:5]]}"
    agent.reset(7)
    stream = np.random.default_rng(7)
    single = [_greedy_rule(g, o, m, stream.integers(0, g.num_actions, size=1)[0]) for o, m in zip(obs[:300],
                                                                                                   masks[:300])]
    assert [agent.act(o, m) for o, m in zip(obs[:300], masks[:300])] == single
    assert (masks.sum(axis=1) > 1).mean() > 0.3  # most decisions are choices


def test_heuristic_weights_reach_the_compiled_player():
    obs, masks, g = _decisions("classic", 2, None, 2000, seed=3)
    weights = {"deny": 0.0, "wild_save": -5.0, "challenge_threshold": 0.0}
    agent = HeuristicAgent(g, weights=weights)
    chosen = agent.act_batch(obs, masks)
    assert (chosen != HeuristicAgent(g).act_batch(obs, masks)).any()  # the weights changed some choices
    assert np.array_equal(compiled_heuristic(g, weights)(obs, masks), chosen)  # the advice with the same weights
    got = np.empty(len(obs), dtype=np.int64)
    BL.baseline_actions(BL.KIND_HEURISTIC, obs, masks, g.cfg, g.spec, g.obs_offsets, heuristic_weight_array(weights),
                        np.zeros(len(obs), dtype=np.int64), got)
    assert np.array_equal(got, chosen)
    with pytest.raises(ValueError, match=r"unknown heuristic weights \['dny'\]; known: colour_count, other_match"):
        HeuristicAgent(g, weights={"dny": 1.0})
    with pytest.raises(ValueError, match="heuristic weight 'deny' must be a number"):
        HeuristicAgent(g, weights={"deny": "high"})


def test_dice_heuristic_weights_reach_the_compiled_player():
    obs, masks, g = _decisions("dice", 2, None, 2000, seed=4)
    weights = {"deny": 0.0, "keep_wild": -1.0, "flex": 3.0, "lead": 0.5}
    agent = DiceHeuristicAgent(g, weights=weights)
    chosen = agent.act_batch(obs, masks)
    default = DiceHeuristicAgent(g).act_batch(obs, masks)
    assert (default != chosen).any()  # the weights changed some choices
    assert np.array_equal(HeuristicAgent(g).act_batch(obs, masks), default)  # the heuristic's UNO Dice player
    got = np.empty(len(obs), dtype=np.int64)
    BL.baseline_actions(BL.KIND_HEURISTIC, obs, masks, g.cfg, g.spec, g.obs_offsets,
                        baseline_weight_array(g, dice_weights=weights), np.zeros(len(obs), dtype=np.int64), got)
    assert np.array_equal(got, chosen)
    with pytest.raises(ValueError, match=r"unknown dice heuristic weights \['dny'\]; known: deny, draw"):
        baseline_weight_array(g, dice_weights={"dny": 1.0})


@pytest.mark.parametrize("make", [GreedyAgent, HeuristicAgent, DiceHeuristicAgent], ids=lambda m: m.__name__)
def test_the_agents_refuse_what_the_environments_never_give(make):
    """Wrong shapes, a mask without a legal action and non-finite or huge values stop with a clear error before
    the compiled code, and leave the agent's random stream where it was."""
    obs, masks, g = _decisions("dice" if make is DiceHeuristicAgent else "classic", 2, None, 40, seed=5)
    agent = make(g, seed=3)
    before = agent.rng.bit_generator.state
    with pytest.raises(NoLegalActionError, match=rf"^{agent.name}: no legal action \(all-zero mask\)$"):
        agent.act(obs[0], np.zeros_like(masks[0]))
    bad = masks.copy()
    bad[5] = 0
    with pytest.raises(NoLegalActionError, match="row 5"):
        agent.act_batch(obs, bad)
    with pytest.raises(ValueError, match=rf"needs an observation \({g.obs_dim},\) and a mask \({g.num_actions},\)"):
        agent.act(obs[0, :-1], masks[0])
    with pytest.raises(ValueError, match=rf"\(B, {g.obs_dim}\).*\(B, {g.num_actions}\)"):
        agent.act_batch(obs, masks[:, :-1])
    for value in (np.nan, np.inf, -1e9):
        odd = obs.copy()
        odd[3, 7] = value
        with pytest.raises(ValueError, match="finite"):
            agent.act_batch(odd, masks)
        with pytest.raises(ValueError, match="finite"):
            agent.act(odd[3], masks[3])
    assert agent.rng.bit_generator.state == before
    if make is not GreedyAgent:  # (greedy draws a rotation per decision) a mask's legal actions are its nonzero ones
        assert agent.act_batch(obs, masks.astype(bool)).tolist() == [agent.act(o, m) for o, m in zip(obs, masks)]


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
    the agent draws it from its own numpy stream): the same seed gives the same games."""
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
    """The batched trainer's teacher (the compiled dice heuristic) and the numpy policy player's advisor name the
    same action on the learner's decisions, so a dice policy trained with ``advice: heuristic`` is told at play time
    what it was told in training."""
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
