"""The base every rule family stands on (no rule of its own): the PRNG, wide fields, seat arithmetic and sets of
kinds, plus the mask readers the compiled players share.

A game's randomness is one splitmix64 word per game (``rng``), so a game's stream never depends on its batch.
Moving cards and dice is ``moves``; what may be played is ``matching``; the UNO call that every change of a hand's
size updates is ``uno``.
"""
from __future__ import annotations

import numpy as np
from numba.core.extending import overload
from numba.cpython.unsafe.numbers import trailing_zeros

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .cards import COL_COLOUR, COL_POINTS, COL_SYMBOL, WILD_DRAW_FOUR, WILD_DRAW_TWO
from .facts import draw_amount as draw_amount  # re-exported: the compiled players read it here
from .layout import (
    C_K,
    C_NP,
    MAX_KINDS,
    O_HAND,
    PH_TURN,
    S_CUR,
    S_DIR,
    S_DRAWN,
    S_DRAWN_DIE,
    S_PHASE,
    S_PLAYED,
    WIDE_BITS,
)

track_dependencies(__file__, rule_sources())


# ---------------------------------------------------------------------------------------------- wide fields
@njit(cache=True, inline="always")
def get_wide(st, off):
    """The value of the wide field (``layout.Field.wide``) whose entries start at ``off`` (compiled)."""
    return (np.int64(st[off + 1]) << WIDE_BITS) | np.int64(st[off])


@njit(cache=True, inline="always")
def set_wide(st, off, value):
    """Store ``value`` in the wide field at ``off``: the low ``WIDE_BITS`` bits, then the rest (compiled)."""
    v = np.int64(value)
    st[off] = v & ((1 << WIDE_BITS) - 1)
    st[off + 1] = v >> WIDE_BITS


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


@njit(cache=True, inline="always")
def colour_of(spec, kind):
    """The colour of card kind ``kind`` (compiled)."""
    return spec[kind, COL_COLOUR]
