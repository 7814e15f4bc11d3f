"""The compiled rules core shared by the three games: a short dispatcher by phase and by action section.

A game is one int16 row (``st``, layout in ``layout.py``) plus one uint64 PRNG word (``rng``); a batch is a 2-D
array of rows.  Every function here works on one row; the kernels that loop over a batch are in ``batch.py``.
The rules read the game's kind table (``spec``: colour, symbol, points, copies per kind), its dice (``dice``:
kind of each face, UNO Dice only) and the options (``cfg``, int64, slots generated from the options table):
nothing is recompiled when an option changes.

The rules themselves live in one module per family (each holds the legality and the effect of its rules):

==================  ========================================================================
``matching``        matching the top card; the turn, its end and the penalty reaching the next seat
``action_cards``    Skip, Reverse, Draw Two / Draw One
``wilds``           naming a colour; Wild Draw Four / Wild Draw 2 legality, the penalty, challenges
``dip``             Wild Dip Into Deck (pocket)
``drawing``         drawing, the drawn card, reshuffles
``uno``             calling UNO and being caught
``dice``            UNO Dice: rolling from the bag, the centre die, rerolls
``house``           stacking, seven_zero, jump_in
``rounds``          deal, first card, end of round, scoring, match
==================  ========================================================================

Set ``NUMBA_DISABLE_JIT=1`` to run the core as plain Python (tracebacks, coverage).
"""
from __future__ import annotations

from . import dice as D
from . import dip, drawing, house, matching, rounds, uno, wilds
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .actions import *  # noqa: F403 - generated action section starts A_*
from .actions import offsets as action_offsets  # noqa: F401 - re-exported
from .common import below as _below  # noqa: F401 - re-exported for the batch kernels and the soak driver
from .common import get_wide, hand_points, seed_rng, set_wide  # noqa: F401 - re-exported
from .layout import *  # noqa: F403 - generated state offsets S_*, O_*, option slots C_*, phases PH_*

track_dependencies(__file__, rule_sources())

reset_one = rounds.reset
deal_prepared = rounds.deal_prepared


@njit(cache=True)
def legal_mask(st, cfg, spec, dice, mask):
    """Write the acting seat's legal actions into ``mask`` (int8, length A); returns how many are legal."""
    mask[:] = 0
    if st[S_DONE] != 0:
        return 0
    phase = st[S_PHASE]
    uno_offered = uno.offered(st, cfg, st[S_CUR])
    if cfg[C_GAME] == GAME_DICE:
        # the shared rules mark the playable faces; a dice player then chooses the die (play_die); a turn reads
        # the dice in the hand directly
        if phase == PH_TURN or phase == PH_REROLLED:
            return _dice_turn_legal(st, cfg, spec, dice, mask, uno_offered)
        if phase == PH_DRAWN:
            drawing.drawn_legal(st, cfg, spec, mask, uno_offered)
        elif phase == PH_COLOUR:
            return wilds.colour_legal(cfg, mask)
        elif phase == PH_PENDING:
            wilds.pending_legal(st, cfg, spec, mask, uno_offered)
        else:
            return 0
        return D.plays_by_die(st, cfg, dice, mask)
    if phase == PH_TURN or phase == PH_REROLLED:
        count = matching.turn_legal(st, cfg, spec, mask, uno_offered)
        return drawing.turn_extra_legal(st, cfg, mask, count)
    if phase == PH_COLOUR:
        return wilds.colour_legal(cfg, mask)
    if phase == PH_DRAWN:
        return drawing.drawn_legal(st, cfg, spec, mask, uno_offered)
    if phase == PH_PENDING:
        return wilds.pending_legal(st, cfg, spec, mask, uno_offered)
    if phase == PH_GIVE:
        return dip.give_legal(st, cfg, mask)
    if phase == PH_SWAP:
        return house.swap_legal(cfg, mask)
    if phase == PH_JUMP:
        return house.jump_legal(st, cfg, mask, uno_offered)
    return 0


