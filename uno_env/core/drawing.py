"""Drawing instead of playing, and the drawn card.

Rules: a player may draw one card instead of playing (project rules; option ``voluntary_draw``, default true; false =
only when nothing is playable, as RLCard); if the drawn card is playable the player may play that card only, or keep it
(the classic rule sheet; house rule ``force_play``: it must be played).  The drawn phase follows every draw of a card
game, offering only "keep" for a card that cannot be played (privacy: see ``draw``).  Option ``draw_until_playable`` (a
variant in the classic rule sheet): drawing goes on, up to 10 cards, until one is playable.  UNO Dice draws a die from
the bag and rolls it.  Option ``drawn_card: rlcard`` plays RLCard's drawn card instead (``draw_rlcard``): no decision,
and the card's fate is public (it is played or kept).  The piles themselves (reshuffles, the bag) are ``moves``.
"""
from __future__ import annotations

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .actions import A_DRAW_B, A_DRAW_K, A_KEEP_B, A_KEEP_K
from .cards import COL_COLOUR, NO_COLOUR
from .common import below, offer_play
from .facts import DRAW_UNTIL_PLAYABLE_MAX, plays_dice
from .layout import (
    C_DRAW_UNTIL_PLAYABLE,
    C_DRAWN_RLCARD,
    C_FORCE_PLAY,
    C_K,
    C_VOLUNTARY_DRAW,
    PH_DRAWN,
    S_COLOUR,
    S_CUR,
    S_DRAWN,
    S_LAST_PLAYER,
    S_PHASE,
    S_PLAYED,
)
from .matching import playable
from .moves import draw_one, put_on_top, remove_from_hand
from .uno import on_play

track_dependencies(__file__, rule_sources())

#: What follows a draw (the turn composes it): the turn ends, or the card played at once takes its effect.
DRAW_ENDS_TURN, DRAW_DECIDES, DRAW_PLAYED = 0, 1, 2


@njit(cache=True, inline="always")
def turn_extra_legal(st, cfg, mask, count):
    """In a card game's turn, drawing is offered when nothing is playable, or always with ``voluntary_draw``."""
    if count == 0 or cfg[C_VOLUNTARY_DRAW] == 1:
        mask[A_DRAW_K * cfg[C_K] + A_DRAW_B] = 1
        count += 1
    return count


@njit(cache=True)
def draw_rlcard(st, cfg, spec, dice, rng, seat):
    """``drawn_card: rlcard``, RLCard 1.2.0's ``_perform_draw_action``: one card, no decision.  A card of the
    current colour is played with its effect (``DRAW_PLAYED``); a wild is played as a plain Wild (a Wild Draw Four
    gives no penalty) naming a random colour; any other card is kept, even one matching by number or symbol."""
    kind = draw_one(st, cfg, dice, rng, seat)
    colour = -1 if kind < 0 else spec[kind, COL_COLOUR]
    if kind < 0 or (colour != NO_COLOUR and colour != st[S_COLOUR]):
        return DRAW_ENDS_TURN
    on_play(st, cfg, seat, True)  # no decision, so no missed UNO call either (with uno_call: explicit)
    remove_from_hand(st, seat, kind)
    put_on_top(st, cfg, dice, seat, kind, -1)
    st[S_LAST_PLAYER] = seat
    st[S_PLAYED] = 1
    if colour == NO_COLOUR:
        st[S_COLOUR] = below(rng, 4)
        return DRAW_ENDS_TURN
    return DRAW_PLAYED


@njit(cache=True)
def draw(st, cfg, spec, dice, rng, seat):
    """Draw (up to 10 with ``draw_until_playable``, stopping at a playable card); what follows (``DRAW_*``).

    Card games enter the drawn phase whether or not the card is playable (only "keep" is offered when it is
    not): the other seats see the same phase and the same seat to act either way, so they never learn whether
    the hidden card was playable.  Only an empty draw (public: both piles empty) ends the turn at once.  In
    UNO Dice the drawn die is public, so a die that does not match ends the turn directly.
    """
    if cfg[C_DRAWN_RLCARD] == 1:
        return draw_rlcard(st, cfg, spec, dice, rng, seat)
    cards = not plays_dice(cfg)
    limit = DRAW_UNTIL_PLAYABLE_MAX if cfg[C_DRAW_UNTIL_PLAYABLE] == 1 and cards else 1
    last = -1
    for _ in range(limit):
        kind = draw_one(st, cfg, dice, rng, seat)
        if kind < 0:
            break
        last = kind
        if playable(st, cfg, spec, seat, kind):
            st[S_DRAWN] = kind
            st[S_PHASE] = PH_DRAWN
            return DRAW_DECIDES
    if cards and last >= 0:
        st[S_DRAWN] = last
        st[S_PHASE] = PH_DRAWN
        return DRAW_DECIDES
    return DRAW_ENDS_TURN


@njit(cache=True)
def drawn_legal(st, cfg, spec, mask, uno_offered):
    """The drawn phase: play the drawn card when it is playable (with UNO when it leaves one card), or keep it
    (unless force_play forces a playable card)."""
    k = cfg[C_K]
    count = 0
    if playable(st, cfg, spec, st[S_CUR], st[S_DRAWN]):
        count = offer_play(mask, k, st[S_DRAWN], uno_offered)
    if cfg[C_FORCE_PLAY] == 0 or count == 0:
        mask[A_KEEP_K * k + A_KEEP_B] = 1
        count += 1
    return count
