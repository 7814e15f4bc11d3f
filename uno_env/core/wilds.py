"""Wilds: naming the colour, the Wild Draw Four / Wild Draw 2 restriction, the pending penalty and challenges.

Rules: a Wild names a colour (seeds 004, 000, 001).  Wild Draw Four (classic, dice) and Wild Draw 2 (pocket) are
legal only when the player holds no other playable card (``wd4_legality: any_playable``, seeds 004, 000; always in
UNO Dice, seed 001) or, under the retail rules (preset ``official``), no card of the current colour (``colour``).
With ``wd4_challenge`` (pocket by default, seed 000; classic ``official``; dice: ``dice_wd4_bluff``) an illegal one
may be played as a bluff and the victim may challenge: the challenged hand is shown to the challenger (seeds 000,
003; ``shown_*`` fields); guilty -> its player draws the penalty instead and the challenger takes a normal turn;
innocent -> the challenger draws the penalty + 2 and loses the turn.  The victim of any draw card otherwise accepts:
draws and loses the turn (answering with a draw card is the ``stacking`` house rule, ``house``).
"""
from __future__ import annotations

from . import action_cards, drawing, house, matching
from . import common as U
from . import dice as D
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .actions import *  # noqa: F403 - generated action section starts A_*
from .cards import COL_COLOUR, WILD_DRAW_FOUR, WILD_DRAW_TWO
from .layout import *  # noqa: F403 - generated state offsets S_*, O_*, option slots C_*, phases PH_*

track_dependencies(__file__, rule_sources())


@njit(cache=True, inline="always")
def bluff_allowed(cfg):
    """Whether an illegal Wild Draw Four / Wild Draw 2 may be played as a bluff under these rules (compiled)."""
    if cfg[C_GAME] == GAME_DICE:
        return cfg[C_DICE_BLUFF] == 1
    return cfg[C_CHALLENGE] == 1


@njit(cache=True)
def restricted_wild_legal(st, cfg, spec, seat):
    """Whether a Wild Draw Four / Wild Draw 2 is a legal (non-bluff) play for ``seat`` now."""
    k = cfg[C_K]
    any_playable = cfg[C_WD_LEGAL_ANY_PLAYABLE] == 1 or cfg[C_GAME] == GAME_DICE
    hand = O_HAND + seat * MAX_KINDS
    for kind in range(k):
        if st[hand + kind] == 0 or U.is_restricted_wild(spec, kind):
            continue
        if any_playable:
            if matching.matches(st, spec, kind):
                return False
        elif spec[kind, COL_COLOUR] == st[S_COLOUR]:
            return False
    return True


@njit(cache=True, inline="always")
def restriction_allows(st, cfg, spec, seat, kind):
    """False only for a Wild Draw Four / Wild Draw 2 that would be a bluff where bluffing is not allowed."""
    if U.is_restricted_wild(spec, kind) and not bluff_allowed(cfg):
        return restricted_wild_legal(st, cfg, spec, seat)
    return True


@njit(cache=True, inline="always")
def note_restricted_play(st, cfg, spec, seat, kind):
    """Remember whether a Wild Draw Four / Wild Draw 2 just played was a bluff (hidden; for a challenge)."""
    if U.is_restricted_wild(spec, kind):
        st[S_WD_GUILTY] = 0 if restricted_wild_legal(st, cfg, spec, seat) else 1
        st[S_WD_PLAYER] = seat


@njit(cache=True, inline="always")
def challengeable(cfg, sym):
    """Whether a card of symbol ``sym`` may be challenged under these rules (compiled)."""
    if sym != WILD_DRAW_FOUR and sym != WILD_DRAW_TWO:
        return False
    return bluff_allowed(cfg)


# ---------------------------------------------------------------------------------------------- colour
@njit(cache=True)
def ask_colour(st, seat):
    """``seat`` names the colour next (the choose-colour phase; compiled)."""
    st[S_PHASE] = PH_COLOUR
    st[S_CONT] = CONT_EFFECT
    st[S_CUR] = seat


@njit(cache=True)
def colour_legal(cfg, mask):
    """Mark the four ``choose colour`` actions in ``mask``; returns 4 (compiled)."""
    start = A_COLOUR_K * cfg[C_K] + A_COLOUR_B
    for c in range(4):
        mask[start + c] = 1
    return 4


@njit(cache=True)
def choose_colour(st, cfg, spec, dice, rng, seat, colour):
    """The named colour holds; then the wild's effect, or the first turn when the round began with a Wild."""
    st[S_COLOUR] = colour
    if st[S_CONT] == CONT_START:
        st[S_CONT] = CONT_EFFECT
        U.begin_turn(st, cfg, seat)
    else:
        action_cards.apply_effect(st, cfg, spec, dice, rng, seat)


# ---------------------------------------------------------------------------------------------- the pending penalty
@njit(cache=True)
def pending_legal(st, cfg, spec, mask, uno_offered):
    """The victim of a draw card: accept, challenge a Wild Draw Four / Wild Draw 2, or (stacking) answer it."""
    k = cfg[C_K]
    mask[A_ACCEPT_K * k + A_ACCEPT_B] = 1
    count = 1
    if challengeable(cfg, st[S_PENDING_SYM]):
        mask[A_CHALLENGE_K * k + A_CHALLENGE_B] = 1
        count += 1
    return count + house.stack_legal(st, cfg, spec, mask, uno_offered)


@njit(cache=True)
def challenge(st, cfg, spec, dice, rng, seat):
    """``seat`` challenges the pending Wild Draw Four / Wild Draw 2: the guilty player or the challenger draws
    (compiled).
    """
    pending = st[S_PENDING]
    st[S_PENDING] = 0
    st[S_PENDING_SYM] = -1
    show_hand(st, cfg, st[S_WD_PLAYER], seat)
    if st[S_WD_GUILTY] == 1:
        if cfg[C_GAME] == GAME_DICE:
            D.take_back(st, cfg, dice, st[S_WD_PLAYER])  # seed 001: the rule breaker takes the die back
        drawing.draw_many(st, cfg, spec, dice, rng, st[S_WD_PLAYER], pending)
        U.begin_turn(st, cfg, seat)
    else:
        D.forget_wd4(st)
        drawing.draw_many(st, cfg, spec, dice, rng, seat, pending + 2)
        U.begin_turn(st, cfg, U.next_seat(st, cfg, seat, 1))


@njit(cache=True)
def show_hand(st, cfg, shown, to):
    """``shown``'s hand as it is now is shown to ``to`` (seeds 000, 003: "Haastetun pelaajan on näytettävä
    haastajalle korttinsa"); ``to``'s observation carries it until ``to`` takes its next decision."""
    for kind in range(MAX_KINDS):
        st[O_SHOWN_HAND + kind] = st[U.hand_at(shown, kind)] if kind < cfg[C_K] else 0
    st[S_SHOWN_FROM] = shown
    st[S_SHOWN_TO] = to


@njit(cache=True)
def forget_shown(st):
    """No hand is shown (compiled)."""
    for kind in range(MAX_KINDS):
        st[O_SHOWN_HAND + kind] = 0
    st[S_SHOWN_FROM] = -1
    st[S_SHOWN_TO] = -1


@njit(cache=True)
def accept(st, cfg, spec, dice, rng, seat):
    """``seat`` draws the pending penalty and loses its turn (compiled)."""
    D.forget_wd4(st)
    drawing.draw_many(st, cfg, spec, dice, rng, seat, st[S_PENDING])
    st[S_PENDING] = 0
    st[S_PENDING_SYM] = -1
    U.begin_turn(st, cfg, U.next_seat(st, cfg, seat, 1))
