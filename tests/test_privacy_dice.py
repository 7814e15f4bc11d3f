"""UNO Dice privacy: die faces and places are public, the bag's future draws and rolls are not.

In UNO Dice every hand is public (the Dice sheet: rolled hands are "not hidden from others") and every die outside
the bag is visible, so the only hidden information is chance to come: which die leaves the bag next (the order
of the bag's ids in the state row) and what the next rolls show (the PRNG word), plus the faces a die showed
before it went back into the bag (it is rolled again when drawn).  At decisions where the acting seat chooses
among several dice showing the same face (the die-choice decision), and at every other dice decision reached by
random play, those are changed and every seat's observation, mask and ``agent_selection`` must stay the same.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from conftest import dice_scenario, make_env


def _seen(env):
    u = env.unwrapped
    return u.agent_selection, {a: u.observe(a) for a in u.possible_agents}


def _same(a, b):
    if a[0] != b[0]:
        return False
    return all(np.array_equal(a[1][k]["observation"], b[1][k]["observation"])
               and np.array_equal(a[1][k]["action_mask"], b[1][k]["action_mask"]) for k in a[1])


def _hide_differently(env, rng):
    """Shuffle the bag's order, give its dice other stale faces and another PRNG word; True if anything changed."""
    u = env.unwrapped
    v = u.game_state
    n = int(v.draw_n)
    before = v.row.copy(), u.prng_state.copy()
    v.draw[:n] = v.draw[:n][rng.permutation(n)]
    for die in v.draw[:n]:
        v.die_face[die] = rng.integers(0, 6)
    u.prng_state[:] = rng.integers(0, 2**63, size=u.prng_state.shape, dtype=np.uint64)
    u.sync_state()
    assert u.game.check_invariants(v.row) == ""
    return not (np.array_equal(before[0], v.row) and np.array_equal(before[1], u.prng_state))


def _die_choice(env) -> bool:
    """Whether the acting seat's legal plays include two dice showing the same face."""
    u = env.unwrapped
    g = u.game
    mask = u.observe(u.agent_selection)["action_mask"]
    start = g.offsets["play_die"]
    dice = np.flatnonzero(mask[start: start + g.num_dice])
    shown = Counter(int(g.dice[d, u.game_state.die_face[d]]) for d in dice)
    return any(c > 1 for c in shown.values())


def test_die_choice_decision_reveals_no_future_roll():
    """Hand-set die choice (the Dice sheet: the player chooses a die): two red 1 dice, both offered."""
    env = dice_scenario(hands=[["red 1", "red 1", "green 2"], ["blue 1", "green 5"], ["yellow 4"]], centre="red 3")
    assert _die_choice(env)
    rng = np.random.default_rng(7)
    reference = _seen(env)
    for _ in range(20):
        assert _hide_differently(env, rng)
        assert _same(_seen(env), reference)


@pytest.mark.parametrize("n,rules", [(2, None), (3, {"dice_wd4_bluff": True}), (4, {"uno_call": "auto"})])
def test_dice_decisions_reveal_no_hidden_chance(n, rules):
    rng = np.random.default_rng(2026)
    phases, choices = Counter(), 0
    for seed in range(4):
        env = make_env("dice", rules, num_players=n, seed=seed)
        u = env.unwrapped
        for _ in range(150):
            if not u.agents or u.terminations[u.agent_selection] or u.truncations[u.agent_selection]:
                break
            phases[u.game_state.phase_name] += 1
            choices += _die_choice(env)
            reference = _seen(env)
            row, prng = u.game_state.row.copy(), u.prng_state.copy()
            _hide_differently(env, rng)
            assert _same(_seen(env), reference), f"seed {seed}: hidden chance changed what a seat sees"
            u.game_state.row[:] = row
            u.prng_state[:] = prng
            u.sync_state()
            mask = u.observe(u.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert {"turn", "rerolled"} <= set(phases), phases
    assert choices > 0, "random play never reached a choice between dice showing the same face"
