"""Dice rolls and rerolls (UNO Dice).

Rules (seed sheet 001, UNO Dice; project rules): a die drawn from the bag is rolled into the drawer's hand; the
round starts with a centre die rolled until it shows a number (a die with no number face goes back); on its
turn a player may, instead of playing, reroll its whole hand once, and then must play a matching die or draw
one.  Dice are not interchangeable (each die has its own faces), so every die's place and face are tracked.
"""
from __future__ import annotations

from . import common as U
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .actions import *  # noqa: F403 - generated action section starts A_*
from .cards import COL_COLOUR, COL_SYMBOL
from .layout import *  # noqa: F403 - generated state offsets S_*, O_*, option slots C_*, phases PH_*

track_dependencies(__file__, rule_sources())


@njit(cache=True)
def draw_die(st, cfg, dice, rng, seat):
    """A random die from the bag, rolled into ``seat``'s hand; its kind, or -1 when the bag is empty."""
    n = st[S_DRAW_N]
    if n == 0:
        return -1
    j = U.below(rng, n)
    die = st[O_DRAW + j]
    st[O_DRAW + j] = st[O_DRAW + n - 1]
    st[S_DRAW_N] = n - 1
    face = U.below(rng, 6)
    st[O_DIE_LOC + die] = seat
    st[O_DIE_FACE + die] = face
    kind = dice[die, face]
    U.add_to_hand(st, seat, kind)
    st[S_DRAWN_DIE] = die
    return kind


@njit(cache=True)
def deal(st, cfg, spec, dice, rng, first):
    """All dice into the bag, the centre die rolled until it shows a number, then 5 dice to each hand."""
    nd = cfg[C_NUM_DICE]
    for die in range(nd):
        st[O_DRAW + die] = die
        st[O_DIE_LOC + die] = LOC_BAG
        st[O_DIE_FACE + die] = 0
    st[S_DRAW_N] = nd
    while True:
        n = st[S_DRAW_N]
        j = U.below(rng, n)
        die = st[O_DRAW + j]
        has_number = False
        for f in range(6):
            if spec[dice[die, f], COL_SYMBOL] < 10:
                has_number = True
        if not has_number:
            continue
        st[O_DRAW + j] = st[O_DRAW + n - 1]
        st[S_DRAW_N] = n - 1
        while True:
            U.set_wide(st, S_FLIPS, U.get_wide(st, S_FLIPS) + 1)
            face = U.below(rng, 6)
            if spec[dice[die, face], COL_SYMBOL] < 10:
                break
        break
    st[O_DIE_LOC + die] = LOC_CENTRE
    st[O_DIE_FACE + die] = face
    st[O_DISC] = die
    st[S_DISC_N] = 1
    kind = dice[die, face]
    st[S_TOP] = kind
    st[O_DISC_COUNT + kind] = 1
    st[S_COLOUR] = spec[kind, COL_COLOUR]
    np_ = cfg[C_NP]
    for i in range(np_):
        seat = (first + i) % np_
        for _ in range(cfg[C_DEAL]):
            draw_die(st, cfg, dice, rng, seat)
    st[S_DRAWN_DIE] = -1
    st[S_LAST_PLAYER] = -1
    st[S_PHASE] = PH_TURN
    st[S_CUR] = first


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
            st[U.hand_at(seat, dice[die, st[O_DIE_FACE + die]])] -= 1
            face = U.below(rng, 6)
            st[O_DIE_FACE + die] = face
            st[U.hand_at(seat, dice[die, face])] += 1
    st[S_PHASE] = PH_REROLLED


# ---------------------------------------------------------------------------------------------- choosing the die
@njit(cache=True)
def plays_by_die(st, cfg, dice, mask):
    """Turn the per-kind plays the shared rules marked into per-die plays (seed 001: the player chooses a die
    from the hand, and two dice showing the same face are different dice).  In the drawn phase only the die just
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


# ---------------------------------------------------------------------------------------------- Wild Draw Four
@njit(cache=True)
def note_wd4(st, cfg, die):
    """A Wild Draw Four die is about to replace the centre die: remember what a guilty verdict restores."""
    old = st[O_DISC]
    st[S_WD_DIE] = die
    st[S_WD_PREV_DIE] = old
    st[S_WD_PREV_FACE] = st[O_DIE_FACE + old]
    st[S_WD_PREV_COLOUR] = st[S_COLOUR]


@njit(cache=True)
def take_back(st, cfg, dice, seat):
    """Seed 001, a challenged illegal Wild Draw Four: "the rule breaker must take the die back": the die returns
    to ``seat``'s hand (showing the same face) and the centre die it replaced comes back as it was, with the
    colour of that moment.  The replaced die is normally in the bag; if the rule breaker drew it meanwhile (caught
    without calling UNO) it leaves that hand for the centre."""
    die = st[S_WD_DIE]
    prev = st[S_WD_PREV_DIE]
    if die < 0 or prev < 0 or st[O_DIE_LOC + die] != LOC_CENTRE:
        return
    top = dice[die, st[O_DIE_FACE + die]]
    st[O_DISC_COUNT + top] -= 1
    st[O_DIE_LOC + die] = seat
    U.add_to_hand(st, seat, top)
    loc = st[O_DIE_LOC + prev]
    if loc == LOC_BAG:
        n = st[S_DRAW_N]
        for j in range(n):
            if st[O_DRAW + j] == prev:
                st[O_DRAW + j] = st[O_DRAW + n - 1]
                break
        st[S_DRAW_N] = n - 1
    elif loc >= 0:
        U.remove_from_hand(st, loc, dice[prev, st[O_DIE_FACE + prev]])
    face = st[S_WD_PREV_FACE]
    kind = dice[prev, face]
    st[O_DIE_LOC + prev] = LOC_CENTRE
    st[O_DIE_FACE + prev] = face
    st[O_DISC] = prev
    st[S_TOP] = kind
    st[O_DISC_COUNT + kind] += 1
    st[S_COLOUR] = st[S_WD_PREV_COLOUR]
    st[S_LAST_PLAYER] = -1
    forget_wd4(st)


@njit(cache=True, inline="always")
def forget_wd4(st):
    """The Wild Draw Four is settled (accepted, or challenged): nothing is left to restore."""
    st[S_WD_DIE] = -1
    st[S_WD_PREV_DIE] = -1
    st[S_WD_PREV_FACE] = -1
    st[S_WD_PREV_COLOUR] = -1
