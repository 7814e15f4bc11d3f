"""The compiled players' work arrays: where each of their per-decision tables lives in the three arrays their
caller hands them (:func:`baseline_scratch`).

The players (``card_heuristic``, ``dice_heuristic``, ``greedy``) used to allocate these small arrays on every decision.
Allocating needs numba's reference counting, and with it every array passed to every helper pays an atomic
increment and decrement of its counter (``_jit.py``); the search plays the heuristic on each of its millions of
rollout steps.  Given their work arrays, the players compile without reference counting.  The tables are written
before they are read on every decision, so nothing carries over from one decision to the next, except the card
heuristic's tables of the game's kinds (``KT_*``), filled at the first decision of a set of work arrays.
"""
from __future__ import annotations

import numpy as np

from ..core._cache import track_dependencies
from ..core._jit import njit_refcounted
from ..core.layout import MAX_KINDS
from ._cache import player_sources

track_dependencies(__file__, player_sources())

NSYM = 20  # symbols are 0..17 (cards.py)
TAB_LEN = 5  # the card heuristic's ``tab``: unseen cards per colour, unseen wilds

# float64 ``fw``: the card heuristic's unseen counts, match tables and colour sums; the dice heuristic's hand,
# hand after a play and the terms of a sum
F_UNSEEN = 0
F_TAB = F_UNSEEN + MAX_KINDS
F_COUNTS = F_TAB + TAB_LEN
F_PTS = F_COUNTS + 4
F_GUILT = F_PTS + 4
F_DICE_HAND = F_GUILT + 4
F_DICE_REST = F_DICE_HAND + MAX_KINDS
F_DICE_SUM = F_DICE_REST + MAX_KINDS
F_LEN = F_DICE_SUM + 4 * MAX_KINDS
# int64 ``iw``: the card heuristic's hand, its coloured cards per colour and per symbol, the kinds it may play, the
# tables of the kinds
I_HAND = 0
I_BY_COLOUR = I_HAND + MAX_KINDS
I_BY_SYMBOL = I_BY_COLOUR + 4
I_PLAYS = I_BY_SYMBOL + NSYM
I_KINDS = I_PLAYS + MAX_KINDS
# the card heuristic's tables of the game's kinds, ``iw[I_KINDS:]``: copies per kind, colour per kind (contiguous,
# unlike the kind table's columns), the kind of each colour and symbol (-1: none), and whether they are filled
KT_COUNT = 0
KT_COLOUR = KT_COUNT + MAX_KINDS
KT_AT = KT_COLOUR + MAX_KINDS
KT_READY = KT_AT + 4 * NSYM
KT_LEN = KT_READY + 1
I_LEN = I_KINDS + KT_LEN
# int8 ``bw``: which kinds are playable (with the UNO call), then UNO Dice's per-kind mask (the action count long)
B_PLAYABLE = 0
B_UNO_OK = B_PLAYABLE + MAX_KINDS
B_KIND_MASK = B_UNO_OK + MAX_KINDS


@njit_refcounted(cache=True)
def baseline_scratch(num_actions):
    """``(fw, iw, bw)``: the work arrays every compiled player of a game with ``num_actions`` actions takes (one
    set per thread of calls, for one game: the card heuristic fills its tables of the game's kinds at its first
    decision and reads them at the next)."""
    return (np.zeros(F_LEN, dtype=np.float64), np.zeros(I_LEN, dtype=np.int64),
            np.zeros(B_KIND_MASK + num_actions, dtype=np.int8))
