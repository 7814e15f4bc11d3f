"""The compiled rules core shared by the three games.

A game is one int32 row of fixed layout (``st``) plus one uint64 PRNG word (``rng``); a batch is a 2-D array of
rows.  Every function here works on one row; the kernels that loop over a batch are in ``batch.py``.  The rules
read the game's kind table (``spec``: colour, symbol, points, copies per kind), its dice (``dice``: kind of each
face, UNO Dice only) and the options (``cfg``, int64): nothing is recompiled when an option changes.

Cards of one kind are interchangeable, so card hands are counts per kind and the piles are stacks of kinds.
Dice are not interchangeable (each die has its own faces), so UNO Dice tracks every die: where it is and which
face it shows; the per-kind hand counts are kept beside that for the observer and the mask.

Set ``NUMBA_DISABLE_JIT=1`` to run this module as plain Python (tracebacks, coverage).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import cards
from ._cache import track_dependencies
from .cards import (
    COL_COLOUR,
    COL_COUNT,
    COL_POINTS,
    COL_SYMBOL,
    DRAW_ONE,
    DRAW_TWO,
    NO_COLOUR,
    REVERSE,
    SKIP,
    WILD,
    WILD_DIP,
    WILD_DRAW_FOUR,
    WILD_DRAW_TWO,
)

track_dependencies(__file__, [cards.__file__])

# ---------------------------------------------------------------------------------------------- limits
MAX_PLAYERS = 10
MAX_KINDS = 54
MAX_ITEMS = 128  # cards in a deck or dice in a bag
MAX_DICE = 64
GAME_CLASSIC, GAME_POCKET, GAME_DICE = 0, 1, 2

# ---------------------------------------------------------------------------------------------- options
C_GAME = 0
C_NP = 1
C_K = 2
C_EPISODE_MATCH = 3
C_REWARD_POINTS = 4
C_TARGET = 5
C_UNO_AUTO = 6
C_CATCH_THRESHOLD = 7  # uno_catch_probability * 2**32
C_MAX_TURNS = 8
C_FIRST_WILD_CHOOSE = 9
C_DRAW_UNTIL_PLAYABLE = 10
C_VOLUNTARY_DRAW = 11
C_WD_LEGAL_ANY_PLAYABLE = 12
C_CHALLENGE = 13
C_STACKING = 14
C_SEVEN_ZERO = 15
C_JUMP_IN = 16
C_FORCE_PLAY = 17
C_DICE_BLUFF = 18
C_DEAL = 19
C_NUM_DICE = 20
C_NUM_CARDS = 21
CFG_LEN = 22

# ---------------------------------------------------------------------------------------------- phases
PH_TURN = 0  # play or draw (dice: play or reroll)
PH_COLOUR = 1  # name the colour of the wild just played
PH_DRAWN = 2  # play the card/die just drawn, or keep it
PH_PENDING = 3  # a draw penalty is aimed at this seat: accept, challenge or stack
PH_GIVE = 4  # Wild Dip Into Deck: give one card to the next player
PH_SWAP = 5  # seven_zero: choose whom to swap hands with
PH_JUMP = 6  # jump_in: play the identical card out of turn, or pass
PH_REROLLED = 7  # dice: after a reroll, play a matching die or draw one
PH_OVER = 8
NUM_PHASES = 9
PHASE_NAMES = ("turn", "choose colour", "drawn", "pending draw", "give", "swap", "jump-in", "rerolled", "over")

# what happens once the colour of a wild is named
CONT_EFFECT = 0  # the wild's own effect (played card)
CONT_START = 1  # first card of the round was a Wild: the namer then plays the first turn

# ---------------------------------------------------------------------------------------------- state row
S_CUR = 0  # seat to act
S_PHASE = 1
S_DIR = 2  # +1 clockwise, -1
S_TOP = 3  # kind on top of the discard (dice: face of the centre die)
S_COLOUR = 4  # current colour 0..3
S_PENDING = 5  # cards/dice the victim of a draw card will draw
S_PENDING_SYM = 6  # symbol of the draw card that set it (stacking matches it)
S_WD_GUILTY = 7  # last challengeable wild was played illegally
S_WD_PLAYER = 8  # seat that played it
S_DRAWN = 9  # kind drawn this turn (PH_DRAWN), else -1
S_DRAWN_DIE = 10  # die drawn this turn (dice)
S_UNO_MISSED = 11  # seat that left itself on one card without calling, else -1
S_JUMP_ASK = 12  # seat being asked in a jump-in window
S_JUMP_FROM = 13  # seat whose card opened the window
S_DEALER = 14
S_ROUND = 15
S_TURNS = 16  # decisions taken this episode
S_DONE = 17  # 1 terminated, 2 truncated
S_WINNER = 18  # winner of the last finished round, else -1
S_DRAW_N = 19  # cards in the draw pile (dice: dice in the bag)
S_DISC_N = 20  # cards in the discard pile (dice: 1, the centre die)
S_CONT = 21  # continuation after PH_COLOUR
S_LAST_PLAYER = 22  # seat whose card is on top
S_ROUND_POINTS = 23  # points scored by the last finished round
S_MATCH_WINNER = 24
S_FLIPS = 25  # cards turned up to start the round (including wilds put back)
S_PLAYED = 26  # the acting seat has played a card this turn (a jump-in window follows only a play)
SCALARS = 32
O_HAND_N = SCALARS
O_CALLED = O_HAND_N + MAX_PLAYERS
O_SCORES = O_CALLED + MAX_PLAYERS
O_HAND = O_SCORES + MAX_PLAYERS  # MAX_PLAYERS x MAX_KINDS counts
O_DISC_COUNT = O_HAND + MAX_PLAYERS * MAX_KINDS  # kinds in the discard pile
O_DRAW = O_DISC_COUNT + MAX_KINDS  # draw pile (top last) / bag (unordered die ids)
O_DISC = O_DRAW + MAX_ITEMS  # discard pile (top last) / [centre die id]
O_DIE_LOC = O_DISC + MAX_ITEMS  # seat, LOC_BAG or LOC_CENTRE per die
O_DIE_FACE = O_DIE_LOC + MAX_DICE  # face index 0..5 per die
STATE_LEN = O_DIE_FACE + MAX_DICE
LOC_BAG = -1
LOC_CENTRE = -2

# ---------------------------------------------------------------------------------------------- step status
OK = 0
ERR_ILLEGAL = 1
ERR_RANGE = 2
ERR_OVER = 3


def action_offsets(num_kinds: int) -> dict[str, int]:
    """Start of each action section: the same formula for every game, so the rules need no table."""
    k = num_kinds
    return {
        "play": 0,
        "play_uno": k,
        "colour": 2 * k,
        "draw": 2 * k + 4,
        "keep": 2 * k + 5,
        "challenge": 2 * k + 6,
        "accept": 2 * k + 7,
        "pass": 2 * k + 8,
        "reroll": 2 * k + 9,
        "give": 2 * k + 10,
        "swap": 3 * k + 10,
        "num_actions": 3 * k + 10 + MAX_PLAYERS - 1,
    }


# ---------------------------------------------------------------------------------------------- PRNG
@njit(cache=True, inline="always")
def _next_u64(rng):
    # splitmix64: one uint64 of state per game, so a game's stream never depends on its batch
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _below(rng, n):
    # Lemire's multiply-shift on the high 32 bits: bias below 2**-32 * n, irrelevant for n <= 128
    return np.int64(((_next_u64(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def seed_rng(rng, seed):
    """Set a game's splitmix64 PRNG word ``rng[0]`` from ``seed`` (compiled)."""
    rng[0] = np.uint64(seed)
    _next_u64(rng)


