"""The state row's length follows the player count (core/layout.py); the views and the validators check it."""
from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env.core import layout as L
from uno_env.core.game import Game
from uno_env.vector import UnoVectorEnv


def test_row_length_is_the_fixed_part_plus_one_hand_block_per_seat():
    assert L.FIELDS[-1].name == "hand" and L.FIELDS[-1].per_seat
    fixed = sum(f.size for f in L.FIELDS[:-1])
    for n in range(L.MIN_PLAYERS, L.MAX_PLAYERS + 1):
        assert L.state_len(n) == fixed + n * L.MAX_KINDS
    assert L.state_len(L.MAX_PLAYERS) == L.STATE_LEN
    for bad in (1, 11, 2.0, True, "2"):
        with pytest.raises(ValueError, match="num_players"):
            L.state_len(bad)


@pytest.mark.parametrize("game,n", [("classic", 2), ("pocket", 4), ("dice", 3), ("classic", 10)])
def test_every_environment_keeps_rows_of_its_player_count(game, n):
    rules = uno_env.RuleConfig.make(game, num_players=n)
    assert Game(rules).state_len == L.state_len(n)
    env = uno_env.raw_env(game, rules=rules)
    env.reset(seed=1)
    assert env.game_state.row.shape == (L.state_len(n),)
    assert env.game_state.hand.shape == (n, L.MAX_KINDS)
    vec = UnoVectorEnv(game, 3, num_players=n, seed=0)
    vec.reset()
    assert vec.states.shape == (3, L.state_len(n))
    assert vec.state_view.hand.shape == (3, n, L.MAX_KINDS)
    assert vec.state_view.hand.sum(axis=(1, 2)).tolist() == vec.state_view.hand_n[:, :n].sum(axis=1).tolist()


def test_views_refuse_rows_of_other_lengths_naming_the_lengths():
    for length in (L.state_len(2) - 1, L.state_len(2) + 1, 1095 - 1, 0):
        with pytest.raises(ValueError, match=r"state_len\(num_players\)"):
            L.StateView(np.zeros(length, L.STATE_DTYPE))
        with pytest.raises(ValueError, match=r"state_len\(num_players\)"):
            L.BatchView(np.zeros((2, length), L.STATE_DTYPE))
    with pytest.raises(ValueError, match=r"for 3 players"):
        L.StateView(np.zeros(L.state_len(2), L.STATE_DTYPE), num_players=3)
    with pytest.raises(ValueError, match="1-D"):
        L.StateView(np.zeros((2, L.state_len(2)), L.STATE_DTYPE))
    v = L.StateView(np.zeros(L.state_len(4), L.STATE_DTYPE))
    assert v.num_players == 4 and v.hand.shape == (4, L.MAX_KINDS)


def test_vector_env_refuses_rows_of_another_player_count():
    vec = UnoVectorEnv("classic", 2, num_players=2, seed=0)
    vec.reset()
    snap = vec.snapshot()
    other = UnoVectorEnv("classic", 2, num_players=3, seed=0)
    other.reset()
    before = other.states.copy()
    with pytest.raises(ValueError, match=r"same shapes"):
        other.restore(snap)
    np.testing.assert_array_equal(other.states, before)


def test_the_invariant_checker_refuses_a_row_of_another_player_count():
    g2 = Game(uno_env.RuleConfig.make("classic", num_players=2))
    g3 = Game(uno_env.RuleConfig.make("classic", num_players=3))
    states, rngs = g3.new_states(1)
    from uno_env.core import engine as E
    E.reset_one(states[0], rngs[0], g3.cfg, g3.spec, g3.dice, 7)
    assert g3.check_invariants(states[0]) == ""
    assert "length" in g2.check_invariants(states[0])
    assert "length" in g2.state_problem(states[0])
