"""Start and end of a round, and scoring.

Rules: classic deals 7, pocket 5 (their rule sheets), one card at a time from the seat left of the dealer, who acts
first; the first card turned up takes effect on the first player (Skip: skipped; Reverse: direction flips, with
two players as Skip; Draw Two / Draw One: the first player draws and is skipped).  A wild turned up in classic
starts the deal over: every card back, shuffled, the same dealer deals again (``first_wild: redeal``, the classic rule
sheet: "sekoita kortit uudelleen ja aloita alusta"); or it goes back and the pile is reshuffled (pocket, its rule sheet;
classic ``first_wild: reshuffle``), or the first player names the colour (``choose_colour``, the older
official sheet).  UNO Dice (its rule sheet): every die into the bag, a centre die rolled until it shows a number (a
die with no number face goes back), then 5 dice to each hand, rolled.  A round ends the moment
a player has no cards left; a draw card played last still hits the next player and those cards count.  The
winner scores the points left in the other hands (numbers face value, actions 20, wilds 50; project rules, all games);
option ``episode``: ``round`` ends the episode, ``match`` plays rounds until a score reaches ``target_score``
(the dealer moves left; in UNO Dice the round winner starts).  Option ``reward``: ``win_loss`` (+1, -1/(n-1))
or ``points`` (+-points/target each round).

RLCard's first card (the ``rlcard`` preset) is options: ``first_wild: random_colour`` (a Wild takes a random
colour), ``first_draw_two: play`` (the first player draws 2, then plays), ``first_reverse: dealer`` (the dealer
plays first) and ``reverse_two_players: reverse``.
"""
from __future__ import annotations

from ..config import OPTIONS
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .cards import COL_COLOUR, COL_COUNT, COL_SYMBOL, DRAW_ONE, DRAW_TWO, NO_COLOUR, REVERSE, SKIP, WILD
from .common import below, get_wide, hand_points, next_seat, set_wide, shuffle
from .facts import F_FIRST_WILD_OPTION, F_WINNER_STARTS, draw_amount, game_has, plays_dice
from .layout import (
    C_DEAL,
    C_EPISODE_MATCH,
    C_FIRST_DRAW_TWO_PLAY,
    C_FIRST_REVERSE_DEALER,
    C_FIRST_WILD,
    C_K,
    C_NP,
    C_NUM_DICE,
    C_REVERSE_NO_SKIP,
    C_REWARD_POINTS,
    C_TARGET,
    CONT_EFFECT,
    CONT_START,
    LOC_BAG,
    LOC_CENTRE,
    MAX_KINDS,
    MAX_PLAYERS,
    O_DIE_FACE,
    O_DIE_LOC,
    O_DISC,
    O_DISC_COUNT,
    O_DRAW,
    O_HAND,
    O_HAND_N,
    O_SCORES,
    PH_COLOUR,
    PH_OVER,
    PH_TURN,
    ROUND_CLEARED,
    S_COLOUR,
    S_CONT,
    S_CUR,
    S_DEALER,
    S_DIR,
    S_DISC_N,
    S_DONE,
    S_DRAW_N,
    S_DRAWN,
    S_DRAWN_DIE,
    S_FLIPS,
    S_JUMP_ASK,
    S_JUMP_FROM,
    S_LAST_PLAYER,
    S_MATCH_WINNER,
    S_PENDING,
    S_PENDING_SYM,
    S_PHASE,
    S_PLAYED,
    S_ROUND,
    S_ROUND_POINTS,
    S_TOP,
    S_WINNER,
)
from .moves import draw_die, draw_many, draw_one
from .uno import clear_calls

track_dependencies(__file__, rule_sources())


