"""No Python input crashes the process or hangs it: every index that reaches compiled code is checked first.

The reproducers run in a child process (all in one, to pay the import once), so a segmentation fault or a hang
fails these tests instead of killing pytest.  Each prints the exception it got; the tests check the messages.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from uno_env.core import engine as E
from uno_env.vector import UnoSingleAgentVectorEnv, UnoVectorEnv

CHILD = textwrap.dedent('''
    import json, sys
    import numpy as np
    from uno_env.core import engine as E
    from uno_env.vector import UnoSingleAgentVectorEnv, UnoVectorEnv

    results = {}

    def attempt(name, fn):
        try:
            fn()
            results[name] = "no error"
        except Exception as exc:  # the point: a Python exception, whatever it is, and not a dead process
            results[name] = f"{type(exc).__name__}: {exc}"
        print(name, "->", results[name], file=sys.stderr, flush=True)

    env = UnoVectorEnv("classic", num_envs=4, seed=0)
    env.reset()
    attempt("observe_huge_row", lambda: env.observe(0, rows=[10**7]))
    attempt("observe_row_B", lambda: env.observe(0, rows=[4]))
    attempt("observe_negative_row", lambda: env.observe(0, rows=[-1]))
    attempt("observe_float_rows", lambda: env.observe(0, rows=[1.5]))
    attempt("observe_bad_seat", lambda: env.observe(7, rows=[0]))
    attempt("step_huge_row", lambda: env.step(np.zeros(1, dtype=np.int64), rows=[10**7]))
    attempt("state_dict_negative", lambda: env.state_dict(-1))

    def bad_seat_refresh():
        env.state_view.cur[1] = 10**4
        try:
            env.refresh()
        finally:
            env.state_view.cur[1] = 0
    attempt("refresh_bad_seat", bad_seat_refresh)

    def value_past_the_entries():  # numpy refuses it at the assignment: the row never holds it
        before = env.states.copy()
        try:
            env.state_view.cur[1] = 10**6
        finally:
            assert np.array_equal(env.states, before)
    attempt("edit_past_int16", value_past_the_entries)

    def bad_top_refresh():
        saved = env.states.copy()
        env.state_view.top[2] = -5
        try:
            env.refresh()
        finally:
            env.states[:] = saved
    attempt("refresh_bad_top", bad_top_refresh)

    def bad_pile_refresh():
        saved = env.states.copy()
        env.states[0, E.S_DRAW_N] = 30_000  # the largest pile size a row can hold (int16), far past any game
        try:
            env.refresh()
        finally:
            env.states[:] = saved
    attempt("refresh_huge_pile", bad_pile_refresh)

    def bad_restore():
        snap = list(env.snapshot())
        snap[0] = snap[0].copy()
        snap[0][3, E.S_PHASE] = 99
        env.restore(tuple(snap))
    attempt("restore_bad_phase", bad_restore)
    attempt("restore_wrong_shape", lambda: env.restore((np.zeros(3),)))

    dice = UnoVectorEnv("dice", num_envs=2, seed=0)
    dice.reset()
    def dice_bag():
        saved = dice.states.copy()
        dice.states[0, E.S_DRAW_N] = 500
        try:
            dice.refresh()
        finally:
            dice.states[:] = saved
    attempt("dice_refresh_huge_bag", dice_bag)

    def dice_check_invariants():
        saved = dice.states.copy()
        dice.states[1, E.S_DRAW_N] = 30_000
        try:
            print("bad games:", dice.check_invariants().tolist(), file=sys.stderr)
            assert dice.check_invariants().tolist() == [1]
        finally:
            dice.states[:] = saved
    attempt("dice_check_invariants_huge_bag", dice_check_invariants)

    def hand_size_refresh():
        saved = env.states.copy()
        env.states[1, E.O_HAND_N + 1] = -7
        try:
            env.refresh()
        finally:
            env.states[:] = saved
    attempt("refresh_negative_hand_size", hand_size_refresh)
    attempt("after_errors_still_steps", lambda: env.step(np.array(
        [int(np.flatnonzero(m)[0]) for m in env.masks])) and env.refresh())

    attempt("learner_never_acts", lambda: UnoSingleAgentVectorEnv(
        "classic", 4, num_players=3, rules={"max_turns": 1}, learner_seat=2).reset())
    attempt("learner_never_acts_policy", lambda: UnoSingleAgentVectorEnv(
        "classic", 2, num_players=4, rules={"max_turns": 1}, learner_seat=3, opponents="greedy").reset())
    print(json.dumps(results))
''')


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"the child process died (status {proc.returncode}):\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name, words", [
    ("observe_huge_row", ["ValueError", "10000000", "[0, 4)"]),
    ("observe_row_B", ["ValueError", "4 is out of range [0, 4)"]),
    ("observe_negative_row", ["ValueError", "-1"]),
    ("observe_float_rows", ["ValueError", "integer"]),
    ("observe_bad_seat", ["ValueError", "seats"]),
    ("step_huge_row", ["ValueError", "10000000"]),
    ("state_dict_negative", ["ValueError", "[0, 4)"]),
    ("refresh_bad_seat", ["ValueError", "game 1", "'cur'", "10000"]),
    ("edit_past_int16", ["OverflowError", "1000000", "int16"]),
    ("refresh_bad_top", ["ValueError", "game 2", "'top'", "-5"]),
    ("refresh_huge_pile", ["ValueError", "game 0", "'draw_n'"]),
    ("restore_bad_phase", ["ValueError", "game 3", "phase", "99", "nothing was restored"]),
    ("restore_wrong_shape", ["ValueError", "snapshot"]),
    ("dice_refresh_huge_bag", ["ValueError", "game 0", "'draw_n'"]),
    ("after_errors_still_steps", ["no error"]),
    ("dice_check_invariants_huge_bag", ["no error"]),
    ("refresh_negative_hand_size", ["ValueError", "game 1", "'hand_n'", "-7"]),
    ("learner_never_acts", ["ValueError", "learner_seat", "[2]", "max_turns=1"]),
    ("learner_never_acts_policy", ["ValueError", "learner_seat", "[3]"]),
])
def test_bad_input_is_a_clear_error(outcomes, name, words):
    got = outcomes[name]
    for w in words:
        assert w in got, f"{name}: {got!r} lacks {w!r}"


def test_refresh_error_leaves_masks_untouched():
    env = UnoVectorEnv("pocket", num_envs=3, seed=1)
    env.reset()
    masks, seats = env.masks.copy(), env.seats.copy()
    saved = env.states[0, E.S_CUR]
    env.states[0, E.S_CUR] = -3
    with pytest.raises(ValueError, match="field 'cur'"):
        env.refresh()
    np.testing.assert_array_equal(env.masks, masks)
    np.testing.assert_array_equal(env.seats, seats)
    env.states[0, E.S_CUR] = saved
    env.refresh()


@pytest.mark.parametrize("game, rules", [
    ("classic", {"seven_zero": True, "jump_in": True, "stacking": True, "num_players": 4}),
    ("classic", {"wd4_challenge": True, "uno_call": "explicit"}),
    ("pocket", {"num_players": 3}),
    ("dice", {"num_players": 3}),
])
def test_every_reachable_state_passes_the_row_check(game, rules):
    """The row check must never refuse a state the game itself reaches (refresh() and restore() run it)."""
    env = UnoVectorEnv(game, num_envs=8, rules=rules, seed=3)
    env.reset()
    rng = np.random.default_rng(0)
    for step in range(600):
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.masks]))
        if step % 7 == 0:
            env.refresh()
            env.restore(env.snapshot())


def test_learner_that_can_act_is_accepted():
    env = UnoSingleAgentVectorEnv("classic", 4, num_players=3, rules={"max_turns": 1}, learner_seat=0)
    env.reset(seeds=0)
    assert (env.masks.sum(axis=1) > 0).all()