# ---------------------------------------------------------------------------------------------- helpers
@njit(cache=True, inline="always")
def _hand(seat, kind):
    return O_HAND + seat * MAX_KINDS + kind


@njit(cache=True, inline="always")
def _next_seat(st, cfg, seat, steps):
    np_ = cfg[C_NP]
    return (seat + steps * st[S_DIR] + 2 * np_) % np_


@njit(cache=True)
def _shuffle(arr_st, start, n, rng):
    for i in range(n - 1, 0, -1):
        j = _below(rng, i + 1)
        t = arr_st[start + i]
        arr_st[start + i] = arr_st[start + j]
        arr_st[start + j] = t


@njit(cache=True, inline="always")
def _matches(st, spec, kind):
    """Plain match against the top: wilds always, else same colour or same number/symbol."""
    if spec[kind, COL_COLOUR] == NO_COLOUR:
        return True
    if spec[kind, COL_COLOUR] == st[S_COLOUR]:
        return True
    return spec[kind, COL_SYMBOL] == spec[st[S_TOP], COL_SYMBOL]


@njit(cache=True, inline="always")
def _is_restricted_wild(spec, kind):
    sym = spec[kind, COL_SYMBOL]
    return sym == WILD_DRAW_FOUR or sym == WILD_DRAW_TWO


@njit(cache=True)
def _restricted_wild_legal(st, cfg, spec, seat):
    """Whether a Wild Draw Four / Wild Draw 2 is a legal (non-bluff) play for ``seat`` now."""
    k = cfg[C_K]
    any_playable = cfg[C_WD_LEGAL_ANY_PLAYABLE] == 1 or cfg[C_GAME] == GAME_DICE
    hand = O_HAND + seat * MAX_KINDS
    for kind in range(k):
        if st[hand + kind] == 0 or _is_restricted_wild(spec, kind):
            continue
        if any_playable:
            if _matches(st, spec, kind):
                return False
        elif spec[kind, COL_COLOUR] == st[S_COLOUR]:
            return False
    return True


@njit(cache=True, inline="always")
def _bluff_allowed(cfg):
    if cfg[C_GAME] == GAME_DICE:
        return cfg[C_DICE_BLUFF] == 1
    return cfg[C_CHALLENGE] == 1


