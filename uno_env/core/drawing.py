"""Drawing and reshuffles.

Rules: a player may draw one card instead of playing (project rules; option ``voluntary_draw``, default true; false
= only when nothing is playable, as RLCard); if the drawn card is playable the player may play that card only, or
keep it (seed 004; house rule ``force_play``: it must be played).  The drawn phase follows every draw of a card
game, offering only "keep" for a card that cannot be played (privacy: see ``draw``).  Option ``draw_until_playable``
(seed 004 variant): drawing goes on, up to 10 cards, until one is playable.  An empty draw pile is refilled by
shuffling the discard pile except its top card (project rules, all games); if that is empty too the draw yields
fewer cards.  UNO Dice draws a die from the bag and rolls it (``dice.draw_die``).  Option ``drawn_card: rlcard`` plays
RLCard's drawn card instead (``draw_rlcard``): no decision, and the card's fate is public (it is played or kept).
"""
from __future__ import annotations

from . import action_cards, matching, uno
from . import common as U
from . import dice as D
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .actions import *  # noqa: F403 - generated action section starts A_*
from .cards import COL_COLOUR, NO_COLOUR
from .layout import *  # noqa: F403 - generated state offsets S_*, O_*, option slots C_*, phases PH_*

track_dependencies(__file__, rule_sources())


@njit(cache=True)
def reshuffle(st, rng):
    """The discard pile except its top card, shuffled, becomes the draw pile; False when there is nothing to
    reshuffle."""
    m = st[S_DISC_N] - 1
    if m <= 0:
        return False
    for i in range(m):
        st[O_DRAW + i] = st[O_DISC + i]
        st[O_DISC_COUNT + st[O_DISC + i]] -= 1
    st[O_DISC] = st[O_DISC + m]
    st[S_DISC_N] = 1
    st[S_DRAW_N] = m
    U.shuffle(st, O_DRAW, m, rng)
    return True


@njit(cache=True)
def draw_one(st, cfg, spec, dice, rng, seat):
    """Move one card (or a rolled die) from the draw pile/bag into ``seat``'s hand; -1 when there is none."""
    if cfg[C_GAME] == GAME_DICE:
        return D.draw_die(st, cfg, dice, rng, seat)
    if st[S_DRAW_N] == 0 and not reshuffle(st, rng):
        return -1
    n = st[S_DRAW_N] - 1
    kind = st[O_DRAW + n]
    st[S_DRAW_N] = n
    U.add_to_hand(st, seat, kind)
    return kind


@njit(cache=True)
def draw_many(st, cfg, spec, dice, rng, seat, n):
    """``seat`` draws ``n`` cards (dice), fewer if the piles run out (compiled)."""
    for _ in range(n):
        if draw_one(st, cfg, spec, dice, rng, seat) < 0:
            break


# ---------------------------------------------------------------------------------------------- the draw action
@njit(cache=True, inline="always")
def turn_extra_legal(st, cfg, mask, count):
    """In a card game's turn, drawing is offered when nothing is playable, or always with ``voluntary_draw``."""
    if count == 0 or cfg[C_VOLUNTARY_DRAW] == 1:
        mask[A_DRAW_K * cfg[C_K] + A_DRAW_B] = 1
        count += 1
    return count


@njit(cache=True)
def draw_rlcard(st, cfg, spec, dice, rng, seat):
    """``drawn_card: rlcard``, RLCard 1.2.0's ``_perform_draw_action``: one card, no decision.  A card of the
    current colour is played with its effect; a wild is played as a plain Wild (a Wild Draw Four gives no
    penalty) naming a random colour; any other card is kept, even one matching by number or symbol."""
    kind = draw_one(st, cfg, spec, dice, rng, seat)
    colour = -1 if kind < 0 else spec[kind, COL_COLOUR]
    if kind < 0 or (colour != NO_COLOUR and colour != st[S_COLOUR]):
        matching.end_turn(st, cfg, spec, dice, rng, seat, False)
        return
    uno.on_play(st, cfg, seat, True)  # no decision, so no missed UNO call either (with uno_call: explicit)
    U.remove_from_hand(st, seat, kind)
    U.put_on_top(st, cfg, dice, seat, kind, -1)
    st[S_LAST_PLAYER] = seat
    st[S_PLAYED] = 1
    if colour == NO_COLOUR:
        st[S_COLOUR] = U.below(rng, 4)
        matching.end_turn(st, cfg, spec, dice, rng, seat, False)
    else:
        action_cards.apply_effect(st, cfg, spec, dice, rng, seat)


@njit(cache=True)
def draw(st, cfg, spec, dice, rng, seat):
    """Draw (up to 10 with ``draw_until_playable``, stopping at a playable card), then the drawn phase.

    Card games enter the drawn phase whether or not the card is playable (only "keep" is offered when it is
    not): the other seats see the same phase and the same seat to act either way, so they never learn whether
    the hidden card was playable.  Only an empty draw (public: both piles empty) ends the turn at once.  In
    UNO Dice the drawn die is public, so a die that does not match ends the turn directly.
    """
    if cfg[C_DRAWN_RLCARD] == 1:
        draw_rlcard(st, cfg, spec, dice, rng, seat)
        return
    cards = cfg[C_GAME] != GAME_DICE
    limit = 10 if cfg[C_DRAW_UNTIL_PLAYABLE] == 1 and cards else 1
    last = -1
    for _ in range(limit):
        kind = draw_one(st, cfg, spec, dice, rng, seat)
        if kind < 0:
            break
        last = kind
        if matching.playable(st, cfg, spec, seat, kind):
            st[S_DRAWN] = kind
            st[S_PHASE] = PH_DRAWN
            return
    if cards and last >= 0:
        st[S_DRAWN] = last
        st[S_PHASE] = PH_DRAWN
        return
    matching.end_turn(st, cfg, spec, dice, rng, seat, False)


@njit(cache=True)
def drawn_legal(st, cfg, spec, mask, uno_offered):
    """The drawn phase: play the drawn card when it is playable (with UNO when it leaves one card), or keep it
    (unless force_play forces a playable card)."""
    k = cfg[C_K]
    count = 0
    if matching.playable(st, cfg, spec, st[S_CUR], st[S_DRAWN]):
        count = U.offer_play(mask, k, st[S_DRAWN], uno_offered)
    if cfg[C_FORCE_PLAY] == 0 or count == 0:
        mask[A_KEEP_K * k + A_KEEP_B] = 1
        count += 1
    return count


@njit(cache=True)
def keep(st, cfg, spec, dice, rng, seat):
    """``seat`` keeps the card (die) it drew and ends its turn (compiled)."""
    matching.end_turn(st, cfg, spec, dice, rng, seat, False)
