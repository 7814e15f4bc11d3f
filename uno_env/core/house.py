"""House rules (classic and pocket; all off by default, each a rules option; the docs' rules table).

* ``stacking``: the victim of a draw card may answer it with a draw card and the penalty passes on, growing
  (the earlier card can then no longer be challenged).  ``same``: the same symbol only (Draw Two on Draw Two,
  Wild Draw Four on Wild Draw Four); ``any``: any draw card (a Draw Two answers a Wild Draw Four and the
  reverse).  A Wild Draw Four / Wild Draw 2 answer still obeys its legality (``wilds``).
* ``seven_zero``: a 7 swaps hands with a chosen player; a 0 passes every hand on in the play direction.
* ``jump_in``: after a play, every other seat in turn order is asked whether it plays a card identical to the
  top card (any coloured card: a number, Skip, Reverse, Draw Two / Draw One; not a 7 or 0 under ``seven_zero``)
  out of turn; play continues from the jumper.  The window opens before the card's effect has reached anyone,
  so a jump-in takes the effect over: the jumped-on card's Skip never happens, its draw penalty is withdrawn
  and its Reverse undone, and the jumper's identical card then takes its effect from the jumper's seat (a Skip
  skips the seat after the jumper, a Draw Two hits it, a Reverse turns play back from the jumper).
* ``force_play`` lives with the drawn card (``drawing``).
"""
from __future__ import annotations

import numpy as np

from ._cache import rule_sources, track_dependencies
from ._jit import njit, njit_refcounted
from .actions import A_PASS_B, A_PASS_K, A_SWAP_B, A_SWAP_K
from .cards import COL_COLOUR, COL_SYMBOL, NO_COLOUR, REVERSE, SKIP
from .common import hand_at, next_seat, offer_play
from .facts import draw_amount
from .layout import (
    C_JUMP_IN,
    C_K,
    C_NP,
    C_SEVEN_ZERO,
    C_STACKING,
    MAX_KINDS,
    MAX_PLAYERS,
    O_HAND_N,
    PH_JUMP,
    PH_SWAP,
    S_CUR,
    S_DIR,
    S_JUMP_FROM,
    S_PENDING,
    S_PENDING_SYM,
    S_PHASE,
    S_PLAYED,
    S_TOP,
)
from .matching import restriction_allows
from .uno import drop_call, forgive

track_dependencies(__file__, rule_sources())

STACKING_OFF, STACKING_SAME, STACKING_ANY = 0, 1, 2  # the choices of the ``stacking`` option, in its order


# ---------------------------------------------------------------------------------------------- stacking
@njit(cache=True, inline="always")
def stacking_on(cfg):
    """Whether the ``stacking`` house rule is on (compiled)."""
    return cfg[C_STACKING] != STACKING_OFF


@njit(cache=True)
def stack_legal(st, cfg, spec, mask, uno_offered):
    """The draw cards the victim of a pending penalty may answer it with."""
    if not stacking_on(cfg):
        return 0
    k = cfg[C_K]
    seat = st[S_CUR]
    pending_sym = st[S_PENDING_SYM]
    any_draw = cfg[C_STACKING] == STACKING_ANY
    count = 0
    for kind in range(k):
        sym = spec[kind, COL_SYMBOL]
        answers = sym == pending_sym or (any_draw and draw_amount(sym) > 0)
        if answers and st[hand_at(seat, kind)] > 0 and restriction_allows(st, cfg, spec, seat, kind):
            count += offer_play(mask, k, kind, uno_offered)
    return count


# ---------------------------------------------------------------------------------------------- seven_zero
@njit(cache=True)
def seven_zero_effect(st, cfg, sym):
    """A 7 opens the swap choice (True: the player chooses next), a 0 rotates the hands; False, the turn ends, for
    a 0 and for any other card (or when the rule is off)."""
    if cfg[C_SEVEN_ZERO] != 1:
        return False
    if sym == 7 and cfg[C_NP] > 1:
        st[S_PHASE] = PH_SWAP
        return True
    if sym == 0:
        # hands that change owner carry no UNO penalty (catching before the pass would punish the receiver)
        rotate_hands(st, cfg, st[S_DIR])
        forgive(st)
    return False