@njit(cache=True, inline="always")
def _playable(st, cfg, spec, seat, kind):
    """Whether ``seat`` may play ``kind`` in a normal turn (it holds it, it matches, restrictions allow)."""
    if st[_hand(seat, kind)] == 0 or not _matches(st, spec, kind):
        return False
    if _is_restricted_wild(spec, kind) and not _bluff_allowed(cfg):
        return _restricted_wild_legal(st, cfg, spec, seat)
    return True


@njit(cache=True)
def hand_points(st, cfg, spec, seat):
    """The scoring value of ``seat``'s hand: numbers at face value, coloured actions 20, wilds 50 (compiled)."""
    total = 0
    for kind in range(cfg[C_K]):
        total += st[_hand(seat, kind)] * spec[kind, COL_POINTS]
    return total


# ---------------------------------------------------------------------------------------------- moving cards
@njit(cache=True)
def _set_hand_n(st, seat, n):
    st[O_HAND_N + seat] = n
    if n != 1:
        st[O_CALLED + seat] = 0


@njit(cache=True)
def _draw_one(st, cfg, spec, dice, rng, seat):
    """Move one card (or a rolled die) from the draw pile/bag into ``seat``'s hand; -1 when there is none."""
    if cfg[C_GAME] == GAME_DICE:
        n = st[S_DRAW_N]
        if n == 0:
            return -1
        j = _below(rng, n)
        die = st[O_DRAW + j]
        st[O_DRAW + j] = st[O_DRAW + n - 1]
        st[S_DRAW_N] = n - 1
        face = _below(rng, 6)
        st[O_DIE_LOC + die] = seat
        st[O_DIE_FACE + die] = face
        kind = dice[die, face]
        st[_hand(seat, kind)] += 1
        _set_hand_n(st, seat, st[O_HAND_N + seat] + 1)
        st[S_DRAWN_DIE] = die
        return kind
    if st[S_DRAW_N] == 0:
        # reshuffle the discard pile except its top card into a new draw pile
        m = st[S_DISC_N] - 1
        if m <= 0:
            return -1
        for i in range(m):
            st[O_DRAW + i] = st[O_DISC + i]
            st[O_DISC_COUNT + st[O_DISC + i]] -= 1
        st[O_DISC] = st[O_DISC + m]
        st[S_DISC_N] = 1
        st[S_DRAW_N] = m
        _shuffle(st, O_DRAW, m, rng)
    n = st[S_DRAW_N] - 1
    kind = st[O_DRAW + n]
    st[S_DRAW_N] = n
    st[_hand(seat, kind)] += 1
    _set_hand_n(st, seat, st[O_HAND_N + seat] + 1)
    return kind


@njit(cache=True)
def _draw_many(st, cfg, spec, dice, rng, seat, n):
    for _ in range(n):
        if _draw_one(st, cfg, spec, dice, rng, seat) < 0:
            break


@njit(cache=True)
def _remove_from_hand(st, seat, kind):
    st[_hand(seat, kind)] -= 1
    _set_hand_n(st, seat, st[O_HAND_N + seat] - 1)


@njit(cache=True)
def _die_in_hand(st, cfg, dice, seat, kind):
    for die in range(cfg[C_NUM_DICE]):
        if st[O_DIE_LOC + die] == seat and dice[die, st[O_DIE_FACE + die]] == kind:
            return die
    return -1


@njit(cache=True)
def _put_on_top(st, cfg, dice, seat, kind, die):
    """The played card becomes the top of the discard; a played die becomes the centre die."""
    if cfg[C_GAME] == GAME_DICE:
        if die < 0:
            die = _die_in_hand(st, cfg, dice, seat, kind)
        old = st[O_DISC]
        st[O_DIE_LOC + old] = LOC_BAG
        st[O_DRAW + st[S_DRAW_N]] = old
        st[S_DRAW_N] += 1
        st[O_DIE_LOC + die] = LOC_CENTRE
        st[O_DISC] = die
        st[O_DISC_COUNT + st[S_TOP]] -= 1
    else:
        st[O_DISC + st[S_DISC_N]] = kind
        st[S_DISC_N] += 1
    st[O_DISC_COUNT + kind] += 1
    st[S_TOP] = kind


@njit(cache=True)
def _rotate_hands(st, cfg, direction):
    """seven_zero's 0: every hand passes to the next player in the direction of play."""
    np_ = cfg[C_NP]
    k = cfg[C_K]
    tmp = np.empty(MAX_PLAYERS * MAX_KINDS + MAX_PLAYERS, np.int32)
    for seat in range(np_):
        for kind in range(k):
            tmp[seat * MAX_KINDS + kind] = st[_hand(seat, kind)]
        tmp[MAX_PLAYERS * MAX_KINDS + seat] = st[O_HAND_N + seat]
    for seat in range(np_):
        src = (seat - direction + np_) % np_
        for kind in range(k):
            st[_hand(seat, kind)] = tmp[src * MAX_KINDS + kind]
        st[O_HAND_N + seat] = tmp[MAX_PLAYERS * MAX_KINDS + src]
        st[O_CALLED + seat] = 0


