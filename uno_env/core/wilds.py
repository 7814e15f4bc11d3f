"""Wilds: naming the colour, the pending penalty of a draw card, and the Wild Draw Four / Wild Draw 2 challenge.

Rules: a Wild names a colour (the classic, pocket and UNO Dice rule sheets).  When a Wild Draw Four / Wild Draw 2 is
legal is ``matching``. With ``wd4_challenge`` (pocket by default, its rule sheet; classic ``official``; dice:
``dice_wd4_bluff``) an illegal one may be played as a bluff and the victim may challenge: the challenged hand is shown
to the challenger (the pocket rule sheets; ``shown_*`` fields); guilty -> its player draws the penalty instead and the
challenger takes a normal turn (in UNO Dice the rule breaker also takes the die back, its rule sheet); innocent -> the
challenger draws the penalty + 2 and loses the turn.  The victim of any draw card otherwise accepts: draws and loses the
turn (answering with a draw card is the ``stacking`` house rule, ``house``).  This module is the whole challenge: what a
play of such a wild records, the challenge and its verdict, the shown hand, and the take-back.
"""
from __future__ import annotations

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .actions import A_ACCEPT_B, A_ACCEPT_K, A_CHALLENGE_B, A_CHALLENGE_K, A_COLOUR_B, A_COLOUR_K
from .cards import WILD_DRAW_FOUR, WILD_DRAW_TWO
from .common import begin_turn, hand_at, is_restricted_wild, next_seat
from .facts import CHALLENGE_LOST_EXTRA, plays_dice
from .layout import (
    C_K,
    CONT_EFFECT,
    CONT_START,
    LOC_BAG,
    LOC_CENTRE,
    MAX_KINDS,
    O_DIE_FACE,
    O_DIE_LOC,
    O_DISC,
    O_DISC_COUNT,
    O_DRAW,
    O_SHOWN_HAND,
    PH_COLOUR,
    S_COLOUR,
    S_CONT,
    S_CUR,
    S_DRAW_N,
    S_LAST_PLAYER,
    S_PENDING,
    S_PENDING_SYM,
    S_PHASE,
    S_SHOWN_FROM,
    S_SHOWN_TO,
    S_TOP,
    S_WD_DIE,
    S_WD_GUILTY,
    S_WD_PLAYER,
    S_WD_PREV_COLOUR,
    S_WD_PREV_DIE,
    S_WD_PREV_FACE,
)
from .matching import bluff_allowed
from .matching import restricted_wild_legal as restricted_wild_legal  # re-exported: the compiled players ask here
from .moves import add_to_hand, draw_many, remove_from_hand

track_dependencies(__file__, rule_sources())


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
def choose_colour(st, cfg, seat, colour):
    """The named colour holds; then the first turn when the round began with a Wild, else the wild's effect follows
    (returns True then: the turn applies it)."""
    st[S_COLOUR] = colour
    if st[S_CONT] == CONT_START:
        st[S_CONT] = CONT_EFFECT
        begin_turn(st, cfg, seat)
        return False
    return True


# ---------------------------------------------------------------------------------------------- the bluff
@njit(cache=True, inline="always")
def challengeable(cfg, sym):
    """Whether a card of symbol ``sym`` may be challenged under these rules (compiled)."""
    if sym != WILD_DRAW_FOUR and sym != WILD_DRAW_TWO:
        return False
    return bluff_allowed(cfg)


@njit(cache=True, inline="always")
def note_play(st, cfg, spec, dice, seat, kind, die):
    """Remember whether a Wild Draw Four / Wild Draw 2 just played by ``seat`` was a bluff (hidden; for a challenge),
    and in UNO Dice, where it may be challenged, what a guilty verdict restores (``die`` is about to replace the
    centre die)."""
    if is_restricted_wild(spec, kind):
        st[S_WD_GUILTY] = 0 if restricted_wild_legal(st, cfg, spec, seat) else 1
        st[S_WD_PLAYER] = seat
        if die >= 0 and bluff_allowed(cfg):
            old = st[O_DISC]
            st[S_WD_DIE] = die
            st[S_WD_PREV_DIE] = old
            st[S_WD_PREV_FACE] = st[O_DIE_FACE + old]
            st[S_WD_PREV_COLOUR] = st[S_COLOUR]


# ---------------------------------------------------------------------------------------------- the pending penalty
@njit(cache=True)
def pending_legal(st, cfg, mask):
    """The victim of a draw card: accept, or challenge a Wild Draw Four / Wild Draw 2 (stacking: ``house``)."""
    k = cfg[C_K]
    mask[A_ACCEPT_K * k + A_ACCEPT_B] = 1
    count = 1
    if challengeable(cfg, st[S_PENDING_SYM]):
        mask[A_CHALLENGE_K * k + A_CHALLENGE_B] = 1
        count += 1
    return count