@njit_refcounted(cache=True)  # its scratch copy of the hands is allocated
def rotate_hands(st, cfg, direction):
    """Every hand passes to the next player in the direction of play."""
    np_ = cfg[C_NP]
    k = cfg[C_K]
    tmp = np.empty(MAX_PLAYERS * MAX_KINDS + MAX_PLAYERS, np.int32)
    for seat in range(np_):
        for kind in range(k):
            tmp[seat * MAX_KINDS + kind] = st[hand_at(seat, kind)]
        tmp[MAX_PLAYERS * MAX_KINDS + seat] = st[O_HAND_N + seat]
    for seat in range(np_):
        src = (seat - direction + np_) % np_
        for kind in range(k):
            st[hand_at(seat, kind)] = tmp[src * MAX_KINDS + kind]
        st[O_HAND_N + seat] = tmp[MAX_PLAYERS * MAX_KINDS + src]
        drop_call(st, seat)


@njit(cache=True)
def swap_legal(cfg, mask):
    """Mark every ``swap hands with seat +k`` action in ``mask`` (seven_zero); returns how many (compiled)."""
    start = A_SWAP_K * cfg[C_K] + A_SWAP_B
    for off in range(1, cfg[C_NP]):
        mask[start + off - 1] = 1
    return cfg[C_NP] - 1


@njit(cache=True)
def swap(st, cfg, seat, offset):
    """Swap hands with the seat ``offset`` places after ``seat``; no UNO penalty (the hand changes owner).  The turn
    ends then."""
    other = (seat + offset) % cfg[C_NP]
    for kind in range(cfg[C_K]):
        t = st[hand_at(seat, kind)]
        st[hand_at(seat, kind)] = st[hand_at(other, kind)]
        st[hand_at(other, kind)] = t
    t = st[O_HAND_N + seat]
    st[O_HAND_N + seat] = st[O_HAND_N + other]
    st[O_HAND_N + other] = t
    drop_call(st, seat)
    drop_call(st, other)
    forgive(st)


# ---------------------------------------------------------------------------------------------- jump_in
@njit(cache=True, inline="always")
def open_jump_in(st, cfg, spec, seat):
    """After ``seat``'s play, open a jump-in window when the rule allows one; True when it did."""
    sym = spec[st[S_TOP], COL_SYMBOL]
    if (
        cfg[C_JUMP_IN] == 1
        and spec[st[S_TOP], COL_COLOUR] != NO_COLOUR
        and not (cfg[C_SEVEN_ZERO] == 1 and (sym == 7 or sym == 0))
        and st[S_PLAYED] == 1
    ):
        # every other seat is asked in turn order whether or not it holds the card, so being asked says nothing
        st[S_JUMP_FROM] = seat
        st[S_CUR] = next_seat(st, cfg, seat, 1)
        st[S_PHASE] = PH_JUMP
        return True
    return False


@njit(cache=True)
def jump_legal(st, cfg, mask, uno_offered):
    """In a jump-in window: play the card identical to the top, or pass."""
    k = cfg[C_K]
    kind = st[S_TOP]
    count = 0
    if st[hand_at(st[S_CUR], kind)] > 0:
        count += offer_play(mask, k, kind, uno_offered)
    mask[A_PASS_K * k + A_PASS_B] = 1
    return count + 1


@njit(cache=True)
def jump(st, spec, seat):
    """A jump-in: the effect of the card jumped on is withdrawn (its penalty, its Reverse; a Skip had not
    happened yet) and play continues from the jumper, whose identical card takes effect from its seat."""
    sym = spec[st[S_TOP], COL_SYMBOL]
    st[S_PENDING] -= draw_amount(sym)
    if st[S_PENDING] == 0:
        st[S_PENDING_SYM] = -1
    if sym == REVERSE:
        st[S_DIR] = -st[S_DIR]
    st[S_CUR] = seat
    st[S_JUMP_FROM] = -1


@njit(cache=True)
def pass_jump(st, cfg, spec, seat):
    """Decline to jump in: ask the next seat (returns ``(-1, False)``), or close the window; then the turn passes
    on from the card's player, returned with whether the card skips (``(origin, skip)``)."""
    nxt = next_seat(st, cfg, seat, 1)
    origin = st[S_JUMP_FROM]
    if nxt == origin:
        st[S_JUMP_FROM] = -1
        # nobody jumped in: the card's own effect goes ahead (a Skip, or a Reverse with two players, skips)
        sym = spec[st[S_TOP], COL_SYMBOL]
        return origin, sym == SKIP or (sym == REVERSE and cfg[C_NP] == 2)
    st[S_CUR] = nxt
    return -1, False