@njit(cache=True)
def _swap_hands(st, cfg, a, b):
    for kind in range(cfg[C_K]):
        t = st[_hand(a, kind)]
        st[_hand(a, kind)] = st[_hand(b, kind)]
        st[_hand(b, kind)] = t
    t = st[O_HAND_N + a]
    st[O_HAND_N + a] = st[O_HAND_N + b]
    st[O_HAND_N + b] = t
    st[O_CALLED + a] = 0
    st[O_CALLED + b] = 0


# ---------------------------------------------------------------------------------------------- round set-up
@njit(cache=True)
def _clear_round(st, cfg):
    for i in range(O_HAND, O_DIE_LOC):
        st[i] = 0
    for seat in range(MAX_PLAYERS):
        st[O_HAND_N + seat] = 0
        st[O_CALLED + seat] = 0
    st[S_PENDING] = 0
    st[S_PENDING_SYM] = -1
    st[S_WD_GUILTY] = 0
    st[S_WD_PLAYER] = -1
    st[S_DRAWN] = -1
    st[S_DRAWN_DIE] = -1
    st[S_UNO_MISSED] = -1
    st[S_JUMP_ASK] = -1
    st[S_JUMP_FROM] = -1
    st[S_DIR] = 1
    st[S_CONT] = CONT_EFFECT
    st[S_FLIPS] = 0
    st[S_PLAYED] = 0


@njit(cache=True)
def _deal_cards(st, cfg, spec, dice, rng):
    n = 0
    for kind in range(cfg[C_K]):
        for _ in range(spec[kind, COL_COUNT]):
            st[O_DRAW + n] = kind
            n += 1
    st[S_DRAW_N] = n
    st[S_DISC_N] = 0
    _shuffle(st, O_DRAW, n, rng)
    _deal_from_pile(st, cfg, spec, dice, rng)


@njit(cache=True)
def _deal_from_pile(st, cfg, spec, dice, rng):
    """Deal the hands from the draw pile as it stands (top last) and turn up the first card."""
    np_ = cfg[C_NP]
    for _ in range(cfg[C_DEAL]):
        for i in range(1, np_ + 1):  # one at a time, starting left of the dealer
            _draw_one(st, cfg, spec, dice, rng, (st[S_DEALER] + i) % np_)
    first = (st[S_DEALER] + 1) % np_
    # turn up the first card; wilds go back into the pile, which is reshuffled (first_wild=reshuffle)
    while True:
        st[S_FLIPS] += 1
        n = st[S_DRAW_N] - 1
        kind = st[O_DRAW + n]
        sym = spec[kind, COL_SYMBOL]
        if spec[kind, COL_COLOUR] == NO_COLOUR:
            if sym == WILD and cfg[C_GAME] == GAME_CLASSIC and cfg[C_FIRST_WILD_CHOOSE] == 1:
                break
            _shuffle(st, O_DRAW, n + 1, rng)
            continue
        break
    st[S_DRAW_N] = n
    st[O_DISC] = kind
    st[S_DISC_N] = 1
    st[O_DISC_COUNT + kind] += 1
    st[S_TOP] = kind
    st[S_LAST_PLAYER] = -1
    st[S_PHASE] = PH_TURN
    st[S_CUR] = first
    if spec[kind, COL_COLOUR] == NO_COLOUR:
        st[S_COLOUR] = 0
        st[S_PHASE] = PH_COLOUR
        st[S_CONT] = CONT_START
        return
    st[S_COLOUR] = spec[kind, COL_COLOUR]
    if sym == SKIP:
        st[S_CUR] = (first + 1) % np_
    elif sym == REVERSE and np_ == 2:  # acts as Skip; the direction flips as for a played Reverse
        st[S_DIR] = -1
        st[S_CUR] = (first + 1) % np_
    elif sym == REVERSE:
        st[S_DIR] = -1
        st[S_CUR] = (st[S_DEALER] - 1 + np_) % np_
    elif sym == DRAW_TWO or sym == DRAW_ONE:
        _draw_many(st, cfg, spec, dice, rng, first, 2 if sym == DRAW_TWO else 1)
        st[S_CUR] = (first + 1) % np_


@njit(cache=True)
def _deal_dice(st, cfg, spec, dice, rng, first):
    nd = cfg[C_NUM_DICE]
    for die in range(nd):
        st[O_DRAW + die] = die
        st[O_DIE_LOC + die] = LOC_BAG
        st[O_DIE_FACE + die] = 0
    st[S_DRAW_N] = nd
    # the centre die: rolled until it shows a number (a die with no number face is put back)
    while True:
        n = st[S_DRAW_N]
        j = _below(rng, n)
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
            st[S_FLIPS] += 1
            face = _below(rng, 6)
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
            _draw_one(st, cfg, spec, dice, rng, seat)
    st[S_DRAWN_DIE] = -1
    st[S_LAST_PLAYER] = -1
    st[S_PHASE] = PH_TURN
    st[S_CUR] = first


