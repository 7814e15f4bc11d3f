"""The lockstep (batched) arena plays exactly the games of the one-game-at-a-time arena.

``play_lockstep`` plays many games at once and asks each agent for all its decisions of a round in one
``act_batch`` call; ``_play_indices`` plays the same games one by one through ``play_game``.  Every record (winner,
length, scores, actions, rewards, truncated, seed) must be the same, for deterministic agents and for agents with a
random stream (which get each game's own stream), whatever the batch size and the number of workers.
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from uno_env.agents.policy import NumpyPolicyAgent, PolicyWeights
from uno_env.agents.registry import load_agent
from uno_env.config import make_rules
from uno_env.core.game import Game
from uno_env.training import arena, arena_games
from uno_env.training import evaluate as EV
from uno_env.training.evaluate import (
    IllegalAgentActionError,
    lineup_cycle,
    lockstep_mode,
    play_lockstep,
    run_arena,
)


def _random_policy(g: Game, seed: int, deterministic: bool, advice: bool = False) -> NumpyPolicyAgent:
    rng = np.random.default_rng(seed)
    d_in = g.obs_dim + g.num_actions * (2 if advice else 1)
    ws = [rng.normal(size=(32, d_in)).astype(np.float32) * 0.3,
          rng.normal(size=(g.num_actions, 32)).astype(np.float32) * 0.3]
    bs = [np.zeros(32, np.float32), np.zeros(g.num_actions, np.float32)]
    pw = PolicyWeights(ws, bs, "tanh", "symlog", True, "heuristic" if advice else "none", 1.0 if advice else 0.0)
    return NumpyPolicyAgent(pw, name="sampler" if not deterministic else "argmax", deterministic=deterministic,
                            game=g)


def _players(g: Game, specs) -> list:
    out = []
    for s in specs:
        if s == "sampling policy":
            out.append(_random_policy(g, 7, deterministic=False))
        elif s == "argmax policy":
            out.append(_random_policy(g, 8, deterministic=True, advice=True))
        elif s == "ppo" and f"{g.name}_{g.num_players}p" not in _shipped():
            out.append(_random_policy(g, 9, deterministic=True))  # no shipped policy for this table: a stand-in
        else:
            out.append(load_agent(s, g))
    return out


def _shipped() -> list[str]:
    from uno_env.agents.ppo import shipped_policies

    return shipped_policies()


def _same_records(one, two) -> None:
    assert [i for i, _ in one] == [i for i, _ in two]
    for (i, a), (_, b) in zip(one, two):
        assert set(a) == set(b)
        for key in a:
            if key == "actions":
                assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), f"game {i}: actions differ"
            else:
                assert a[key] == b[key], f"game {i}: {key} {a[key]!r} != {b[key]!r}"


AGENT_SETS = [
    ("ppo", "greedy"),
    ("ppo", "heuristic"),
    ("random", "greedy"),
    ("sampling policy", "argmax policy"),
    ("heuristic", "random", "sampling policy"),
]


@pytest.mark.parametrize("game", ["classic", "pocket", "dice"])
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("specs", AGENT_SETS, ids="-".join)
def test_lockstep_records_equal_the_sequential_arenas(game, n, specs):
    # a turn limit: untrained networks play long games, and truncated games must match too
    g = Game(make_rules(game, n, {"max_turns": 250}))
    players = _players(g, specs)
    modes = [lockstep_mode(p) for p in players]
    assert None not in modes
    labels = [f"{s}#{k}" for k, s in enumerate(specs)]
    cycle = lineup_cycle(len(players), n)
    indices = list(range(24))
    seq = arena_games.play_indices(g, players, labels, cycle, 11, indices)
    for batch in (5, 64):  # fewer slots than games (slots are refilled) and more
        _same_records(seq, play_lockstep(g, players, modes, labels, cycle, 11, indices, batch_size=batch))


@pytest.mark.parametrize("rules", ["rlcard", "standard"])
def test_lockstep_records_with_the_rlcard_rule_agent(rules):
    g = Game(make_rules("classic", 3, rules))
    players = _players(g, ("rlcard-rule", "greedy"))
    modes = [lockstep_mode(p) for p in players]
    assert modes[0] == EV.ROW_LOOP
    cycle = lineup_cycle(2, 3)
    seq = arena_games.play_indices(g, players, ["r", "g"], cycle, 6, list(range(30)))
    _same_records(seq, play_lockstep(g, players, modes, ["r", "g"], cycle, 6, list(range(30)), batch_size=8))


def test_cli_sequential_and_batched_print_the_same_table(capsys):
    from uno_env.cli import main

    argv = ["evaluate", "ppo", "greedy", "random", "-g", "60", "--seed", "2", "-q"]
    assert main(argv + ["--batch-size", "16"]) == 0
    batched = capsys.readouterr().out
    assert main(argv + ["--sequential"]) == 0
    assert capsys.readouterr().out == batched
    assert main(argv + ["--batch-size", "0"]) == 2
    assert "batch_size must be a positive integer" in capsys.readouterr().err


def test_a_2000_game_arena_has_the_same_table_batched_sequential_and_with_workers():
    kw = dict(game="classic", num_players=2, games=2000, seed=3, ratings=True)
    agents = ["ppo", "random", "greedy", "heuristic"]
    seq = run_arena(agents, batched=False, **kw).to_dict()
    assert seq == run_arena(agents, **kw).to_dict()
    assert seq == run_arena(agents, workers=2, batch_size=100, **kw).to_dict()
    assert sum(a["wins"] for a in seq["agents"]) == 2000 - seq["truncated_games"]


def test_run_arena_plays_lockstep_by_default_and_sequentially_when_asked(monkeypatch):
    calls = {"lockstep": 0, "game": 0}
    lockstep, game = arena.play_lockstep, arena_games.play_game

    def count(name, fn):
        def wrapped(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(arena, "play_lockstep", count("lockstep", lockstep))
    monkeypatch.setattr(arena_games, "play_game", count("game", game))
    run_arena(["ppo", "greedy", "random", "heuristic"], games=8, seed=0)
    assert calls == {"lockstep": 1, "game": 0}
    run_arena(["ppo", "greedy"], games=8, seed=0, batched=False)
    assert calls == {"lockstep": 1, "game": 8}
    # an agent that needs the state is played one game at a time, unless lockstep is forced
    run_arena(["ismcts:sims=3", "random"], games=2, seed=0)
    assert calls == {"lockstep": 1, "game": 10}
    with pytest.raises(ValueError, match="batched=True: the lockstep arena cannot play ismcts"):
        run_arena(["ismcts:sims=3", "random"], games=2, seed=0, batched=True)


def test_agents_outside_the_lockstep_modes():
    g = Game(make_rules("classic", 2, None))

    class Plain:  # act only: unknown to the arena
        name = "plain"

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    class Greedier(type(load_agent("greedy", g))):  # a subclass may choose differently: not assumed
        pass

    assert lockstep_mode(Plain()) is None
    assert lockstep_mode(Greedier(g)) is None
    assert lockstep_mode(load_agent("ismcts", g)) is None
    assert lockstep_mode(_random_policy(g, 0, deterministic=False)) == EV.ROW_STREAMS
    assert lockstep_mode(load_agent("greedy", Game(make_rules("dice", 2, None)))) == EV.ROW_LOOP
    Plain.arena_lockstep = "stateless"
    with pytest.raises(ValueError, match="needs a method 'act_batch'"):
        run_arena([Plain(), "random"], games=2)
    Plain.arena_lockstep = "row_loop"
    with pytest.raises(ValueError, match="needs the agent's random stream"):
        lockstep_mode(Plain())
    Plain.arena_lockstep = "sometimes"
    with pytest.raises(ValueError, match="arena_lockstep must be one of"):
        lockstep_mode(Plain())
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        run_arena(["random", "greedy"], games=2, batch_size=0)
    with pytest.raises(ValueError, match="batched must be"):
        run_arena(["random", "greedy"], games=2, batched="yes")
    agent = load_agent("random", g)
    with pytest.raises(ValueError, match="one agent object with a random stream in several places"):
        run_arena([agent, agent], games=2, batched=True)
    assert run_arena([agent, agent], games=4, seed=1).games == 4  # played one game at a time


class _Cheater:
    """Takes an illegal action in some decisions (``rarely``: where a hash of the observation says so, so that games
    played after the first to go wrong in game order go wrong first in a lockstep round): the arena must refuse it
    with the error the sequential arena raises, at the first illegal action in game order."""

    name = "cheater"
    arena_lockstep = "stateless"

    def __init__(self, rarely: bool = False):
        self.rarely = rarely

    def act(self, observation, action_mask):
        mask = np.asarray(action_mask)
        if self.rarely and int(np.asarray(observation).sum() * 7) % 23 != 0:
            return int(np.flatnonzero(mask)[0])
        return int(np.flatnonzero(mask == 0)[0])

    def act_batch(self, observations, action_masks):
        return np.array([self.act(o, m) for o, m in zip(observations, action_masks)], dtype=np.int64)


@pytest.mark.parametrize("n, rarely", [(2, False), (4, False), (2, True), (4, True)])
def test_an_illegal_action_raises_the_sequential_arenas_error(n, rarely):
    messages = []
    for batched in (False, True):
        with pytest.raises(IllegalAgentActionError) as exc:
            run_arena([_Cheater(rarely), "random"], num_players=n, games=40, seed=2, batched=batched)
        messages.append(str(exc.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith("agent cheater at seat ") and "chose the illegal action" in messages[0]


@pytest.mark.parametrize("returned, words", [
    (lambda k: np.zeros(k + 1, dtype=np.int64), "shape ("),
    (lambda k: np.zeros((k, 1), dtype=np.int64), "shape ("),
    (lambda k: np.zeros(k, dtype=np.float32), "dtype float32"),
    (lambda k: np.zeros(k, dtype=bool), "dtype bool"),
    (lambda k: None, "dtype object"),
])
def test_a_malformed_batch_is_a_clear_error(returned, words):
    class Broken:
        name = "broken"
        arena_lockstep = "stateless"

        def act(self, observation, action_mask):
            return 0

        def act_batch(self, observations, action_masks):
            return returned(len(observations))

    with pytest.raises(IllegalAgentActionError, match="agent broken: act_batch returned an array of") as exc:
        run_arena([Broken(), "random"], games=3, seed=0)
    assert words in str(exc.value) and "one integer action id per row" in str(exc.value)


def test_a_streamed_agent_that_draws_across_rows_is_refused():
    g = Game(make_rules("classic", 2, None))
    agent = load_agent("random", g)

    def one_draw_for_all(observations, action_masks):
        agent.rng.random()  # one number for the whole batch: cannot be split by game
        return np.zeros(len(observations), dtype=np.int64)

    agent.act_batch = one_draw_for_all
    with pytest.raises(IllegalAgentActionError, match="splits draws along the first axis"):
        run_arena([agent, "greedy"], games=4, seed=0, batched=True)
    assert isinstance(agent.rng, np.random.Generator)  # the agent's own stream is given back


def test_progress_and_records_in_lockstep(tmp_path, capsys):
    seq_dir, lock_dir = tmp_path / "seq", tmp_path / "lock"
    kw = dict(game="pocket", num_players=2, games=30, seed=4)
    run_arena(["ppo", "greedy", "random"], batched=False, record_dir=seq_dir, **kw)
    res = run_arena(["ppo", "greedy", "random"], record_dir=lock_dir, progress=True, batch_size=8, **kw)
    assert res.games == 30
    err = capsys.readouterr().err
    assert "30/30" in err and "game" in err
    names = sorted(os.listdir(seq_dir))
    assert names == sorted(os.listdir(lock_dir)) and len(names) == 30
    for name in names:
        assert json.loads((seq_dir / name).read_text()) == json.loads((lock_dir / name).read_text())


@pytest.mark.parametrize("deterministic", [True, False])
def test_a_policy_chooses_the_same_in_a_batch_as_alone(deterministic):
    """BLAS sums a batch in another order than one row; on near-ties the batch's logits alone would flip choices, so
    ``act_batch`` recomputes those rows one at a time: its choice for a row is ``act``'s, in any batch."""
    g = Game(make_rules("classic", 2, None))
    agent = _random_policy(g, 3, deterministic=deterministic, advice=True)
    pw = agent.weights
    # actions 2k and 2k+1 get nearly the same output weights and bias: their logits tie to the last bits
    w, b = pw.weights[-1].copy(), pw.biases[-1].copy()
    jitter = np.random.default_rng(1).normal(size=w[1::2].shape).astype(np.float32)
    w[1::2] = w[0:-1:2] * (1 + np.float32(3e-7) * jitter)
    b[1::2] = b[0:-1:2]
    pw.weights[-1], pw.biases[-1] = w, b
    rng = np.random.default_rng(0)
    obs = (rng.integers(0, 5, size=(400, g.obs_dim)) * (rng.random((400, g.obs_dim)) < 0.2)).astype(np.float32)
    masks = (rng.random((400, g.num_actions)) < 0.3).astype(np.int8)
    masks[:, :2] = 1
    agent.reset(seed=5)
    batch = agent.act_batch(obs, masks)
    agent.reset(seed=5)
    alone = [agent.act(o, m) for o, m in zip(obs, masks)]
    assert batch.tolist() == alone
