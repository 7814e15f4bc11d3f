"""Calling UNO: the only writer of the UNO-call state (``called``, ``uno_missed``).

Rules (project rules, all games): a player must call UNO with the play that leaves it one card (option ``uno_call``:
``explicit``, the call is part of the play action, or ``auto``); one who does not is caught with probability
``uno_catch_probability`` before the next player acts and draws 2 (``facts.UNO_PENALTY``).  A call holds while the
hand stays at one card.  A hand that changes owner (``seven_zero``) carries no penalty and no call.

Every change of a hand's size goes through :func:`set_hand_n` (the card moves of ``moves`` call it), so this module
sits below the card moves; it decides whether a player is caught and leaves the drawing to the turn.
"""
from __future__ import annotations

import numpy as np

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .common import next_u64
from .layout import C_CATCH_THRESHOLD, C_UNO_AUTO, MAX_PLAYERS, O_CALLED, O_HAND_N, S_UNO_MISSED

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
def set_hand_n(st, seat, n):
    """Set ``seat``'s hand size; a hand that is not down to one card loses its UNO call (compiled)."""
    st[O_HAND_N + seat] = n
    if n != 1:
        st[O_CALLED + seat] = 0


@njit(cache=True)
def caught(st, cfg, rng, seat):
    """Whether ``seat``, which left itself on one card without calling UNO, is caught now, before the next player
    acts (it then draws ``facts.UNO_PENALTY``); the missed call is settled either way (compiled)."""
    if st[S_UNO_MISSED] == seat:
        st[S_UNO_MISSED] = -1
        if st[O_HAND_N + seat] == 1 and st[O_CALLED + seat] == 0:
            return np.int64(next_u64(rng) >> np.uint64(32)) < cfg[C_CATCH_THRESHOLD]
    return False


@njit(cache=True)
def forgive(st):
    """Hands changed owner: nobody is caught for a missed call."""
    st[S_UNO_MISSED] = -1


@njit(cache=True, inline="always")
def drop_call(st, seat):
    """``seat``'s hand changed owner: the call made for the old hand does not hold for it (compiled)."""
    st[O_CALLED + seat] = 0


@njit(cache=True, inline="always")
def call_with_dip(st, seat):
    """Wild Dip Into Deck: an UNO call made with the Dip (drawing cleared it) counts once the give leaves one card
    (project rules, all games: one card left "after drawing and giving"), unless the call was missed (compiled)."""
    if st[O_HAND_N + seat] == 1 and st[S_UNO_MISSED] != seat:
        st[O_CALLED + seat] = 1


@njit(cache=True)
def clear_calls(st):
    """A new round: no call made, none missed (compiled)."""
    for seat in range(MAX_PLAYERS):
        st[O_CALLED + seat] = 0
    st[S_UNO_MISSED] = -1
