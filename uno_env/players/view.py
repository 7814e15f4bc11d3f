"""What a compiled player reads of one decision: the action table's sections, the observation's one-hot blocks,
the kind table, and in UNO Dice the face each die shows.

The players read one seat's observation vector and its legal mask, nothing of the state row, as any agent does.  In
UNO Dice a play names a die; ``greedy`` and the ``heuristic`` choose a face first, as if the ``play`` /
``play_uno`` action of the face each legal die shows were legal (:func:`kind_mask`, the compiled
``ActionView.dice_as_kinds``), then a die showing it (:func:`die_for`).
"""
from __future__ import annotations

import numpy as np

from ..core import engine as E
from ..core import observe as O
from ..core._cache import track_dependencies
from ..core._jit import njit
from ..core.cards import COL_COLOUR, NO_COLOUR
from ._cache import player_sources
from .parameters import keep_at, kinds_at

track_dependencies(__file__, player_sources())


@njit(cache=True, inline="always")
def section_start(a_k, a_b, k):
    """The first action of a section of the action table (``E.A_<SECTION>_K``, ``_B``) in a game of ``k`` kinds."""
    return a_k * k + a_b


@njit(cache=True, inline="always")
def block_argmax(obs, lo, hi):
    """The index in ``obs[lo:hi]`` of a one-hot block's set entry (the first of the largest)."""
    best, at = obs[lo], 0
    for i in range(lo + 1, hi):
        if obs[i] > best:
            best, at = obs[i], i - lo
    return at


@njit(cache=True, inline="always")
def is_wild(spec, kind):
    """Whether ``kind`` is a wild (it has no colour)."""
    return spec[kind, COL_COLOUR] == NO_COLOUR


@njit(cache=True)
def dice_count(mask, spec):
    """D, from the length of the action table (A = play_die + 2 D)."""
    return (mask.shape[0] - (E.A_PLAY_DIE_K * spec.shape[0] + E.A_PLAY_DIE_B)) // 2


@njit(cache=True)
def die_kind(obs, offs, w, k, d, die):
    """The kind die ``die`` shows (``ActionView.die_kinds``: the first face flagged in the ``die_face`` block)."""
    at = offs[O.B_DIE_FACE] + 6 * die
    best, face = obs[at], 0
    for f in range(1, 6):
        if obs[at + f] > best:
            best, face = obs[at + f], f
    return int(w[kinds_at(k, d) + 6 * die + face])


@njit(cache=True)
def kind_mask(obs, mask, spec, offs, w, d, out):
    """``ActionView.dice_as_kinds``'s mask: ``mask`` with each legal ``play die i`` (+ UNO) moved to the
    ``play`` (``play_uno``) action of the kind die i shows."""
    k = spec.shape[0]
    play_die = E.A_PLAY_DIE_K * k + E.A_PLAY_DIE_B
    play_uno = E.A_PLAY_UNO_K * k + E.A_PLAY_UNO_B
    play = E.A_PLAY_K * k + E.A_PLAY_B
    for a in range(mask.shape[0]):
        out[a] = mask[a]
    for i in range(2 * d):
        a = play_die + i
        if mask[a] != 0:
            out[(play_uno if i >= d else play) + die_kind(obs, offs, w, k, d, i % d)] = 1
            out[a] = 0


@njit(cache=True)
def die_for(obs, mask, spec, offs, w, d, choice, least_worth):
    """The legal die action that plays ``choice`` (a ``play``/``play_uno`` kind action): the lowest die showing
    that kind, or with ``least_worth`` the one with the smallest ``die_keep_value`` (first on ties)."""
    k = spec.shape[0]
    play_die = E.A_PLAY_DIE_K * k + E.A_PLAY_DIE_B
    play_uno = E.A_PLAY_UNO_K * k + E.A_PLAY_UNO_B
    uno = choice >= play_uno
    kind = choice % k
    best, best_v = -1, np.inf
    for i in range(d):
        a = play_die + i + (d if uno else 0)
        if mask[a] == 0 or die_kind(obs, offs, w, k, d, i) != kind:
            continue
        if not least_worth:
            return a
        v = w[keep_at(k) + i]
        if v < best_v:
            best, best_v = a, v
    return best
