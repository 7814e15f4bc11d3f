"""The course of a turn, composed from the rule families: a play and its effect, the end of the turn, the penalty
reaching the next seat, and the rounds.

Rules (project rules, all games; the games' rule sheets): a turn is: play a matching card, or draw (``drawing``).
After the play its effect applies (``action_cards``, ``wilds``, ``dip``, ``house``), a missed UNO call is caught
(``uno``), a jump-in window may open (``house``), a pending draw penalty reaches the next player, and the turn
passes in the direction of play.  A player who plays its last card wins the round (``rounds``).

The families never call each other or back into this module: each does its part and returns what follows (a
phase it opened, whether the turn ends, whether it skips), and the functions here chain them.  ``engine`` calls
these per action.
"""
from __future__ import annotations

from . import action_cards, drawing, house, rounds, uno, wilds
from . import dice as D
from ._cache import rule_sources, track_dependencies
from ._jit import njit, njit_refcounted
from .cards import COL_COLOUR, COL_SYMBOL, NO_COLOUR, WILD_DIP
from .common import begin_turn, next_seat, seed_rng
from .dip import dip
from .facts import UNO_PENALTY, draw_amount, plays_dice
from .layout import (
    O_DRAW,
    O_HAND_N,
    PH_PENDING,
    S_COLOUR,
    S_CUR,
    S_DEALER,
    S_DISC_N,
    S_DRAW_N,
    S_DRAWN,
    S_DRAWN_DIE,
    S_LAST_PLAYER,
    S_MATCH_WINNER,
    S_PENDING,
    S_PENDING_SYM,
    S_PHASE,
    S_PLAYED,
    S_TOP,
    S_WINNER,
)
from .moves import draw_many, put_on_top, remove_from_hand

track_dependencies(__file__, rule_sources())


# ---------------------------------------------------------------------------------------------- a play
@njit(cache=True)
def play(st, cfg, spec, dice, rng, seat, kind, call_uno, rew, die):
    """``seat`` plays ``kind`` (legality already checked): onto the discard, then its effect.  UNO Dice: ``die``
    is the chosen die showing ``kind`` (-1: the drawn die in the drawn phase, else the lowest-id one)."""
    if plays_dice(cfg):
        die = D.take_played_die(st, cfg, dice, seat, kind, die)
    wilds.note_play(st, cfg, spec, dice, seat, kind, die)
    uno.on_play(st, cfg, seat, call_uno)
    remove_from_hand(st, seat, kind)
    put_on_top(st, cfg, dice, seat, kind, die)
    st[S_LAST_PLAYER] = seat
    st[S_PLAYED] = 1
    st[S_DRAWN] = -1
    st[S_DRAWN_DIE] = -1
    if spec[kind, COL_COLOUR] != NO_COLOUR:
        st[S_COLOUR] = spec[kind, COL_COLOUR]
    if st[O_HAND_N + seat] == 0:
        # a draw card played as the last card still hits the next player, and those cards count
        st[S_PENDING] += draw_amount(spec[kind, COL_SYMBOL])
        finish_round(st, cfg, spec, dice, rng, seat, rew)
        return
    if spec[kind, COL_COLOUR] == NO_COLOUR:
        wilds.ask_colour(st, seat)
        return
    effect(st, cfg, spec, dice, rng, seat)


@njit(cache=True)
def effect(st, cfg, spec, dice, rng, seat):
    """The effect of the card on top, played by ``seat``, once its colour (if wild) is named."""
    follows = action_cards.apply_effect(st, cfg, spec)
    if follows != action_cards.NO_ACTION:
        end_turn(st, cfg, spec, dice, rng, seat, follows == action_cards.TURN_ENDS_SKIPPING)
        return
    sym = spec[st[S_TOP], COL_SYMBOL]
    if sym == WILD_DIP:
        dip(st, cfg, dice, rng, seat)
    elif not house.seven_zero_effect(st, cfg, sym):
        end_turn(st, cfg, spec, dice, rng, seat, False)


