"""Invariants after every step over many random games: every game, player count and option set.

The soak runs in the compiled core (``uno_env.core.invariants``): ~20,000 games in the default run.  Each game
checks, after every step, card/die conservation (each physical card or die in exactly one place), no negative
counts, hand sizes, the top card, a non-empty mask for the acting seat, rewards summing to zero, and that the
game ends or truncates within ``max_turns``.
"""
from __future__ import annotations

import numpy as np
import pytest

from uno_env.config import RuleConfig
from uno_env.core import invariants as I
from uno_env.core.game import Game
from uno_env.core.layout import StateView

HOUSE = dict(stacking=True, seven_zero=True, jump_in=True, force_play=True)
# (game, options, games, play_bias): bias 0 = uniform random; games with long random play get fewer seeds
CONFIGS = [
    ("classic", dict(num_players=2), 1500, 0.0),
    ("classic", dict(num_players=2), 1500, 0.9),
    ("classic", dict(num_players=3, uno_catch_probability=0.5), 1000, 0.8),
    ("classic", dict(num_players=4, **HOUSE), 1000, 0.8),
    ("classic", dict(num_players=7, draw_until_playable=True, first_wild="choose_colour"), 600, 0.8),
    ("classic", dict(num_players=10, wd4_legality="any_playable", uno_call="auto"), 400, 0.8),
    ("classic", dict(num_players=3, episode="match", reward="points", max_turns=20000), 300, 0.9),
    ("classic", dict(num_players=5, wd4_challenge=False, voluntary_draw=False, **HOUSE), 800, 0.5),
    ("classic", dict(preset="rlcard"), 5000, 0.0),
    ("pocket", dict(num_players=2), 1500, 0.0),
    ("pocket", dict(num_players=3, extra_wild=True), 1000, 0.8),
    ("pocket", dict(num_players=4, **HOUSE), 800, 0.8),
    ("pocket", dict(num_players=5, episode="match", reward="points", max_turns=20000), 300, 0.9),
    ("dice", dict(num_players=2), 2500, 0.0),
    ("dice", dict(num_players=3, dice_wd4_bluff=True), 1500, 0.5),
    ("dice", dict(num_players=4, episode="match", reward="points"), 600, 0.5),
    # die choice and the take-back after a guilty Wild Draw Four, with the UNO penalty drawing from the bag
    ("dice", dict(num_players=2, dice_wd4_bluff=True, uno_catch_probability=1.0), 1500, 0.6),
    ("dice", dict(num_players=4, dice_wd4_bluff=True, uno_call="auto", episode="match", reward="points",
                  uno_catch_probability=0.5, target_score=200), 300, 0.7),
]


def _run(game, options, num_games, bias, seed_base):
    options = dict(options)
    preset = options.pop("preset", None)
    g = Game(RuleConfig.make(game, preset, **options))
    seeds = np.arange(seed_base, seed_base + num_games, dtype=np.int64) * 7919 + 1
    out = np.zeros((num_games, 2), dtype=np.int64)
    I.soak(g.cfg, g.spec, g.dice, seeds, bias, out)
    return g, seeds, out


@pytest.mark.parametrize("game,options,num_games,bias", CONFIGS, ids=lambda v: str(v))
def test_invariants_hold_after_every_step(game, options, num_games, bias):
    g, seeds, out = _run(game, options, num_games, bias, seed_base=1000)
    failed = np.flatnonzero(out[:, 1])
    assert failed.size == 0, (
        f"{failed.size} games broke an invariant; first: seed {seeds[failed[0]]} at step {out[failed[0], 0]}: "
        f"{I.FAILURE_NAMES[out[failed[0], 1]]}"
    )
    assert (out[:, 0] > 0).all()


def test_soak_covers_at_least_20000_games():
    assert sum(c[2] for c in CONFIGS) >= 20000


def test_checker_catches_a_lost_card():
    """The checker itself must be able to fail: remove one card from a hand and expect a conservation error."""
    from uno_env.core import engine as E

    g = Game(RuleConfig.make("classic"))
    st, rng = g.new_states(1)
    E.reset_one(st[0], rng[0], g.cfg, g.spec, g.dice, 3)
    assert I.check_state(st[0], g.cfg, g.spec, g.dice) == 0
    view = StateView(st[0])
    kind = int(np.flatnonzero(view.hand[0, : g.num_kinds])[0])
    view.hand[0, kind] -= 1
    view.hand_n[0] -= 1
    assert I.check_state(st[0], g.cfg, g.spec, g.dice) == I.BAD_CONSERVATION
    view.hand_n[0] += 5
    assert I.check_state(st[0], g.cfg, g.spec, g.dice) == I.BAD_HAND_SIZE


def test_checker_catches_a_duplicated_die():
    from uno_env.core import engine as E

    g = Game(RuleConfig.make("dice"))
    st, rng = g.new_states(1)
    E.reset_one(st[0], rng[0], g.cfg, g.spec, g.dice, 3)
    assert I.check_state(st[0], g.cfg, g.spec, g.dice) == 0
    view = StateView(st[0])
    in_hand = int(np.flatnonzero(view.die_loc[: g.dice.shape[0]] == 0)[0])
    view.draw[view.draw_n] = in_hand  # the same die also listed in the bag
    view.draw_n += 1
    assert I.check_state(st[0], g.cfg, g.spec, g.dice) == I.BAD_CONSERVATION


@pytest.mark.slow
@pytest.mark.parametrize("game,options,num_games,bias", CONFIGS, ids=lambda v: str(v))
def test_invariants_soak_long(game, options, num_games, bias):
    _, seeds, out = _run(game, options, num_games * 10, bias, seed_base=10**6)
    assert not out[:, 1].any(), I.FAILURE_NAMES[out[np.flatnonzero(out[:, 1])[0], 1]]


def test_checker_catches_a_broken_take_back_record():
    """UNO Dice: a Wild Draw Four to take back must be the centre die, with the die it replaced recorded."""
    from uno_env.core import engine as E

    g = Game(RuleConfig.make("dice", dice_wd4_bluff=True))
    st, rng = g.new_states(1)
    E.reset_one(st[0], rng[0], g.cfg, g.spec, g.dice, 5)
    view = StateView(st[0])
    assert I.check_state(st[0], g.cfg, g.spec, g.dice) == 0
    bagged = int(view.draw[0])
    view.wd_die, view.wd_prev_die, view.wd_prev_face, view.wd_prev_colour = bagged, int(view.disc[0]), 0, 0
    assert I.check_state(st[0], g.cfg, g.spec, g.dice) == I.BAD_FIELD  # the die to take back is not in the centre
    view.wd_die = int(view.disc[0])
    assert I.check_state(st[0], g.cfg, g.spec, g.dice) == I.BAD_FIELD  # it replaced itself
    view.wd_prev_die = bagged
    assert I.check_state(st[0], g.cfg, g.spec, g.dice) == 0
    view.wd_prev_colour = -1
    assert I.check_state(st[0], g.cfg, g.spec, g.dice) == I.BAD_FIELD  # half a record
