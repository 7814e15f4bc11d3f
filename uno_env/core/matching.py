"""What may be played: matching the top card, and the legality of Wild Draw Four / Wild Draw 2.

Rules (project rules, all games; the classic, pocket and UNO Dice rule sheets): a card/face is playable when it matches
the current colour, the number or the action symbol of the top card; wilds are always playable, but Wild Draw Four
(classic, dice) and Wild Draw 2 (pocket) are legal only when the player holds no other playable card (``wd4_legality:
any_playable``, the classic and pocket rule sheets; always in UNO Dice, its rule sheet) or, under the retail rules
(preset ``official``), no card of the current colour (``colour``).  Where the rules allow a bluff (``wd4_challenge``;
UNO Dice: ``dice_wd4_bluff``) an illegal one may be played anyway, and the victim may challenge it (``wilds``).

Every family that offers a play asks here (the normal turn, the drawn card, stacking, the dice), so this module
is part of the base under them.
"""
from __future__ import annotations

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .cards import COL_COLOUR, COL_SYMBOL, NO_COLOUR
from .common import hand_at, is_restricted_wild, kinds_held, lowest_kind, offer_play
from .facts import F_WD_ANY_PLAYABLE, bluff_option, game_has
from .layout import C_K, C_WD_LEGAL_ANY_PLAYABLE, MAX_KINDS, O_HAND, S_COLOUR, S_CUR, S_TOP

track_dependencies(__file__, rule_sources())


@njit(cache=True, inline="always")
def matches(st, spec, kind):
    """Plain match against the top: wilds always, else same colour or same number/symbol."""
    if spec[kind, COL_COLOUR] == NO_COLOUR:
        return True
    if spec[kind, COL_COLOUR] == st[S_COLOUR]:
        return True
    return spec[kind, COL_SYMBOL] == spec[st[S_TOP], COL_SYMBOL]


@njit(cache=True, inline="always")
def bluff_allowed(cfg):
    """Whether an illegal Wild Draw Four / Wild Draw 2 may be played as a bluff under these rules (compiled)."""
    return bluff_option(cfg) == 1


@njit(cache=True)
def restricted_wild_legal(st, cfg, spec, seat):
    """Whether a Wild Draw Four / Wild Draw 2 is a legal (non-bluff) play for ``seat`` now."""
    k = cfg[C_K]
    any_playable = cfg[C_WD_LEGAL_ANY_PLAYABLE] == 1 or game_has(cfg, F_WD_ANY_PLAYABLE)
    hand = O_HAND + seat * MAX_KINDS
    for kind in range(k):
        if st[hand + kind] == 0 or is_restricted_wild(spec, kind):
            continue
        if any_playable:
            if matches(st, spec, kind):
                return False
        elif spec[kind, COL_COLOUR] == st[S_COLOUR]:
            return False
    return True


@njit(cache=True, inline="always")
def restriction_allows(st, cfg, spec, seat, kind):
    """False only for a Wild Draw Four / Wild Draw 2 that would be a bluff where bluffing is not allowed."""
    if is_restricted_wild(spec, kind) and not bluff_allowed(cfg):
        return restricted_wild_legal(st, cfg, spec, seat)
    return True


@njit(cache=True, inline="always")
def playable(st, cfg, spec, seat, kind):
    """Whether ``seat`` may play ``kind`` in a normal turn (it holds it, it matches, restrictions allow)."""
    if st[hand_at(seat, kind)] == 0 or not matches(st, spec, kind):
        return False
    return restriction_allows(st, cfg, spec, seat, kind)


@njit(cache=True, inline="always")
def turn_legal(st, cfg, spec, mask, uno_offered):
    """The plays of a normal turn (or of a dice turn after a reroll): every playable kind held."""
    k = cfg[C_K]
    seat = st[S_CUR]
    hand = O_HAND + seat * MAX_KINDS
    held = kinds_held(st[hand:hand + k], k)
    count = 0
    while held != 0:  # the held kinds, in kind order
        kind = lowest_kind(held)
        held &= held - 1
        if playable(st, cfg, spec, seat, kind):
            count += offer_play(mask, k, kind, uno_offered)
    return count