@njit(cache=True)
def challenge(st, cfg, dice, rng, seat):
    """``seat`` challenges the pending Wild Draw Four / Wild Draw 2: the guilty player or the challenger draws
    (compiled).
    """
    pending = st[S_PENDING]
    st[S_PENDING] = 0
    st[S_PENDING_SYM] = -1
    show_hand(st, cfg, st[S_WD_PLAYER], seat)
    if st[S_WD_GUILTY] == 1:
        if plays_dice(cfg):
            take_back(st, cfg, dice, st[S_WD_PLAYER])  # the UNO Dice rule sheet: the rule breaker takes the die back
        draw_many(st, cfg, dice, rng, st[S_WD_PLAYER], pending)
        begin_turn(st, cfg, seat)
    else:
        forget_die(st)
        draw_many(st, cfg, dice, rng, seat, pending + CHALLENGE_LOST_EXTRA)
        begin_turn(st, cfg, next_seat(st, cfg, seat, 1))


@njit(cache=True)
def accept(st, cfg, dice, rng, seat):
    """``seat`` draws the pending penalty and loses its turn (compiled)."""
    forget_die(st)
    draw_many(st, cfg, dice, rng, seat, st[S_PENDING])
    st[S_PENDING] = 0
    st[S_PENDING_SYM] = -1
    begin_turn(st, cfg, next_seat(st, cfg, seat, 1))


# ---------------------------------------------------------------------------------------------- the shown hand
@njit(cache=True)
def show_hand(st, cfg, shown, to):
    """``shown``'s hand as it is now is shown to ``to`` (the pocket rule sheets: "Haastetun pelaajan on näytettävä
    haastajalle korttinsa"); ``to``'s observation carries it until ``to`` takes its next decision."""
    for kind in range(MAX_KINDS):
        st[O_SHOWN_HAND + kind] = st[hand_at(shown, kind)] if kind < cfg[C_K] else 0
    st[S_SHOWN_FROM] = shown
    st[S_SHOWN_TO] = to


@njit(cache=True)
def forget_shown(st):
    """No hand is shown (compiled)."""
    for kind in range(MAX_KINDS):
        st[O_SHOWN_HAND + kind] = 0
    st[S_SHOWN_FROM] = -1
    st[S_SHOWN_TO] = -1


# ---------------------------------------------------------------------------------------------- UNO Dice take-back
@njit(cache=True)
def take_back(st, cfg, dice, seat):
    """The UNO Dice rule sheet, a challenged illegal Wild Draw Four: "the rule breaker must take the die back": the die
    returns to ``seat``'s hand (showing the same face) and the centre die it replaced comes back as it was, with the
    colour of that moment.  The replaced die is normally in the bag; if the rule breaker drew it meanwhile (caught
    without calling UNO) it leaves that hand for the centre."""
    die = st[S_WD_DIE]
    prev = st[S_WD_PREV_DIE]
    if die < 0 or prev < 0 or st[O_DIE_LOC + die] != LOC_CENTRE:
        return
    top = dice[die, st[O_DIE_FACE + die]]
    st[O_DISC_COUNT + top] -= 1
    st[O_DIE_LOC + die] = seat
    add_to_hand(st, seat, top)
    loc = st[O_DIE_LOC + prev]
    if loc == LOC_BAG:
        n = st[S_DRAW_N]
        for j in range(n):
            if st[O_DRAW + j] == prev:
                st[O_DRAW + j] = st[O_DRAW + n - 1]
                break
        st[S_DRAW_N] = n - 1
    elif loc >= 0:
        remove_from_hand(st, loc, dice[prev, st[O_DIE_FACE + prev]])
    face = st[S_WD_PREV_FACE]
    kind = dice[prev, face]
    st[O_DIE_LOC + prev] = LOC_CENTRE
    st[O_DIE_FACE + prev] = face
    st[O_DISC] = prev
    st[S_TOP] = kind
    st[O_DISC_COUNT + kind] += 1
    st[S_COLOUR] = st[S_WD_PREV_COLOUR]
    st[S_LAST_PLAYER] = -1
    forget_die(st)


@njit(cache=True, inline="always")
def forget_die(st):
    """The Wild Draw Four is settled (accepted, or challenged): nothing is left to restore."""
    st[S_WD_DIE] = -1
    st[S_WD_PREV_DIE] = -1
    st[S_WD_PREV_FACE] = -1
    st[S_WD_PREV_COLOUR] = -1


@njit(cache=True)
def clear(st):
    """A new round: no Wild Draw Four to challenge, none to take back, no hand shown (compiled)."""
    st[S_WD_GUILTY] = 0
    st[S_WD_PLAYER] = -1
    forget_die(st)
    forget_shown(st)