@njit(cache=True)
def clear_round(st, cfg):
    """Zero the parts of the state row that a new round starts afresh (hands, piles, pending draw, UNO calls; the
    challenge's fields are ``wilds.clear``; compiled)."""
    lo, hi = ROUND_CLEARED
    for i in range(lo, hi):
        st[i] = 0
    for i in range(O_HAND, st.shape[0]):  # the hands end the row, which is as long as the game's seats need
        st[i] = 0
    for seat in range(MAX_PLAYERS):
        st[O_HAND_N + seat] = 0
    clear_calls(st)
    st[S_PENDING] = 0
    st[S_PENDING_SYM] = -1
    st[S_DRAWN] = -1
    st[S_DRAWN_DIE] = -1
    st[S_JUMP_ASK] = -1
    st[S_JUMP_FROM] = -1
    st[S_DIR] = 1
    st[S_CONT] = CONT_EFFECT
    set_wide(st, S_FLIPS, 0)
    st[S_PLAYED] = 0


#: The choices of the ``first_wild`` option (the compiled rules read the index).
FIRST_WILD_REDEAL, FIRST_WILD_RESHUFFLE, FIRST_WILD_CHOOSE, FIRST_WILD_RANDOM = (
    OPTIONS["first_wild"].encode(choice) for choice in ("redeal", "reshuffle", "choose_colour", "random_colour"))
#: Redeals allowed before giving up.  A redeal is a fresh shuffle of the whole deck, so the chance that the
#: first card flipped is a wild again is (wilds / cards) independently each time: 8/108 classic, so 200 wild
#: first cards in a row has probability below 1e-220; only a deck with no coloured card could reach the cap,
#: and the packaged decks have none such.  Reaching it raises rather than loops.
MAX_REDEALS = 200


@njit(cache=True)
def build_pile(st, cfg, spec, rng):
    """Every card of the deck, shuffled, into the draw pile; hands and discard empty (compiled)."""
    for i in range(O_HAND, st.shape[0]):  # the hands of the game's seats end the row
        st[i] = 0
    for seat in range(MAX_PLAYERS):
        st[O_HAND_N + seat] = 0
    for kind in range(MAX_KINDS):
        st[O_DISC_COUNT + kind] = 0
    n = 0
    for kind in range(cfg[C_K]):
        for _ in range(spec[kind, COL_COUNT]):
            st[O_DRAW + n] = kind
            n += 1
    st[S_DRAW_N] = n
    st[S_DISC_N] = 0
    shuffle(st, O_DRAW, n, rng)


@njit(cache=True)
def deal(st, cfg, spec, dice, rng):
    """Deal the round just cleared, cards or dice (compiled)."""
    if plays_dice(cfg):
        deal_dice(st, cfg, spec, dice, rng, st[S_DEALER])
    else:
        deal_cards(st, cfg, spec, dice, rng)


@njit(cache=True)
def deal_cards(st, cfg, spec, dice, rng):
    """Card games: shuffle the deck, deal the hands and flip the first card; a new deal while the first card
    is a wild under ``first_wild: redeal`` (compiled)."""
    for _ in range(MAX_REDEALS):
        build_pile(st, cfg, spec, rng)
        if deal_from_pile(st, cfg, spec, dice, rng):
            return
    raise ValueError("first_wild: redeal: the first card was a wild in 200 deals in a row (a deck of wilds?)")


