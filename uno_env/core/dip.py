"""Wild Dip Into Deck (UNO Pocket).

Rules (the pocket rule sheets): name a colour, draw one card from the draw pile, then give one card of your
choice from your hand (the drawn one included) to the next player; the next player keeps the turn.  An UNO call
made with the Dip counts after the give (project rules, all games: one card left "after drawing and giving").
"""
from __future__ import annotations

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .actions import A_GIVE_B, A_GIVE_K
from .common import hand_at, next_seat
from .layout import C_K, PH_GIVE, S_CUR, S_PHASE
from .moves import add_to_hand, draw_one, remove_from_hand
from .uno import call_with_dip

track_dependencies(__file__, rule_sources())


@njit(cache=True)
def dip(st, cfg, dice, rng, seat):
    """Wild Dip Into Deck: ``seat`` draws one card, then chooses a card to give (compiled)."""
    draw_one(st, cfg, dice, rng, seat)
    st[S_PHASE] = PH_GIVE


@njit(cache=True)
def give_legal(st, cfg, mask):
    """Mark the legal ``give`` actions in ``mask`` (a card of each kind in hand); returns how many (compiled)."""
    k = cfg[C_K]
    start = A_GIVE_K * k + A_GIVE_B
    seat = st[S_CUR]
    count = 0
    for kind in range(k):
        if st[hand_at(seat, kind)] > 0:
            mask[start + kind] = 1
            count += 1
    return count


@njit(cache=True)
def give(st, cfg, seat, kind):
    """Wild Dip Into Deck: ``seat`` gives a card of ``kind`` to the next seat; its turn ends then (compiled)."""
    remove_from_hand(st, seat, kind)
    call_with_dip(st, seat)
    add_to_hand(st, next_seat(st, cfg, seat, 1), kind)