@njit(cache=True)
def _dice_turn_legal(st, cfg, spec, dice, mask, uno_offered):
    """A dice turn's legal actions in one pass over the dice in the hand: the same as the shared rules' plays by
    kind (``matching.turn_legal``) turned into plays by die (``dice.plays_by_die``), without the pass over
    every kind and the second over the dice (a third of a 2-player dice search's time went to the two)."""
    k = cfg[C_K]
    nd = cfg[C_NUM_DICE]
    start = A_PLAY_DIE_K * k + A_PLAY_DIE_B
    seat = st[S_CUR]
    count = 0
    for die in range(nd):
        if st[O_DIE_LOC + die] != seat:
            continue
        if matching.playable(st, cfg, spec, seat, dice[die, st[O_DIE_FACE + die]]):
            mask[start + die] = 1
            count += 1
            if uno_offered:
                mask[start + nd + die] = 1
                count += 1
    return D.turn_extra_legal(st, cfg, mask, count)


@njit(cache=True)
def _apply(st, rng, cfg, spec, dice, action, rew):
    """Apply a legal ``action`` of the acting seat: dispatch by its section of the action table."""
    k = cfg[C_K]
    seat = st[S_CUR]
    set_wide(st, S_TURNS, get_wide(st, S_TURNS) + 1)
    if st[S_SHOWN_TO] == seat:  # the shown hand was seen at this decision; it is not news any more
        wilds.forget_shown(st)
    if action >= A_PLAY_DIE_K * k + A_PLAY_DIE_B:
        # UNO Dice: a play names the die (play_die, then play_die_uno)
        nd = cfg[C_NUM_DICE]
        die = action - (A_PLAY_DIE_K * k + A_PLAY_DIE_B)
        call_uno = die >= nd
        if call_uno:
            die -= nd
        kind = dice[die, st[O_DIE_FACE + die]]
        matching.play(st, cfg, spec, dice, rng, seat, kind, call_uno, rew, die)
    elif action < A_COLOUR_K * k + A_COLOUR_B:
        # a play: in a normal turn, of the drawn card, a stacked draw card or a jump-in
        if st[S_PHASE] == PH_JUMP:
            house.jump(st, spec, seat)
        kind = action if action < A_PLAY_UNO_K * k + A_PLAY_UNO_B else action - k
        matching.play(st, cfg, spec, dice, rng, seat, kind, action >= k, rew, -1)
    elif action < A_DRAW_K * k + A_DRAW_B:
        wilds.choose_colour(st, cfg, spec, dice, rng, seat, action - (A_COLOUR_K * k + A_COLOUR_B))
    elif action == A_DRAW_K * k + A_DRAW_B:
        drawing.draw(st, cfg, spec, dice, rng, seat)
    elif action == A_KEEP_K * k + A_KEEP_B:
        drawing.keep(st, cfg, spec, dice, rng, seat)
    elif action == A_CHALLENGE_K * k + A_CHALLENGE_B:
        wilds.challenge(st, cfg, spec, dice, rng, seat)
    elif action == A_ACCEPT_K * k + A_ACCEPT_B:
        wilds.accept(st, cfg, spec, dice, rng, seat)
    elif action == A_PASS_K * k + A_PASS_B:
        house.pass_jump(st, cfg, spec, dice, rng, seat)
    elif action == A_REROLL_K * k + A_REROLL_B:
        D.reroll(st, cfg, dice, rng, seat)
    elif action < A_SWAP_K * k + A_SWAP_B:
        dip.give(st, cfg, spec, dice, rng, seat, action - (A_GIVE_K * k + A_GIVE_B))
    else:
        house.swap(st, cfg, spec, dice, rng, seat, action - (A_SWAP_K * k + A_SWAP_B) + 1)
    if st[S_DONE] == 0 and get_wide(st, S_TURNS) >= cfg[C_MAX_TURNS]:
        st[S_DONE] = 2
        st[S_PHASE] = PH_OVER


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