# ---------------------------------------------------------------------------------------------- drawing
@njit(cache=True)
def draw(st, cfg, spec, dice, rng, seat):
    """``seat`` draws instead of playing (``drawing.draw``); then it decides in the drawn phase, or its turn ends,
    or (``drawn_card: rlcard``) the card it played at once takes its effect."""
    follows = drawing.draw(st, cfg, spec, dice, rng, seat)
    if follows == drawing.DRAW_PLAYED:
        effect(st, cfg, spec, dice, rng, seat)
    elif follows == drawing.DRAW_ENDS_TURN:
        end_turn(st, cfg, spec, dice, rng, seat, False)


# ---------------------------------------------------------------------------------------------- the end of a turn
@njit(cache=True)
def end_turn(st, cfg, spec, dice, rng, seat, skip):
    """Close ``seat``'s turn and hand the turn on: catch a missed UNO, open a jump-in window, apply penalties."""
    if uno.caught(st, cfg, rng, seat):
        draw_many(st, cfg, dice, rng, seat, UNO_PENALTY)
    if house.open_jump_in(st, cfg, spec, seat):
        return
    advance(st, cfg, spec, dice, rng, seat, skip)


@njit(cache=True)
def advance(st, cfg, spec, dice, rng, seat, skip):
    """The turn passes on from ``seat``: a pending penalty reaches the next seat (who may answer it when a
    challenge or stacking allows, else draws and loses the turn); ``skip`` passes over the next seat."""
    nxt = next_seat(st, cfg, seat, 1)
    if st[S_PENDING] > 0:
        if wilds.challengeable(cfg, st[S_PENDING_SYM]) or house.stacking_on(cfg):
            st[S_CUR] = nxt
            st[S_PHASE] = PH_PENDING
            return
        draw_many(st, cfg, dice, rng, nxt, st[S_PENDING])
        st[S_PENDING] = 0
        st[S_PENDING_SYM] = -1
        begin_turn(st, cfg, next_seat(st, cfg, nxt, 1))
        return
    begin_turn(st, cfg, next_seat(st, cfg, seat, 2) if skip else nxt)


@njit(cache=True)
def pass_jump(st, cfg, spec, dice, rng, seat):
    """``seat`` declines to jump in; once every seat has declined, the turn passes on from the card's player."""
    origin, skip = house.pass_jump(st, cfg, spec, seat)
    if origin >= 0:
        advance(st, cfg, spec, dice, rng, origin, skip)


# ---------------------------------------------------------------------------------------------- rounds
@njit(cache=True)
def clear_round(st, cfg):
    """Clear the table for a new round: the round's fields (``rounds``) and the challenge's (``wilds``)."""
    rounds.clear_round(st, cfg)
    wilds.clear(st)


@njit(cache=True)
def start_round(st, cfg, spec, dice, rng, first_or_dealer):
    """Clear the table and deal a new round, cards or dice (compiled)."""
    clear_round(st, cfg)
    st[S_DEALER] = first_or_dealer
    rounds.deal(st, cfg, spec, dice, rng)


@njit(cache=True)
def finish_round(st, cfg, spec, dice, rng, winner, rew):
    """End the round won by ``winner`` (``rounds.finish_round``), then deal the next one unless the episode ends."""
    dealer = rounds.finish_round(st, cfg, spec, dice, rng, winner, rew)
    if dealer >= 0:
        start_round(st, cfg, spec, dice, rng, dealer)


@njit(cache=True)
def reset(st, rng, cfg, spec, dice, seed):
    """Deal a new game into state row ``st`` with PRNG ``rng`` seeded by ``seed`` (compiled; scores reset)."""
    seed_rng(rng, seed)
    for i in range(st.shape[0]):
        st[i] = 0
    st[S_WINNER] = -1
    st[S_MATCH_WINNER] = -1
    start_round(st, cfg, spec, dice, rng, rounds.first_dealer(cfg))


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
    if not rounds.deal_from_pile(st, cfg, spec, dice, rng):
        # first_wild=redeal: the prepared deal is over, a shuffled one follows
        rounds.deal_cards(st, cfg, spec, dice, rng)
