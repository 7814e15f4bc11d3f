"""Machinery every rule family shares (no rule of its own): the PRNG, seat arithmetic and moving cards.

A game's randomness is one splitmix64 word per game (``rng``), so a game's stream never depends on its batch.
"""
from __future__ import annotations

import numpy as np
from numba.core.extending import overload
from numba.cpython.unsafe.numbers import trailing_zeros

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .cards import COL_COLOUR, COL_POINTS, COL_SYMBOL, DRAW_ONE, DRAW_TWO, WILD_DRAW_FOUR, WILD_DRAW_TWO
from .layout import *  # noqa: F403 - the generated state offsets S_*, O_*, option slots C_*, phases PH_*

track_dependencies(__file__, rule_sources())


# ---------------------------------------------------------------------------------------------- wide fields
@njit(cache=True, inline="always")
def get_wide(st, off):
    """The value of the wide field (``layout.Field.wide``) whose entries start at ``off`` (compiled)."""
    return (np.int64(st[off + 1]) << WIDE_BITS) | np.int64(st[off])  # noqa: F405


@njit(cache=True, inline="always")
def set_wide(st, off, value):
    """Store ``value`` in the wide field at ``off``: the low ``WIDE_BITS`` bits, then the rest (compiled)."""
    v = np.int64(value)
    st[off] = v & ((1 << WIDE_BITS) - 1)  # noqa: F405
    st[off + 1] = v >> WIDE_BITS  # noqa: F405