@njit(cache=True)
def _start_round(st, cfg, spec, dice, rng, first_or_dealer):
    _clear_round(st, cfg)
    if cfg[C_GAME] == GAME_DICE:
        st[S_DEALER] = first_or_dealer
        _deal_dice(st, cfg, spec, dice, rng, first_or_dealer)
    else:
        st[S_DEALER] = first_or_dealer
        _deal_cards(st, cfg, spec, dice, rng)


@njit(cache=True)
def deal_prepared(st, rng, cfg, spec, dice, dealer):
    """Test hook (card games): start a round from the draw pile already in ``st`` (a whole deck, top last),
    unshuffled, with ``dealer`` dealing: scenario tests of the deal and of the first card turned up."""
    n = st[S_DRAW_N]
    pile = st[O_DRAW: O_DRAW + n].copy()
    _clear_round(st, cfg)
    st[O_DRAW: O_DRAW + n] = pile
    st[S_DRAW_N] = n
    st[S_DISC_N] = 0
    st[S_DEALER] = dealer
    _deal_from_pile(st, cfg, spec, dice, rng)


@njit(cache=True)
def reset_one(st, rng, cfg, spec, dice, seed):
    """Deal a new game into state row ``st`` with PRNG ``rng`` seeded by ``seed`` (compiled; scores reset)."""
    seed_rng(rng, seed)
    for i in range(STATE_LEN):
        st[i] = 0
    st[S_ROUND] = 0
    st[S_TURNS] = 0
    st[S_DONE] = 0
    st[S_WINNER] = -1
    st[S_MATCH_WINNER] = -1
    st[S_ROUND_POINTS] = 0
    # classic/pocket: the dealer is the last seat, so seat 0 (left of the dealer) acts first;
    # dice: seat 0 rolls the centre die and acts first
    start = 0 if cfg[C_GAME] == GAME_DICE else cfg[C_NP] - 1
    _start_round(st, cfg, spec, dice, rng, start)


# ---------------------------------------------------------------------------------------------- legality
@njit(cache=True)
def legal_mask(st, cfg, spec, dice, mask):
    """Write the acting seat's legal actions into ``mask`` (int8, length A); returns how many are legal."""
    k = cfg[C_K]
    a_colour = 2 * k
    a_draw = 2 * k + 4
    a_keep = a_draw + 1
    a_challenge = a_draw + 2
    a_accept = a_draw + 3
    a_pass = a_draw + 4
    a_reroll = a_draw + 5
    a_give = 2 * k + 10
    a_swap = 3 * k + 10
    mask[:] = 0
    if st[S_DONE] != 0:
        return 0
    seat = st[S_CUR]
    phase = st[S_PHASE]
    uno_offered = cfg[C_UNO_AUTO] == 0 and st[O_HAND_N + seat] == 2
    dice_game = cfg[C_GAME] == GAME_DICE
    count = 0
    if phase == PH_TURN or phase == PH_REROLLED:
        hand = O_HAND + seat * MAX_KINDS
        for kind in range(k):
            if st[hand + kind] > 0 and _playable(st, cfg, spec, seat, kind):
                mask[kind] = 1
                count += 1
                if uno_offered:
                    mask[k + kind] = 1
                    count += 1
        if dice_game:
            if phase == PH_TURN:
                mask[a_reroll] = 1
            else:
                mask[a_draw] = 1
            count += 1
        elif count == 0 or cfg[C_VOLUNTARY_DRAW] == 1:
            mask[a_draw] = 1
            count += 1
    elif phase == PH_COLOUR:
        for c in range(4):
            mask[a_colour + c] = 1
        count = 4
    elif phase == PH_DRAWN:
        kind = st[S_DRAWN]
        mask[kind] = 1
        count = 1
        if uno_offered:
            mask[k + kind] = 1
            count += 1
        if cfg[C_FORCE_PLAY] == 0:
            mask[a_keep] = 1
            count += 1
    elif phase == PH_PENDING:
        mask[a_accept] = 1
        count = 1
        if _is_challengeable(cfg, st[S_PENDING_SYM]):
            mask[a_challenge] = 1
            count += 1
        if cfg[C_STACKING] == 1:
            for kind in range(k):
                if spec[kind, COL_SYMBOL] == st[S_PENDING_SYM] and st[_hand(seat, kind)] > 0:
                    if _is_restricted_wild(spec, kind) and not _bluff_allowed(cfg):
                        if not _restricted_wild_legal(st, cfg, spec, seat):
                            continue
                    mask[kind] = 1
                    count += 1
                    if uno_offered:
                        mask[k + kind] = 1
                        count += 1
    elif phase == PH_GIVE:
        for kind in range(k):
            if st[_hand(seat, kind)] > 0:
                mask[a_give + kind] = 1
                count += 1
    elif phase == PH_SWAP:
        for off in range(1, cfg[C_NP]):
            mask[a_swap + off - 1] = 1
            count += 1
    elif phase == PH_JUMP:
        kind = st[S_TOP]
        if st[_hand(seat, kind)] > 0:
            mask[kind] = 1
            count += 1
            if uno_offered:
                mask[k + kind] = 1
                count += 1
        mask[a_pass] = 1
        count += 1
    return count


