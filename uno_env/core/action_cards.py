"""Action cards: Skip, Reverse, Draw Two / Draw One, and the draw penalty of the wild draw cards.

Rules (seeds 004, 000, 001): Skip - the next player loses the turn.  Reverse - the direction flips; with two
players it acts as Skip (``reverse_two_players: reverse``, RLCard: the other player plays next).  Draw Two
(classic, dice) / Draw One (pocket), Wild Draw Four, Wild Draw 2 - the next
player draws 2 / 1 / 4 / 2 and loses the turn (the penalty waits in ``pending`` so that the victim may challenge
or, with ``stacking``, answer it).  The 7 and 0 of ``seven_zero`` and Dip Into Deck have their own modules.
"""
from __future__ import annotations

from . import common as U
from . import dip, house, matching
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .cards import COL_SYMBOL, REVERSE, SKIP, WILD_DIP
from .layout import *  # noqa: F403 - generated state offsets S_*, O_*, option slots C_*, phases PH_*

track_dependencies(__file__, rule_sources())


@njit(cache=True)
def apply_effect(st, cfg, spec, dice, rng, seat):
    """The effect of the card on top, played by ``seat``, once its colour (if wild) is named."""
    sym = spec[st[S_TOP], COL_SYMBOL]
    amount = U.draw_amount(sym)
    if sym == SKIP:
        matching.end_turn(st, cfg, spec, dice, rng, seat, True)
    elif sym == REVERSE:
        st[S_DIR] = -st[S_DIR]
        # with two players it acts as Skip, unless reverse_two_players: reverse (RLCard)
        matching.end_turn(st, cfg, spec, dice, rng, seat, cfg[C_NP] == 2 and cfg[C_REVERSE_NO_SKIP] == 0)
    elif amount > 0:
        st[S_PENDING] += amount
        st[S_PENDING_SYM] = sym
        matching.end_turn(st, cfg, spec, dice, rng, seat, False)
    elif sym == WILD_DIP:
        dip.dip(st, cfg, spec, dice, rng, seat)
    elif not house.seven_zero_effect(st, cfg, spec, dice, rng, seat, sym):
        matching.end_turn(st, cfg, spec, dice, rng, seat, False)