@njit(cache=True)
def deal_from_pile(st, cfg, spec, dice, rng):
    """Deal the hands from the draw pile as it stands (top last) and turn up the first card; False when the
    first card is a wild under ``first_wild: redeal`` (classic), so the deal must start over."""
    np_ = cfg[C_NP]
    for _ in range(cfg[C_DEAL]):
        for i in range(1, np_ + 1):  # one at a time, starting left of the dealer
            draw_one(st, cfg, dice, rng, (st[S_DEALER] + i) % np_)
    first = (st[S_DEALER] + 1) % np_
    # turn up the first card; a wild starts the deal over (classic first_wild=redeal) or goes back into the
    # pile, which is reshuffled (pocket; classic first_wild=reshuffle)
    first_wild = cfg[C_FIRST_WILD] if game_has(cfg, F_FIRST_WILD_OPTION) else FIRST_WILD_RESHUFFLE
    while True:
        set_wide(st, S_FLIPS, get_wide(st, S_FLIPS) + 1)
        n = st[S_DRAW_N] - 1
        kind = st[O_DRAW + n]
        sym = spec[kind, COL_SYMBOL]
        if spec[kind, COL_COLOUR] == NO_COLOUR:
            if first_wild == FIRST_WILD_REDEAL:
                return False
            if sym == WILD and (first_wild == FIRST_WILD_CHOOSE or first_wild == FIRST_WILD_RANDOM):
                break
            shuffle(st, O_DRAW, n + 1, rng)
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
    if spec[kind, COL_COLOUR] == NO_COLOUR and first_wild == FIRST_WILD_RANDOM:
        st[S_COLOUR] = below(rng, 4)  # RLCard's flip_top_card: a random colour, then the first player plays
        return True
    if spec[kind, COL_COLOUR] == NO_COLOUR:
        st[S_COLOUR] = 0
        st[S_PHASE] = PH_COLOUR
        st[S_CONT] = CONT_START
        return True
    st[S_COLOUR] = spec[kind, COL_COLOUR]
    if sym == SKIP:
        st[S_CUR] = (first + 1) % np_
    elif sym == REVERSE and np_ == 2 and cfg[C_REVERSE_NO_SKIP] == 0:  # acts as Skip; the direction flips too
        st[S_DIR] = -1
        st[S_CUR] = (first + 1) % np_
    elif sym == REVERSE:
        st[S_DIR] = -1
        st[S_CUR] = st[S_DEALER] if cfg[C_FIRST_REVERSE_DEALER] == 1 else (st[S_DEALER] - 1 + np_) % np_
    elif sym == DRAW_TWO or sym == DRAW_ONE:
        draw_many(st, cfg, dice, rng, first, draw_amount(sym))
        if sym == DRAW_ONE or cfg[C_FIRST_DRAW_TWO_PLAY] == 0:
            st[S_CUR] = (first + 1) % np_
    return True


@njit(cache=True)
def deal_dice(st, cfg, spec, dice, rng, first):
    """UNO Dice: all dice into the bag, the centre die rolled until it shows a number, then 5 dice to each hand."""
    nd = cfg[C_NUM_DICE]
    for die in range(nd):
        st[O_DRAW + die] = die
        st[O_DIE_LOC + die] = LOC_BAG
        st[O_DIE_FACE + die] = 0
    st[S_DRAW_N] = nd
    while True:
        n = st[S_DRAW_N]
        j = below(rng, n)
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
            set_wide(st, S_FLIPS, get_wide(st, S_FLIPS) + 1)
            face = below(rng, 6)
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
def first_dealer(cfg):
    """Who deals the first round: the last seat, so that seat 0 (left of the dealer) acts first; in UNO Dice seat 0,
    which rolls the centre die and acts first (compiled)."""
    return 0 if game_has(cfg, F_WINNER_STARTS) else cfg[C_NP] - 1


@njit(cache=True)
def finish_round(st, cfg, spec, dice, rng, winner, rew):
    """End the round won by ``winner``: apply a pending draw, score the other hands and write the rewards into
    ``rew``; returns who deals the next round, or -1 when the episode is over (compiled).
    """
    np_ = cfg[C_NP]
    if st[S_PENDING] > 0:
        draw_many(st, cfg, dice, rng, next_seat(st, cfg, winner, 1), st[S_PENDING])
        st[S_PENDING] = 0
    points = 0
    for seat in range(np_):
        if seat != winner:
            points += hand_points(st, cfg, spec, seat)
    set_wide(st, O_SCORES + 2 * winner, get_wide(st, O_SCORES + 2 * winner) + points)
    st[S_WINNER] = winner
    set_wide(st, S_ROUND_POINTS, points)
    target = cfg[C_TARGET]
    match_over = cfg[C_EPISODE_MATCH] == 0 or get_wide(st, O_SCORES + 2 * winner) >= target
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
        return -1
    set_wide(st, S_ROUND, get_wide(st, S_ROUND) + 1)
    return winner if game_has(cfg, F_WINNER_STARTS) else (st[S_DEALER] + 1) % np_
