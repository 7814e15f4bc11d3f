"""The int16 state row: the five wide fields (``turns``, ``round``, ``round_points``, ``flips``, ``scores``) hold
values past the entries' range exactly, in compiled code and in every Python view; a malformed wide field is
refused naming it; nothing else in the row can leave int16 (the bounds test in ``test_state_dict.py``)."""
from __future__ import annotations

import numpy as np
import pytest
from state_roundtrip import make

from uno_env.config import OPTIONS
from uno_env.core import layout as L
from uno_env.vector import RandomLegalPolicy, UnoVectorEnv

GAMES = ("classic", "pocket", "dice")


def test_the_row_is_int16_and_the_wide_fields_take_two_entries():
    env = UnoVectorEnv("classic", 2, seed=0, num_threads=1)
    env.reset()
    assert env.states.dtype == np.int16 and env.states.itemsize == 2
    wide = [f.name for f in L.FIELDS if f.wide]
    assert wide == ["round", "turns", "round_points", "flips", "scores"]
    assert L.FIELD_BY_NAME["scores"].size == 2 * L.MAX_PLAYERS
    # the options that bound them fit the wide range, with a round's points on top of the target
    assert OPTIONS["max_turns"].allowed[1] <= L.WIDE_MAX
    assert OPTIONS["target_score"].allowed[1] + 10_000 <= L.WIDE_MAX


@pytest.mark.parametrize("value", [0, 1, 32_767, 32_768, 65_535, 65_536, 10_000_000, L.WIDE_MAX, -1, L.WIDE_MIN])
def test_wide_entries_round_trip(value):
    entries = L.wide_entries("turns", [value])
    assert entries.dtype == L.STATE_DTYPE and 0 <= entries[0] < 2**L.WIDE_BITS
    assert int(L.wide_values(entries)[0]) == value


@pytest.mark.parametrize("game", GAMES)
def test_turns_count_past_int16_and_truncate_at_max_turns(game):
    env = UnoVectorEnv(game, 8, seed=3, rules={"max_turns": 40_000}, num_threads=1)
    env.reset()
    policy = RandomLegalPolicy(0)
    view = env.state_view
    view.turns = 32_765
    env.refresh()
    for _ in range(5):
        env.step(policy.act_batch(env.observations, env.masks))
    running = view.turns >= 32_765  # games that ended and reset meanwhile count from 0
    assert running.any() and (view.turns[running] == 32_770).all()
    assert (env.states[running, L.S_TURNS + 1] == 1).all()  # the high entry carries
    view.turns = 39_998
    env.refresh()
    _, _, _, _, terminated, truncated, infos = env.step(policy.act_batch(env.observations, env.masks))
    assert not truncated.any()
    _, _, _, _, terminated, truncated, infos = env.step(policy.act_batch(env.observations, env.masks))
    assert (truncated | terminated).all() and truncated.any()
    assert (infos["episode_turns"][truncated] == 40_000).all()


@pytest.mark.parametrize("game", GAMES)
def test_match_scores_past_int16_are_kept_observed_and_saved(game):
    target = 100_000
    env = make(game, 2, {"episode": "match", "target_score": target})
    env.reset(seed=1)
    env.load_state_dict({"scores": [40_000, 35_000]})
    before = env.game_state.scores.copy()
    assert list(before[:2]) == [40_000, 35_000]
    rng = np.random.default_rng(0)
    while env.game_state.round == 0:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    st = env.game_state
    winner, points = st.winner, st.round_points
    assert points > 0
    expected = before.copy()
    expected[winner] += points
    np.testing.assert_array_equal(st.scores, expected)
    d = env.state_dict()
    assert d["scores"] == d["fields"]["scores"][:2] == [int(x) for x in expected[:2]]
    assert d["round"] == d["fields"]["round"] == 1
    # the observation shows scores / target for every seat, the observer's first
    start = next(start for start, _, name, _ in env.observation_layout if name == "scores")
    seat = int(env.agent_selection.split("_")[1])
    obs = env.observe(env.agent_selection)["observation"]
    assert obs[start] == pytest.approx(expected[seat] / target)
    assert obs[start + 1] == pytest.approx(expected[1 - seat] / target)


def test_wide_views_refuse_writes_they_would_lose_and_values_out_of_range():
    env = UnoVectorEnv("classic", 2, seed=0, num_threads=1)
    env.reset()
    view = env.state_view
    with pytest.raises(ValueError, match="read-only"):
        view.turns[0] = 5  # a computed copy: the row would not change
    with pytest.raises(ValueError, match="read-only"):
        view.scores[0, 0] = 5
    with pytest.raises(ValueError, match="turns"):
        view.turns = L.WIDE_MAX + 1
    with pytest.raises(TypeError, match="scores"):
        view.scores = np.full((2, L.MAX_PLAYERS), 1.5)
    view.scores = np.arange(2 * L.MAX_PLAYERS).reshape(2, L.MAX_PLAYERS) * 10_000
    assert view.scores[1, 9] == 190_000
    row = L.StateView(env.states[0])
    row.round_points = 70_000
    assert row.round_points == 70_000 and env.state_view.round_points[0] == 70_000


def test_a_malformed_wide_field_is_refused_naming_it():
    env = UnoVectorEnv("classic", 2, seed=0, num_threads=1)
    env.reset()
    before = env.states.copy()
    env.states[1, L.S_TURNS] = -3  # a low entry is 0 .. 2**15 - 1
    with pytest.raises(ValueError, match=r"game 1.*'turns'"):
        env.refresh()
    env.states[:] = before
    g = env.game
    d = g.state_dict(env.states[0], np.zeros(1, np.uint64))
    d["fields"]["turns"] = 2**31
    with pytest.raises(ValueError, match="fields.turns"):
        g.check_exact(d)
    problem = g.state_problem(np.where(np.arange(g.state_len) == L.S_TURNS, -3, env.states[0]).astype(np.int16))
    assert "'turns'" in problem and "low entry" in problem
