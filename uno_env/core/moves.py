"""Moving cards and dice: into and out of the hands, onto the discard pile (the centre die), out of the draw pile
(the bag), and the reshuffle of an empty draw pile.  No rule decides anything here; the rule families say what
moves where, and every change of a hand's size goes through ``uno.set_hand_n``.

Rules the moves follow (project rules, all games): an empty draw pile is refilled by shuffling the discard pile
except its top card; if that is empty too, the draw yields fewer cards.  UNO Dice (its rule sheet): a die drawn from the
bag is rolled into the drawer's hand; a played die becomes the centre die and the one it replaces goes back into the
bag.
"""
from __future__ import annotations

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .common import below, hand_at, shuffle
from .facts import plays_dice
from .layout import (
    C_NUM_DICE,
    LOC_BAG,
    LOC_CENTRE,
    O_DIE_FACE,
    O_DIE_LOC,
    O_DISC,
    O_DISC_COUNT,
    O_DRAW,
    O_HAND_N,
    S_DISC_N,
    S_DRAW_N,
    S_DRAWN_DIE,
    S_TOP,
)
from .uno import set_hand_n

track_dependencies(__file__, rule_sources())


# ---------------------------------------------------------------------------------------------- hands
@njit(cache=True)
def remove_from_hand(st, seat, kind):
    """Take one card of ``kind`` from ``seat``'s hand (compiled)."""
    st[hand_at(seat, kind)] -= 1
    set_hand_n(st, seat, st[O_HAND_N + seat] - 1)


@njit(cache=True)
def add_to_hand(st, seat, kind):
    """Put one card of ``kind`` into ``seat``'s hand (compiled)."""
    st[hand_at(seat, kind)] += 1
    set_hand_n(st, seat, st[O_HAND_N + seat] + 1)


@njit(cache=True)
def die_in_hand(st, cfg, dice, seat, kind):
    """The lowest-id die of ``seat`` showing face ``kind``, or -1 (compiled)."""
    for die in range(cfg[C_NUM_DICE]):
        if st[O_DIE_LOC + die] == seat and dice[die, st[O_DIE_FACE + die]] == kind:
            return die
    return -1


# ---------------------------------------------------------------------------------------------- the discard pile
@njit(cache=True)
def put_on_top(st, cfg, dice, seat, kind, die):
    """The played card becomes the top of the discard; a played die becomes the centre die."""
    if plays_dice(cfg):
        if die < 0:
            die = die_in_hand(st, cfg, dice, seat, kind)
        old = st[O_DISC]
        st[O_DIE_LOC + old] = LOC_BAG
        st[O_DRAW + st[S_DRAW_N]] = old
        st[S_DRAW_N] += 1
        st[O_DIE_LOC + die] = LOC_CENTRE
        st[O_DISC] = die
        st[O_DISC_COUNT + st[S_TOP]] -= 1
    else:
        st[O_DISC + st[S_DISC_N]] = kind
        st[S_DISC_N] += 1
    st[O_DISC_COUNT + kind] += 1
    st[S_TOP] = kind


# ---------------------------------------------------------------------------------------------- drawing
@njit(cache=True)
def reshuffle(st, rng):
    """The discard pile except its top card, shuffled, becomes the draw pile; False when there is nothing to
    reshuffle."""
    m = st[S_DISC_N] - 1
    if m <= 0:
        return False
    for i in range(m):
        st[O_DRAW + i] = st[O_DISC + i]
        st[O_DISC_COUNT + st[O_DISC + i]] -= 1
    st[O_DISC] = st[O_DISC + m]
    st[S_DISC_N] = 1
    st[S_DRAW_N] = m
    shuffle(st, O_DRAW, m, rng)
    return True


@njit(cache=True)
def draw_die(st, cfg, dice, rng, seat):
    """A random die from the bag, rolled into ``seat``'s hand; its kind, or -1 when the bag is empty."""
    n = st[S_DRAW_N]
    if n == 0:
        return -1
    j = below(rng, n)
    die = st[O_DRAW + j]
    st[O_DRAW + j] = st[O_DRAW + n - 1]
    st[S_DRAW_N] = n - 1
    face = below(rng, 6)
    st[O_DIE_LOC + die] = seat
    st[O_DIE_FACE + die] = face
    kind = dice[die, face]
    add_to_hand(st, seat, kind)
    st[S_DRAWN_DIE] = die
    return kind


@njit(cache=True)
def draw_one(st, cfg, dice, rng, seat):
    """Move one card (or a rolled die) from the draw pile/bag into ``seat``'s hand; -1 when there is none."""
    if plays_dice(cfg):
        return draw_die(st, cfg, dice, rng, seat)
    if st[S_DRAW_N] == 0 and not reshuffle(st, rng):
        return -1
    n = st[S_DRAW_N] - 1
    kind = st[O_DRAW + n]
    st[S_DRAW_N] = n
    add_to_hand(st, seat, kind)
    return kind


@njit(cache=True)
def draw_many(st, cfg, dice, rng, seat, n):
    """``seat`` draws ``n`` cards (dice), fewer if the piles run out (compiled)."""
    for _ in range(n):
        if draw_one(st, cfg, dice, rng, seat) < 0:
            break