@njit(cache=True, inline="always")
def _is_challengeable(cfg, sym):
    if sym != WILD_DRAW_FOUR and sym != WILD_DRAW_TWO:
        return False
    return _bluff_allowed(cfg)


# ---------------------------------------------------------------------------------------------- round end
@njit(cache=True)
def _finish_round(st, cfg, spec, dice, rng, winner, rew):
    np_ = cfg[C_NP]
    # a draw card played as the last card still hits the next player, and those cards count
    if st[S_PENDING] > 0:
        _draw_many(st, cfg, spec, dice, rng, _next_seat(st, cfg, winner, 1), st[S_PENDING])
        st[S_PENDING] = 0
    points = 0
    for seat in range(np_):
        if seat != winner:
            points += hand_points(st, cfg, spec, seat)
    st[O_SCORES + winner] += points
    st[S_WINNER] = winner
    st[S_ROUND_POINTS] = points
    target = cfg[C_TARGET]
    match_over = cfg[C_EPISODE_MATCH] == 0 or st[O_SCORES + winner] >= target
    if cfg[C_REWARD_POINTS] == 1:
        for seat in range(np_):
            if seat == winner:
                rew[seat] += points / target
            else:
                rew[seat] -= hand_points(st, cfg, spec, seat) / target
    elif match_over:
        for seat in range(np_):
            rew[seat] += 1.0 if seat == winner else -1.0 / (np_ - 1)
    if match_over:
        st[S_DONE] = 1
        st[S_PHASE] = PH_OVER
        st[S_MATCH_WINNER] = winner
        return
    st[S_ROUND] += 1
    if cfg[C_GAME] == GAME_DICE:
        _start_round(st, cfg, spec, dice, rng, winner)
    else:
        _start_round(st, cfg, spec, dice, rng, (st[S_DEALER] + 1) % np_)


# ---------------------------------------------------------------------------------------------- turn flow
@njit(cache=True)
def _begin_turn(st, cfg, seat):
    st[S_CUR] = seat
    st[S_PHASE] = PH_TURN
    st[S_DRAWN] = -1
    st[S_DRAWN_DIE] = -1
    st[S_PLAYED] = 0


@njit(cache=True)
def _uno_check(st, cfg, spec, dice, rng, seat):
    """The player who left itself on one card without calling UNO is caught before the next player acts."""
    if st[S_UNO_MISSED] == seat:
        st[S_UNO_MISSED] = -1
        if st[O_HAND_N + seat] == 1 and st[O_CALLED + seat] == 0:
            if np.int64(_next_u64(rng) >> np.uint64(32)) < cfg[C_CATCH_THRESHOLD]:
                _draw_many(st, cfg, spec, dice, rng, seat, 2)


@njit(cache=True)
def _end_turn(st, cfg, spec, dice, rng, seat, skip):
    """Close ``seat``'s turn and hand the turn on: catch a missed UNO, open a jump-in window, apply penalties."""
    _uno_check(st, cfg, spec, dice, rng, seat)
    top = st[S_TOP]
    if (
        cfg[C_JUMP_IN] == 1
        and spec[top, COL_SYMBOL] < 10
        and not (cfg[C_SEVEN_ZERO] == 1 and (spec[top, COL_SYMBOL] == 7 or spec[top, COL_SYMBOL] == 0))
        and st[S_PLAYED] == 1
    ):
        # every other seat is asked in turn order whether or not it holds the card, so being asked says nothing
        st[S_JUMP_FROM] = seat
        st[S_CUR] = _next_seat(st, cfg, seat, 1)
        st[S_PHASE] = PH_JUMP
        return
    _advance(st, cfg, spec, dice, rng, seat, skip)


@njit(cache=True)
def _advance(st, cfg, spec, dice, rng, seat, skip):
    nxt = _next_seat(st, cfg, seat, 1)
    if st[S_PENDING] > 0:
        if _is_challengeable(cfg, st[S_PENDING_SYM]) or cfg[C_STACKING] == 1:
            st[S_CUR] = nxt
            st[S_PHASE] = PH_PENDING
            return
        _draw_many(st, cfg, spec, dice, rng, nxt, st[S_PENDING])
        st[S_PENDING] = 0
        st[S_PENDING_SYM] = -1
        _begin_turn(st, cfg, _next_seat(st, cfg, nxt, 1))
        return
    _begin_turn(st, cfg, _next_seat(st, cfg, seat, 2) if skip else nxt)


