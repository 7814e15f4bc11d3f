"""Action cards: Skip, Reverse, Draw Two / Draw One, and the draw penalty of the wild draw cards.

Rules (the classic, pocket and UNO Dice rule sheets): Skip - the next player loses the turn.  Reverse - the direction
flips; with two players it acts as Skip (``reverse_two_players: reverse``, RLCard: the other player plays next).  Draw
Two (classic, dice) / Draw One (pocket), Wild Draw Four, Wild Draw 2 - the next player draws 2 / 1 / 4 / 2
(``facts.DRAW_AMOUNTS``) and loses the turn (the penalty waits in ``pending`` so that the victim may challenge or, with
``stacking``, answer it).  The 7 and 0 of ``seven_zero`` and Dip Into Deck have their own modules.
"""
from __future__ import annotations

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .cards import COL_SYMBOL, REVERSE, SKIP
from .facts import draw_amount
from .layout import C_NP, C_REVERSE_NO_SKIP, S_DIR, S_PENDING, S_PENDING_SYM, S_TOP

track_dependencies(__file__, rule_sources())

#: What an action card leaves to the turn: the turn ends (the next seat plays), it ends skipping the next seat, or
#: the card on top is no action card (a number, a wild without a penalty: other rules may apply).
TURN_ENDS, TURN_ENDS_SKIPPING, NO_ACTION = 0, 1, 2


@njit(cache=True)
def apply_effect(st, cfg, spec):
    """The effect of the action card on top, once its colour (if wild) is named; what follows (above)."""
    sym = spec[st[S_TOP], COL_SYMBOL]
    amount = draw_amount(sym)
    if sym == SKIP:
        return TURN_ENDS_SKIPPING
    if sym == REVERSE:
        st[S_DIR] = -st[S_DIR]
        # with two players it acts as Skip, unless reverse_two_players: reverse (RLCard)
        return TURN_ENDS_SKIPPING if cfg[C_NP] == 2 and cfg[C_REVERSE_NO_SKIP] == 0 else TURN_ENDS
    if amount > 0:
        st[S_PENDING] += amount
        st[S_PENDING_SYM] = sym
        return TURN_ENDS
    return NO_ACTION