# ---------------------------------------------------------------------------------------------- PRNG
@njit(cache=True, inline="always")
def next_u64(rng):
    """The next 64-bit output of the game's splitmix64 PRNG word ``rng[0]`` (compiled)."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def below(rng, n):
    # Lemire's multiply-shift on the high 32 bits: bias below 2**-32 * n, irrelevant for n <= 128
    """A uniform integer in ``[0, n)`` from the game's PRNG (compiled)."""
    return np.int64(((next_u64(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def random_legal(mask, na, rng):
    """A uniformly random legal action among the first ``na`` entries of ``mask`` (-1 if none), from the PRNG
    ``rng``: the random opponent inside the batch kernel and the random rollout of the search (compiled)."""
    n = 0
    for a in range(na):
        n += mask[a]
    if n == 0:
        return -1
    j = below(rng, n)
    # Groups of 16 entries holding j or fewer legal actions are skipped whole (counted without a branch per
    # entry): UNO Dice's legal plays sit at the end of its 181 actions.  The action chosen is the same.
    a = 0
    while a + 16 <= na:
        c = 0
        for t in range(16):
            c += mask[a + t] != 0
        if j < c:
            break
        j -= c
        a += 16
    while a < na:
        if mask[a] != 0:
            if j == 0:
                return a
            j -= 1
        a += 1
    return -1


@njit(cache=True, inline="always")
def first_legal(mask, start):
    """The lowest legal action of ``mask`` from ``start`` on (-1: none).  The compiled heuristics ask for a first
    and a second legal action with two scans that stop early: counting the legal actions while looking for the
    first chained every step of one loop through a conditional move (profiled: a tenth of a heuristic rollout's
    time)."""
    for a in range(start, mask.shape[0]):
        if mask[a] != 0:
            return a
    return -1


@njit(cache=True, inline="always")
def playable_kinds(mask, k, colour_a, play_uno, playable, uno_ok):
    """Which of the ``k`` kinds (cards, or dice faces) the play actions below ``colour_a`` offer: ``playable`` and
    ``uno_ok`` (playable while calling UNO, the actions from ``play_uno`` on) are filled; returns whether any play
    is legal.  The compiled heuristics of the card games and of UNO Dice read the mask this way."""
    playable[:] = False
    uno_ok[:] = False
    any_play = False
    for a in range(colour_a):
        if mask[a] != 0:
            playable[a % k] = True
            any_play = True
            if a >= play_uno:
                uno_ok[a % k] = True
    return any_play


@njit(cache=True)
def seed_rng(rng, seed):
    """Set the game's splitmix64 PRNG word ``rng[0]`` from ``seed`` (compiled)."""
    rng[0] = np.uint64(seed)
    next_u64(rng)


@njit(cache=True)
def shuffle(st, start, n, rng):
    """Shuffle ``st[start:start + n]`` in place with the game's PRNG (Fisher-Yates; compiled)."""
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        t = st[start + i]
        st[start + i] = st[start + j]
        st[start + j] = t


@njit(cache=True, inline="always")
def offer_play(mask, k, kind, uno_offered):
    """Mark playing ``kind`` legal, with its UNO-call twin when the call is offered; the number of actions marked."""
    mask[kind] = 1
    if uno_offered:
        mask[k + kind] = 1
        return 2
    return 1


# ---------------------------------------------------------------------------------------------- sets of kinds
assert MAX_KINDS <= 63, "a set of kinds is the bits of an int64"


@njit(cache=True, inline="always")
def kinds_held(counts, k):
    """The kinds ``0..k-1`` with a positive count in ``counts`` (a hand), as the bits of an int64.  The loop has
    no branch and compiles to vector code; walking the set (:func:`lowest_kind`) then visits the held kinds only.
    A loop over all kinds that tests each (most are not held) mispredicted about one branch per held kind."""
    bits = 0
    for kind in range(k):
        bits |= np.int64(counts[kind] > 0) << kind
    return bits


def lowest_kind(bits):
    """The lowest kind in the non-empty set ``bits`` (compiled: one instruction)."""
    return (int(bits) & -int(bits)).bit_length() - 1


# numba hands jit_options to jit(), which takes cache; its type stubs leave the key out
@overload(lowest_kind, jit_options={"cache": True})  # type: ignore[typeddict-unknown-key]
def _lowest_kind(bits):
    return lambda bits: trailing_zeros(bits)


# ---------------------------------------------------------------------------------------------- seats
@njit(cache=True, inline="always")
def hand_at(seat, kind):
    """Offset of ``seat``'s count of ``kind``."""
    return O_HAND + seat * MAX_KINDS + kind


@njit(cache=True, inline="always")
def next_seat(st, cfg, seat, steps):
    """The seat ``steps`` places after ``seat`` in the current direction of play (compiled)."""
    np_ = cfg[C_NP]
    return (seat + steps * st[S_DIR] + 2 * np_) % np_


@njit(cache=True)
def begin_turn(st, cfg, seat):
    """Give ``seat`` a fresh normal turn (compiled)."""
    st[S_CUR] = seat
    st[S_PHASE] = PH_TURN
    st[S_DRAWN] = -1
    st[S_DRAWN_DIE] = -1
    st[S_PLAYED] = 0


# ---------------------------------------------------------------------------------------------- cards
@njit(cache=True, inline="always")
def draw_amount(sym):
    """Cards a draw card makes its victim draw; 0 for any other symbol."""
    if sym == WILD_DRAW_FOUR:
        return 4
    if sym == DRAW_TWO or sym == WILD_DRAW_TWO:
        return 2
    if sym == DRAW_ONE:
        return 1
    return 0


@njit(cache=True, inline="always")
def is_restricted_wild(spec, kind):
    """Whether card kind ``kind`` is a Wild Draw Four or Wild Draw 2, the wilds with a legality rule (compiled)."""
    sym = spec[kind, COL_SYMBOL]
    return sym == WILD_DRAW_FOUR or sym == WILD_DRAW_TWO


@njit(cache=True)
def hand_points(st, cfg, spec, seat):
    """The scoring value of ``seat``'s hand: numbers at face value, coloured actions 20, wilds 50 (compiled)."""
    total = 0
    for kind in range(cfg[C_K]):
        total += st[hand_at(seat, kind)] * spec[kind, COL_POINTS]
    return total


@njit(cache=True)
def set_hand_n(st, seat, n):
    """Set ``seat``'s hand size; a hand that is not down to one card loses its UNO call (compiled)."""
    st[O_HAND_N + seat] = n
    if n != 1:
        st[O_CALLED + seat] = 0


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


@njit(cache=True)
def put_on_top(st, cfg, dice, seat, kind, die):
    """The played card becomes the top of the discard; a played die becomes the centre die."""
    if cfg[C_GAME] == GAME_DICE:
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


@njit(cache=True, inline="always")
def colour_of(spec, kind):
    """The colour of card kind ``kind`` (compiled)."""
    return spec[kind, COL_COLOUR]