@njit(cache=True)
def _apply_effect(st, cfg, spec, dice, rng, seat, rew):
    """The effect of the card on top, played by ``seat``, once its colour (if wild) is named."""
    kind = st[S_TOP]
    sym = spec[kind, COL_SYMBOL]
    np_ = cfg[C_NP]
    if sym == SKIP:
        _end_turn(st, cfg, spec, dice, rng, seat, True)
    elif sym == REVERSE:
        st[S_DIR] = -st[S_DIR]
        _end_turn(st, cfg, spec, dice, rng, seat, np_ == 2)
    elif sym == DRAW_TWO or sym == WILD_DRAW_FOUR or sym == DRAW_ONE or sym == WILD_DRAW_TWO:
        amount = 2
        if sym == WILD_DRAW_FOUR:
            amount = 4
        elif sym == DRAW_ONE:
            amount = 1
        st[S_PENDING] += amount
        st[S_PENDING_SYM] = sym
        _end_turn(st, cfg, spec, dice, rng, seat, False)
    elif sym == WILD_DIP:
        _draw_one(st, cfg, spec, dice, rng, seat)
        st[S_PHASE] = PH_GIVE
    elif cfg[C_SEVEN_ZERO] == 1 and sym == 7 and np_ > 1:
        st[S_PHASE] = PH_SWAP
    elif cfg[C_SEVEN_ZERO] == 1 and sym == 0:
        # hands that change owner carry no UNO penalty (catching before the pass would punish the receiver)
        _rotate_hands(st, cfg, st[S_DIR])
        st[S_UNO_MISSED] = -1
        _end_turn(st, cfg, spec, dice, rng, seat, False)
    else:
        _end_turn(st, cfg, spec, dice, rng, seat, False)


@njit(cache=True)
def _play(st, cfg, spec, dice, rng, seat, kind, call_uno, rew):
    """``seat`` plays ``kind`` (legality already checked)."""
    if _is_restricted_wild(spec, kind):
        st[S_WD_GUILTY] = 0 if _restricted_wild_legal(st, cfg, spec, seat) else 1
        st[S_WD_PLAYER] = seat
    if st[O_HAND_N + seat] == 2:
        if call_uno or cfg[C_UNO_AUTO] == 1:
            st[O_CALLED + seat] = 1
        else:
            st[S_UNO_MISSED] = seat
    die = st[S_DRAWN_DIE] if (st[S_PHASE] == PH_DRAWN and cfg[C_GAME] == GAME_DICE) else -1
    if cfg[C_GAME] == GAME_DICE and die < 0:
        die = _die_in_hand(st, cfg, dice, seat, kind)
    if cfg[C_GAME] == GAME_DICE:
        st[O_DIE_LOC + die] = LOC_CENTRE  # leaves the hand; _put_on_top finishes the move
    _remove_from_hand(st, seat, kind)
    _put_on_top(st, cfg, dice, seat, kind, die)
    st[S_LAST_PLAYER] = seat
    st[S_PLAYED] = 1
    st[S_DRAWN] = -1
    st[S_DRAWN_DIE] = -1
    if spec[kind, COL_COLOUR] != NO_COLOUR:
        st[S_COLOUR] = spec[kind, COL_COLOUR]
    if st[O_HAND_N + seat] == 0:
        sym = spec[kind, COL_SYMBOL]
        if sym == DRAW_TWO or sym == DRAW_ONE or sym == WILD_DRAW_FOUR or sym == WILD_DRAW_TWO:
            st[S_PENDING] += 4 if sym == WILD_DRAW_FOUR else (1 if sym == DRAW_ONE else 2)
        _finish_round(st, cfg, spec, dice, rng, seat, rew)
        return
    if spec[kind, COL_COLOUR] == NO_COLOUR:
        st[S_PHASE] = PH_COLOUR
        st[S_CONT] = CONT_EFFECT
        st[S_CUR] = seat
        return
    _apply_effect(st, cfg, spec, dice, rng, seat, rew)


@njit(cache=True)
def step_one(st, rng, cfg, spec, dice, action, mask, rew):
    """Apply one action of the acting seat. Returns a status code; on error the state is untouched.

    ``mask`` is scratch space of length A; ``rew`` (float32, MAX_PLAYERS) receives this step's rewards.
    """
    for i in range(MAX_PLAYERS):
        rew[i] = 0.0
    if st[S_DONE] != 0:
        return ERR_OVER
    if action < 0 or action >= mask.shape[0]:
        return ERR_RANGE
    legal_mask(st, cfg, spec, dice, mask)
    if mask[action] == 0:
        return ERR_ILLEGAL
    _apply(st, rng, cfg, spec, dice, action, rew)
    return OK


@njit(cache=True)
def step_masked(st, rng, cfg, spec, dice, action, mask, rew):
    """``step_one`` for a caller that keeps ``mask`` equal to the current legal mask (the AEC env, the batch).

    Checks the action against ``mask``, applies it and rewrites ``mask`` for the new state: one legality pass
    a step instead of two.  Returns ``status | rewarded << 2 | done << 3 | seat_to_act << 8``.
    """
    if st[S_DONE] != 0:
        return ERR_OVER
    if action < 0 or action >= mask.shape[0]:
        return ERR_RANGE
    if mask[action] == 0:
        return ERR_ILLEGAL
    for i in range(MAX_PLAYERS):
        rew[i] = 0.0
    _apply(st, rng, cfg, spec, dice, action, rew)
    legal_mask(st, cfg, spec, dice, mask)
    rewarded = 0
    for i in range(MAX_PLAYERS):
        if rew[i] != 0.0:
            rewarded = 1
    return OK | (rewarded << 2) | (st[S_DONE] << 3) | (st[S_CUR] << 8)


