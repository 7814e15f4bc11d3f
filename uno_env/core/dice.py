"""UNO Dice: choosing the die, rerolls.

Rules (the UNO Dice rule sheet; project rules): on its turn a player may, instead of playing, reroll its whole hand
once, and then must play a matching die or draw one.  Dice are not interchangeable (each die has its own faces), so
a play names the die and every die's place and face are tracked.  The dice's moves (the bag, rolling a drawn die,
the centre die) are ``moves``; the deal is ``rounds``; a challenged Wild Draw Four's take-back is ``wilds``.
"""
from __future__ import annotations

from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .actions import A_DRAW_B, A_DRAW_K, A_PLAY_DIE_B, A_PLAY_DIE_K, A_REROLL_B, A_REROLL_K
from .common import below, hand_at
from .layout import (
    C_K,
    C_NUM_DICE,
    LOC_CENTRE,
    O_DIE_FACE,
    O_DIE_LOC,
    PH_DRAWN,
    PH_REROLLED,
    PH_TURN,
    S_CUR,
    S_DRAWN_DIE,
    S_PHASE,
)
from .matching import playable
from .moves import die_in_hand

track_dependencies(__file__, rule_sources())


# ---------------------------------------------------------------------------------------------- the turn
@njit(cache=True)
def turn_legal(st, cfg, spec, dice, mask, uno_offered):
    """A dice turn's legal actions in one pass over the dice in the hand: the plays by kind that ``matching`` allows
    turned into plays by die (as :func:`plays_by_die`), without a pass over every kind and a second over the dice (a
    third of a 2-player dice search's time went to the two); then reroll or draw."""
    k = cfg[C_K]
    nd = cfg[C_NUM_DICE]
    start = A_PLAY_DIE_K * k + A_PLAY_DIE_B
    seat = st[S_CUR]
    count = 0
    for die in range(nd):
        if st[O_DIE_LOC + die] != seat:
            continue
        if playable(st, cfg, spec, seat, dice[die, st[O_DIE_FACE + die]]):
            mask[start + die] = 1
            count += 1
            if uno_offered:
                mask[start + nd + die] = 1
                count += 1
    return turn_extra_legal(st, cfg, mask, count)


@njit(cache=True, inline="always")
def turn_extra_legal(st, cfg, mask, count):
    """Besides its plays, a dice player may reroll (a fresh turn) or draw a die (after a reroll)."""
    k = cfg[C_K]
    if st[S_PHASE] == PH_TURN:
        mask[A_REROLL_K * k + A_REROLL_B] = 1
    else:
        mask[A_DRAW_K * k + A_DRAW_B] = 1
    return count + 1


@njit(cache=True)
def reroll(st, cfg, dice, rng, seat):
    """Reroll every die in ``seat``'s hand; the player then plays a matching die or draws one."""
    for die in range(cfg[C_NUM_DICE]):
        if st[O_DIE_LOC + die] == seat:
            st[hand_at(seat, dice[die, st[O_DIE_FACE + die]])] -= 1
            face = below(rng, 6)
            st[O_DIE_FACE + die] = face
            st[hand_at(seat, dice[die, face])] += 1
    st[S_PHASE] = PH_REROLLED


# ---------------------------------------------------------------------------------------------- choosing the die
@njit(cache=True)
def plays_by_die(st, cfg, dice, mask):
    """Turn the per-kind plays the shared rules marked into per-die plays (the UNO Dice rule sheet: the player chooses a
    die from the hand, and two dice showing the same face are different dice).  In the drawn phase only the die just
    drawn may be played.  Returns the number of legal actions."""
    k = cfg[C_K]
    nd = cfg[C_NUM_DICE]
    start = A_PLAY_DIE_K * k + A_PLAY_DIE_B
    seat = st[S_CUR]
    only = st[S_DRAWN_DIE] if st[S_PHASE] == PH_DRAWN else -1
    count = 0
    for die in range(nd):
        if st[O_DIE_LOC + die] != seat or (only >= 0 and die != only):
            continue
        kind = dice[die, st[O_DIE_FACE + die]]
        if mask[kind] != 0:
            mask[start + die] = 1
            count += 1
        if mask[k + kind] != 0:
            mask[start + nd + die] = 1
            count += 1
    for a in range(2 * k):
        mask[a] = 0
    for a in range(2 * k, start):  # the other legal actions (draw, reroll, accept, ...); the die plays are counted
        count += mask[a]
    return count


@njit(cache=True)
def take_played_die(st, cfg, dice, seat, kind, die):
    """The die ``seat`` plays showing ``kind`` leaves the hand for the centre (``moves.put_on_top`` finishes the
    move); returns it: ``die`` itself when the action named it, else (-1) the die just drawn in the drawn phase, or
    the lowest-id one in the hand (compiled)."""
    if die < 0:
        die = st[S_DRAWN_DIE] if st[S_PHASE] == PH_DRAWN else die_in_hand(st, cfg, dice, seat, kind)
    st[O_DIE_LOC + die] = LOC_CENTRE
    return die
