"""Calling UNO.

Rules (project rules, all games): a player must call UNO with the play that leaves it one card (option ``uno_call``:
``explicit``, the call is part of the play action, or ``auto``); one who does not is caught with probability
``uno_catch_probability`` before the next player acts and draws 2.  A hand that changes owner (``seven_zero``)
carries no penalty.
"""
from __future__ import annotations

import numpy as np

from . import common as U
from . import drawing
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .layout import *  # noqa: F403 - generated state offsets S_*, O_*, option slots C_*, phases PH_*

track_dependencies(__file__, rule_sources())


@njit(cache=True, inline="always")
def offered(st, cfg, seat):
    """Whether the plays of ``seat`` come with a "+ UNO" variant (explicit calls, two cards in hand)."""
    return cfg[C_UNO_AUTO] == 0 and st[O_HAND_N + seat] == 2


@njit(cache=True, inline="always")
def on_play(st, cfg, seat, call_uno):
    """Record ``seat``'s UNO call (or the missed call) when its play leaves one card (compiled)."""
    if st[O_HAND_N + seat] == 2:
        if call_uno or cfg[C_UNO_AUTO] == 1:
            st[O_CALLED + seat] = 1
        else:
            st[S_UNO_MISSED] = seat


@njit(cache=True)
def catch(st, cfg, spec, dice, rng, seat):
    """The player who left itself on one card without calling UNO is caught before the next player acts."""
    if st[S_UNO_MISSED] == seat:
        st[S_UNO_MISSED] = -1
        if st[O_HAND_N + seat] == 1 and st[O_CALLED + seat] == 0:
            if np.int64(U.next_u64(rng) >> np.uint64(32)) < cfg[C_CATCH_THRESHOLD]:
                drawing.draw_many(st, cfg, spec, dice, rng, seat, 2)


@njit(cache=True)
def forgive(st):
    """Hands changed owner: nobody is caught for a missed call."""
    st[S_UNO_MISSED] = -1