@njit(cache=True)
def _apply(st, rng, cfg, spec, dice, action, rew):
    k = cfg[C_K]
    seat = st[S_CUR]
    phase = st[S_PHASE]
    st[S_TURNS] += 1
    a_colour = 2 * k
    a_draw = 2 * k + 4
    if action < 2 * k:
        # a play in a normal turn, of the drawn card, a stacked draw card (the penalty passes on, growing, and
        # the earlier card can no longer be challenged) or a jump-in (play continues from the jumper)
        if phase == PH_JUMP:
            st[S_CUR] = seat
            st[S_JUMP_FROM] = -1
        _play(st, cfg, spec, dice, rng, seat, action if action < k else action - k, action >= k, rew)
    elif action < a_draw:
        st[S_COLOUR] = action - a_colour
        if st[S_CONT] == CONT_START:
            st[S_CONT] = CONT_EFFECT
            _begin_turn(st, cfg, seat)
        else:
            _apply_effect(st, cfg, spec, dice, rng, seat, rew)
    elif action == a_draw:
        _do_draw(st, cfg, spec, dice, rng, seat)
    elif action == a_draw + 1:  # keep the drawn card
        _end_turn(st, cfg, spec, dice, rng, seat, False)
    elif action == a_draw + 2:  # challenge
        pending = st[S_PENDING]
        st[S_PENDING] = 0
        st[S_PENDING_SYM] = -1
        if st[S_WD_GUILTY] == 1:
            _draw_many(st, cfg, spec, dice, rng, st[S_WD_PLAYER], pending)
            _begin_turn(st, cfg, seat)
        else:
            _draw_many(st, cfg, spec, dice, rng, seat, pending + 2)
            _begin_turn(st, cfg, _next_seat(st, cfg, seat, 1))
    elif action == a_draw + 3:  # accept the penalty
        _draw_many(st, cfg, spec, dice, rng, seat, st[S_PENDING])
        st[S_PENDING] = 0
        st[S_PENDING_SYM] = -1
        _begin_turn(st, cfg, _next_seat(st, cfg, seat, 1))
    elif action == a_draw + 4:  # decline to jump in: ask the next seat, or close the window
        nxt = _next_seat(st, cfg, seat, 1)
        origin = st[S_JUMP_FROM]
        if nxt == origin:
            st[S_JUMP_FROM] = -1
            _advance(st, cfg, spec, dice, rng, origin, False)
        else:
            st[S_CUR] = nxt
    elif action == a_draw + 5:  # reroll the whole hand (dice)
        for die in range(cfg[C_NUM_DICE]):
            if st[O_DIE_LOC + die] == seat:
                st[_hand(seat, dice[die, st[O_DIE_FACE + die]])] -= 1
                face = _below(rng, 6)
                st[O_DIE_FACE + die] = face
                st[_hand(seat, dice[die, face])] += 1
        st[S_PHASE] = PH_REROLLED
    elif action < 3 * k + 10:  # give a card (Wild Dip Into Deck)
        kind = action - (2 * k + 10)
        _remove_from_hand(st, seat, kind)
        if st[O_HAND_N + seat] == 1 and st[S_UNO_MISSED] != seat:
            st[O_CALLED + seat] = 1  # UNO called with the Dip (drawing cleared the flag) counts after the give
        nxt = _next_seat(st, cfg, seat, 1)
        st[_hand(nxt, kind)] += 1
        _set_hand_n(st, nxt, st[O_HAND_N + nxt] + 1)
        _end_turn(st, cfg, spec, dice, rng, seat, False)
    else:  # swap hands (seven_zero)
        other = (seat + action - (3 * k + 10) + 1) % cfg[C_NP]
        _swap_hands(st, cfg, seat, other)  # no UNO penalty: the one-card hand changes owner
        st[S_UNO_MISSED] = -1
        _end_turn(st, cfg, spec, dice, rng, seat, False)
    if st[S_DONE] == 0 and st[S_TURNS] >= cfg[C_MAX_TURNS]:
        st[S_DONE] = 2
        st[S_PHASE] = PH_OVER


@njit(cache=True)
def _do_draw(st, cfg, spec, dice, rng, seat):
    limit = 10 if cfg[C_DRAW_UNTIL_PLAYABLE] == 1 and cfg[C_GAME] != GAME_DICE else 1
    for _ in range(limit):
        kind = _draw_one(st, cfg, spec, dice, rng, seat)
        if kind < 0:
            break
        if _playable(st, cfg, spec, seat, kind):
            st[S_DRAWN] = kind
            st[S_PHASE] = PH_DRAWN
            return
    _end_turn(st, cfg, spec, dice, rng, seat, False)
