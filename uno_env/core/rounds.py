"""Start and end of a round, and scoring.

Rules: classic deals 7, pocket 5 (seeds 004, 000), one card at a time from the seat left of the dealer, who acts
first; the first card turned up takes effect on the first player (Skip: skipped; Reverse: direction flips, with
two players as Skip; Draw Two / Draw One: the first player draws and is skipped).  A wild turned up in classic
starts the deal over: every card back, shuffled, the same dealer deals again (``first_wild: redeal``, seed 004
"sekoita kortit uudelleen ja aloita alusta"); or it goes back and the pile is reshuffled (pocket, seed 000;
classic ``first_wild: reshuffle``), or the first player names the colour (``choose_colour``, the older
official sheet).  UNO Dice sets up with ``dice.deal``.  A round ends the moment
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
from . import common as U
from . import dice as D
from . import drawing, wilds
from ._cache import rule_sources, track_dependencies
from ._jit import njit, njit_refcounted
from .cards import COL_COLOUR, COL_COUNT, COL_SYMBOL, DRAW_ONE, DRAW_TWO, NO_COLOUR, REVERSE, SKIP, WILD
from .layout import *  # noqa: F403 - generated state offsets S_*, O_*, option slots C_*, phases PH_*

track_dependencies(__file__, rule_sources())



@njit(cache=True)
def clear_round(st, cfg):
    """Zero the parts of the state row that a new round starts afresh (hands, piles, pending draw; compiled)."""
    lo, hi = ROUND_CLEARED
    for i in range(lo, hi):
        st[i] = 0
    for i in range(O_HAND, st.shape[0]):  # the hands end the row, which is as long as the game's seats need
        st[i] = 0
    for seat in range(MAX_PLAYERS):
        st[O_HAND_N + seat] = 0
        st[O_CALLED + seat] = 0
    st[S_PENDING] = 0
    st[S_PENDING_SYM] = -1
    st[S_WD_GUILTY] = 0
    st[S_WD_PLAYER] = -1
    st[S_WD_DIE] = -1
    st[S_WD_PREV_DIE] = -1
    st[S_WD_PREV_FACE] = -1
    st[S_WD_PREV_COLOUR] = -1
    st[S_DRAWN] = -1
    st[S_DRAWN_DIE] = -1
    st[S_UNO_MISSED] = -1
    st[S_JUMP_ASK] = -1
    st[S_JUMP_FROM] = -1
    st[S_DIR] = 1
    st[S_CONT] = CONT_EFFECT
    U.set_wide(st, S_FLIPS, 0)
    st[S_PLAYED] = 0
    wilds.forget_shown(st)


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
    U.shuffle(st, O_DRAW, n, rng)


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
            drawing.draw_one(st, cfg, spec, dice, rng, (st[S_DEALER] + i) % np_)
    first = (st[S_DEALER] + 1) % np_
    # turn up the first card; a wild starts the deal over (classic first_wild=redeal) or goes back into the
    # pile, which is reshuffled (pocket; classic first_wild=reshuffle)
    classic = cfg[C_GAME] == GAME_CLASSIC
    while True:
        U.set_wide(st, S_FLIPS, U.get_wide(st, S_FLIPS) + 1)
        n = st[S_DRAW_N] - 1
        kind = st[O_DRAW + n]
        sym = spec[kind, COL_SYMBOL]
        if spec[kind, COL_COLOUR] == NO_COLOUR:
            if classic and cfg[C_FIRST_WILD] == FIRST_WILD_REDEAL:
                return False
            keep_wild = cfg[C_FIRST_WILD] == FIRST_WILD_CHOOSE or cfg[C_FIRST_WILD] == FIRST_WILD_RANDOM
            if sym == WILD and classic and keep_wild:
                break
            U.shuffle(st, O_DRAW, n + 1, rng)
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
    if spec[kind, COL_COLOUR] == NO_COLOUR and cfg[C_FIRST_WILD] == FIRST_WILD_RANDOM:
        st[S_COLOUR] = U.below(rng, 4)  # RLCard's flip_top_card: a random colour, then the first player plays
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
        drawing.draw_many(st, cfg, spec, dice, rng, first, 2 if sym == DRAW_TWO else 1)
        if sym == DRAW_ONE or cfg[C_FIRST_DRAW_TWO_PLAY] == 0:
            st[S_CUR] = (first + 1) % np_
    return True


@njit(cache=True)
def start_round(st, cfg, spec, dice, rng, first_or_dealer):
    """Clear the table and deal a new round, cards or dice (compiled)."""
    clear_round(st, cfg)
    st[S_DEALER] = first_or_dealer
    if cfg[C_GAME] == GAME_DICE:
        D.deal(st, cfg, spec, dice, rng, first_or_dealer)
    else:
        deal_cards(st, cfg, spec, dice, rng)


@njit(cache=True)
def reset(st, rng, cfg, spec, dice, seed):
    """Deal a new game into state row ``st`` with PRNG ``rng`` seeded by ``seed`` (compiled; scores reset)."""
    U.seed_rng(rng, seed)
    for i in range(st.shape[0]):
        st[i] = 0
    st[S_WINNER] = -1
    st[S_MATCH_WINNER] = -1
    # classic/pocket: the dealer is the last seat, so seat 0 (left of the dealer) acts first;
    # dice: seat 0 rolls the centre die and acts first
    start = 0 if cfg[C_GAME] == GAME_DICE else cfg[C_NP] - 1
    start_round(st, cfg, spec, dice, rng, start)


@njit_refcounted(cache=True)  # copies the prepared pile
def deal_prepared(st, rng, cfg, spec, dice, dealer):
    """Test hook (card games): start a round from the draw pile already in ``st`` (a whole deck, top last),
    unshuffled, with ``dealer`` dealing: scenario tests of the deal and of the first card turned up."""
    n = st[S_DRAW_N]
    pile = st[O_DRAW: O_DRAW + n].copy()
    clear_round(st, cfg)
    st[O_DRAW: O_DRAW + n] = pile
    st[S_DRAW_N] = n
    st[S_DISC_N] = 0
    st[S_DEALER] = dealer
    if not deal_from_pile(st, cfg, spec, dice, rng):
        deal_cards(st, cfg, spec, dice, rng)  # first_wild=redeal: the prepared deal is over, a shuffled one follows


@njit(cache=True)
def finish_round(st, cfg, spec, dice, rng, winner, rew):
    """End the round won by ``winner``: apply a pending draw, score the other hands, write the rewards into ``rew`` and
    start the next round or end the match (compiled).
    """
    np_ = cfg[C_NP]
    if st[S_PENDING] > 0:
        drawing.draw_many(st, cfg, spec, dice, rng, U.next_seat(st, cfg, winner, 1), st[S_PENDING])
        st[S_PENDING] = 0
    points = 0
    for seat in range(np_):
        if seat != winner:
            points += U.hand_points(st, cfg, spec, seat)
    U.set_wide(st, O_SCORES + 2 * winner, U.get_wide(st, O_SCORES + 2 * winner) + points)
    st[S_WINNER] = winner
    U.set_wide(st, S_ROUND_POINTS, points)
    target = cfg[C_TARGET]
    match_over = cfg[C_EPISODE_MATCH] == 0 or U.get_wide(st, O_SCORES + 2 * winner) >= target
    if cfg[C_REWARD_POINTS] == 1:
        for seat in range(np_):
            if seat == winner:
                rew[seat] += points / target
            else:
                rew[seat] -= U.hand_points(st, cfg, spec, seat) / target
    elif match_over:
        for seat in range(np_):
            rew[seat] += 1.0 if seat == winner else -1.0 / (np_ - 1)
    if match_over:
        st[S_DONE] = 1
        st[S_PHASE] = PH_OVER
        st[S_MATCH_WINNER] = winner
        return
    U.set_wide(st, S_ROUND, U.get_wide(st, S_ROUND) + 1)
    if cfg[C_GAME] == GAME_DICE:
        start_round(st, cfg, spec, dice, rng, winner)
    else:
        start_round(st, cfg, spec, dice, rng, (st[S_DEALER] + 1) % np_)
