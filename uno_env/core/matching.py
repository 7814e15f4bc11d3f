"""Matching and the turn.

Rules (project rules, all games; seeds 004, 000, 001): a card/face is playable when it matches the current colour, the
number or the action symbol of the top card; wilds are always playable (Wild Draw Four / Wild Draw 2 have their
own restriction, ``wilds``).  A turn is: play a matching card, or draw (``drawing``).  After the play its effect
applies (``action_cards``, ``wilds``), a missed UNO call is caught (``uno``), a jump-in window may open
(``house``), a pending draw penalty reaches the next player, and the turn passes in the direction of play.
A player who plays its last card wins the round (``rounds``).
"""
from __future__ import annotations

from . import action_cards, drawing, house, rounds, uno, wilds
from . import common as U
from . import dice as D
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .cards import COL_COLOUR, COL_SYMBOL, NO_COLOUR
from .layout import *  # noqa: F403 - generated state offsets S_*, O_*, option slots C_*, phases PH_*

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
def playable(st, cfg, spec, seat, kind):
    """Whether ``seat`` may play ``kind`` in a normal turn (it holds it, it matches, restrictions allow)."""
    if st[U.hand_at(seat, kind)] == 0 or not matches(st, spec, kind):
        return False
    return wilds.restriction_allows(st, cfg, spec, seat, kind)


@njit(cache=True, inline="always")
def turn_legal(st, cfg, spec, mask, uno_offered):
    """The plays of a normal turn (or of a dice turn after a reroll): every playable kind held."""
    k = cfg[C_K]
    seat = st[S_CUR]
    hand = O_HAND + seat * MAX_KINDS
    held = U.kinds_held(st[hand:hand + k], k)
    count = 0
    while held != 0:  # the held kinds, in kind order
        kind = U.lowest_kind(held)
        held &= held - 1
        if playable(st, cfg, spec, seat, kind):
            count += U.offer_play(mask, k, kind, uno_offered)
    return count


@njit(cache=True)
def play(st, cfg, spec, dice, rng, seat, kind, call_uno, rew, die):
    """``seat`` plays ``kind`` (legality already checked): onto the discard, then its effect.  UNO Dice: ``die``
    is the chosen die showing ``kind`` (-1: the drawn die in the drawn phase, else the lowest-id one)."""
    wilds.note_restricted_play(st, cfg, spec, seat, kind)
    uno.on_play(st, cfg, seat, call_uno)
    if cfg[C_GAME] == GAME_DICE:
        if die < 0:
            die = st[S_DRAWN_DIE] if st[S_PHASE] == PH_DRAWN else U.die_in_hand(st, cfg, dice, seat, kind)
        if U.is_restricted_wild(spec, kind) and wilds.bluff_allowed(cfg):
            D.note_wd4(st, cfg, die)
        st[O_DIE_LOC + die] = LOC_CENTRE  # leaves the hand; put_on_top finishes the move
    U.remove_from_hand(st, seat, kind)
    U.put_on_top(st, cfg, dice, seat, kind, die)
    st[S_LAST_PLAYER] = seat
    st[S_PLAYED] = 1
    st[S_DRAWN] = -1
    st[S_DRAWN_DIE] = -1
    if spec[kind, COL_COLOUR] != NO_COLOUR:
        st[S_COLOUR] = spec[kind, COL_COLOUR]
    if st[O_HAND_N + seat] == 0:
        # a draw card played as the last card still hits the next player, and those cards count
        st[S_PENDING] += U.draw_amount(spec[kind, COL_SYMBOL])
        rounds.finish_round(st, cfg, spec, dice, rng, seat, rew)
        return
    if spec[kind, COL_COLOUR] == NO_COLOUR:
        wilds.ask_colour(st, seat)
        return
    action_cards.apply_effect(st, cfg, spec, dice, rng, seat)


@njit(cache=True)
def end_turn(st, cfg, spec, dice, rng, seat, skip):
    """Close ``seat``'s turn and hand the turn on: catch a missed UNO, open a jump-in window, apply penalties."""
    uno.catch(st, cfg, spec, dice, rng, seat)
    if house.open_jump_in(st, cfg, spec, seat):
        return
    advance(st, cfg, spec, dice, rng, seat, skip)


@njit(cache=True)
def advance(st, cfg, spec, dice, rng, seat, skip):
    """The turn passes on from ``seat``: a pending penalty reaches the next seat (who may answer it when a
    challenge or stacking allows, else draws and loses the turn); ``skip`` passes over the next seat."""
    nxt = U.next_seat(st, cfg, seat, 1)
    if st[S_PENDING] > 0:
        if wilds.challengeable(cfg, st[S_PENDING_SYM]) or house.stacking_on(cfg):
            st[S_CUR] = nxt
            st[S_PHASE] = PH_PENDING
            return
        drawing.draw_many(st, cfg, spec, dice, rng, nxt, st[S_PENDING])
        st[S_PENDING] = 0
        st[S_PENDING_SYM] = -1
        U.begin_turn(st, cfg, U.next_seat(st, cfg, nxt, 1))
        return
    U.begin_turn(st, cfg, U.next_seat(st, cfg, seat, 2) if skip else nxt)
