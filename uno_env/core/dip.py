"""Wild Dip Into Deck (UNO Pocket).

Rules (seed 000, also seed 003): name a colour, draw one card from the draw pile, then give one card of your
choice from your hand (the drawn one included) to the next player; the next player keeps the turn.  An UNO call
made with the Dip counts after the give (project rules, all games: one card left "after drawing and giving").
"""
from __future__ import annotations

from . import common as U
from . import drawing, matching
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .actions import *  # noqa: F403 - generated action section starts A_*
from .layout import *  # noqa: F403 - generated state offsets S_*, O_*, option slots C_*, phases PH_*

track_dependencies(__file__, rule_sources())


@njit(cache=True)
def dip(st, cfg, spec, dice, rng, seat):
    """Wild Dip Into Deck: ``seat`` draws one card, then chooses a card to give (compiled)."""
    drawing.draw_one(st, cfg, spec, dice, rng, seat)
    st[S_PHASE] = PH_GIVE


@njit(cache=True)
def give_legal(st, cfg, mask):
    """Mark the legal ``give`` actions in ``mask`` (a card of each kind in hand); returns how many (compiled)."""
    k = cfg[C_K]
    start = A_GIVE_K * k + A_GIVE_B
    seat = st[S_CUR]
    count = 0
    for kind in range(k):
        if st[U.hand_at(seat, kind)] > 0:
            mask[start + kind] = 1
            count += 1
    return count


@njit(cache=True)
def give(st, cfg, spec, dice, rng, seat, kind):
    """Wild Dip Into Deck: ``seat`` gives a card of ``kind`` to the next seat and ends its turn (compiled)."""
    U.remove_from_hand(st, seat, kind)
    if st[O_HAND_N + seat] == 1 and st[S_UNO_MISSED] != seat:
        st[O_CALLED + seat] = 1  # UNO called with the Dip (drawing cleared the flag) counts after the give
    U.add_to_hand(st, U.next_seat(st, cfg, seat, 1), kind)
    matching.end_turn(st, cfg, spec, dice, rng, seat, False)
