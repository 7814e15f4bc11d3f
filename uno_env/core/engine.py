"""The compiled rules core shared by the three games: a short dispatcher by phase and by action section.

A game is one int16 row (``st``, layout in ``layout.py``) plus one uint64 PRNG word (``rng``); a batch is a 2-D
array of rows.  Every function here works on one row; the kernels that loop over a batch are in ``batch.py``.
The rules read the game's kind table (``spec``: colour, symbol, points, copies per kind), its dice (``dice``:
kind of each face, UNO Dice only) and the options (``cfg``, int64, slots generated from the options table):
nothing is recompiled when an option changes.

The rules live in layers, each importing only the layers below it (the import-linter contract in pyproject.toml
keeps it so):

==================  ========================================================================
``engine``          this dispatcher: the legal actions by phase, an action by its section
``turn``            the course of a turn, chained from the families: a play, its effect, the end of the turn,
                    the penalty reaching the next seat, the rounds
``action_cards``    Skip, Reverse, Draw Two / Draw One
``wilds``           naming a colour; the pending penalty; the Wild Draw Four / Wild Draw 2 challenge
``dip``             Wild Dip Into Deck (pocket)
``drawing``         drawing instead of playing, the drawn card
``dice``            UNO Dice: choosing the die, rerolls
``house``           stacking, seven_zero, jump_in
``rounds``          deal, first card, end of round, scoring, match
``matching``        what may be played: matching the top, the Wild Draw Four legality
``moves``           moving cards and dice: hands, piles, the bag, reshuffles
``uno``             the UNO calls (every change of a hand's size goes through it)
``common``          PRNG, wide fields, seats, sets of kinds
``facts``           what differs between the games; draw amounts and penalties
``layout``          the state row, the options slots; ``actions``: the action table; ``cards``: the kinds
==================  ========================================================================

The rule families (``action_cards`` to ``rounds``) stand on the base below them (``matching`` down) and never
import one another: each holds the legality and the effect of its rules and returns what follows (a phase it
opened, whether the turn ends, whether it skips), and ``turn`` and this module chain them.

Set ``NUMBA_DISABLE_JIT=1`` to run the core as plain Python (tracebacks, coverage).
"""
from __future__ import annotations

from . import dice as D
from . import dip, drawing, house, matching, turn, uno, wilds
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .actions import (  # noqa: F401 - every section start, re-exported: shells, players and tests read them as E.A_*
    # generated-types:start engine-actions (tools/gen_typing.py writes this block; do not edit)
    A_ACCEPT_B,
    A_ACCEPT_K,
    A_CHALLENGE_B,
    A_CHALLENGE_K,
    A_COLOUR_B,
    A_COLOUR_K,
    A_DRAW_B,
    A_DRAW_K,
    A_GIVE_B,
    A_GIVE_K,
    A_KEEP_B,
    A_KEEP_K,
    A_NUM_ACTIONS_B,
    A_NUM_ACTIONS_K,
    A_PASS_B,
    A_PASS_K,
    A_PLAY_B,
    A_PLAY_DIE_B,
    A_PLAY_DIE_K,
    A_PLAY_K,
    A_PLAY_UNO_B,
    A_PLAY_UNO_K,
    A_REROLL_B,
    A_REROLL_K,
    A_SWAP_B,
    A_SWAP_K,
    # generated-types:end engine-actions
)
from .actions import offsets as action_offsets  # noqa: F401 - re-exported
from .common import below as _below  # noqa: F401 - re-exported for the batch kernels and the soak driver
from .common import get_wide, hand_points, seed_rng, set_wide  # noqa: F401 - re-exported
from .facts import plays_dice
from .layout import (  # noqa: F401 - every public name of the layout, re-exported: shells, players and tests read E.S_*
    # generated-types:start engine-layout (tools/gen_typing.py writes this block; do not edit)
    C_CATCH_THRESHOLD,
    C_CHALLENGE,
    C_DEAL,
    C_DICE_BLUFF,
    C_DRAW_UNTIL_PLAYABLE,
    C_DRAWN_RLCARD,
    C_EPISODE_MATCH,
    C_FIRST_DRAW_TWO_PLAY,
    C_FIRST_REVERSE_DEALER,
    C_FIRST_WILD,
    C_FORCE_PLAY,
    C_GAME,
    C_JUMP_IN,
    C_K,
    C_MAX_TURNS,
    C_NP,
    C_NUM_CARDS,
    C_NUM_DICE,
    C_REVERSE_NO_SKIP,
    C_REWARD_POINTS,
    C_SEVEN_ZERO,
    C_STACKING,
    C_TARGET,
    C_UNO_AUTO,
    C_VOLUNTARY_DRAW,
    C_WD_LEGAL_ANY_PLAYABLE,
    CFG_LEN,
    CONT_EFFECT,
    CONT_START,
    ERR_ILLEGAL,
    ERR_OVER,
    ERR_RANGE,
    GAME_CLASSIC,
    GAME_DICE,
    GAME_POCKET,
    LOC_BAG,
    LOC_CENTRE,
    MAX_DICE,
    MAX_ITEMS,
    MAX_KINDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_PHASES,
    O_CALLED,
    O_DIE_FACE,
    O_DIE_LOC,
    O_DISC,
    O_DISC_COUNT,
    O_DRAW,
    O_HAND,
    O_HAND_N,
    O_SCORES,
    O_SHOWN_HAND,
    OK,
    PH_COLOUR,
    PH_DRAWN,
    PH_GIVE,
    PH_JUMP,
    PH_OVER,
    PH_PENDING,
    PH_REROLLED,
    PH_SWAP,
    PH_TURN,
    PHASE_NAMES,
    ROUND_CLEARED,
    ROW_PLAYERS,
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
    S_SHOWN_FROM,
    S_SHOWN_TO,
    S_TOP,
    S_TURNS,
    S_UNO_MISSED,
    S_WD_DIE,
    S_WD_GUILTY,
    S_WD_PLAYER,
    S_WD_PREV_COLOUR,
    S_WD_PREV_DIE,
    S_WD_PREV_FACE,
    S_WINNER,
    STATE_DTYPE,
    STATE_LEN,
    STATE_MAX,
    STATE_MIN,
    WIDE_BITS,
    WIDE_MAX,
    WIDE_MIN,
    players_of_row_length,
    state_len,
    # generated-types:end engine-layout
)

track_dependencies(__file__, rule_sources())

reset_one = turn.reset
deal_prepared = turn.deal_prepared


@njit(cache=True)
def legal_mask(st, cfg, spec, dice, mask):
    """Write the acting seat's legal actions into ``mask`` (int8, length A); returns how many are legal."""
    mask[:] = 0
    if st[S_DONE] != 0:
        return 0
    phase = st[S_PHASE]
    uno_offered = uno.offered(st, cfg, st[S_CUR])
    if plays_dice(cfg):
        # the shared rules mark the playable faces; a dice player then chooses the die (play_die); a turn reads
        # the dice in the hand directly
        if phase == PH_TURN or phase == PH_REROLLED:
            return D.turn_legal(st, cfg, spec, dice, mask, uno_offered)
        if phase == PH_DRAWN:
            drawing.drawn_legal(st, cfg, spec, mask, uno_offered)
        elif phase == PH_COLOUR:
            return wilds.colour_legal(cfg, mask)
        elif phase == PH_PENDING:
            _pending_legal(st, cfg, spec, mask, uno_offered)
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
        return _pending_legal(st, cfg, spec, mask, uno_offered)
    if phase == PH_GIVE:
        return dip.give_legal(st, cfg, mask)
    if phase == PH_SWAP:
        return house.swap_legal(cfg, mask)
    if phase == PH_JUMP:
        return house.jump_legal(st, cfg, mask, uno_offered)
    return 0


@njit(cache=True, inline="always")
def _pending_legal(st, cfg, spec, mask, uno_offered):
    """The victim of a draw card: accept or challenge (``wilds``), or answer with a draw card (``house``)."""
    return wilds.pending_legal(st, cfg, mask) + house.stack_legal(st, cfg, spec, mask, uno_offered)


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
        turn.play(st, cfg, spec, dice, rng, seat, kind, call_uno, rew, die)
    elif action < A_COLOUR_K * k + A_COLOUR_B:
        # a play: in a normal turn, of the drawn card, a stacked draw card or a jump-in
        if st[S_PHASE] == PH_JUMP:
            house.jump(st, spec, seat)
        kind = action if action < A_PLAY_UNO_K * k + A_PLAY_UNO_B else action - k
        turn.play(st, cfg, spec, dice, rng, seat, kind, action >= k, rew, -1)
    elif action < A_DRAW_K * k + A_DRAW_B:
        if wilds.choose_colour(st, cfg, seat, action - (A_COLOUR_K * k + A_COLOUR_B)):
            turn.effect(st, cfg, spec, dice, rng, seat)
    elif action == A_DRAW_K * k + A_DRAW_B:
        turn.draw(st, cfg, spec, dice, rng, seat)
    elif action == A_KEEP_K * k + A_KEEP_B:
        turn.end_turn(st, cfg, spec, dice, rng, seat, False)  # the drawn card is kept
    elif action == A_CHALLENGE_K * k + A_CHALLENGE_B:
        wilds.challenge(st, cfg, dice, rng, seat)
    elif action == A_ACCEPT_K * k + A_ACCEPT_B:
        wilds.accept(st, cfg, dice, rng, seat)
    elif action == A_PASS_K * k + A_PASS_B:
        turn.pass_jump(st, cfg, spec, dice, rng, seat)
    elif action == A_REROLL_K * k + A_REROLL_B:
        D.reroll(st, cfg, dice, rng, seat)
    elif action < A_SWAP_K * k + A_SWAP_B:
        dip.give(st, cfg, seat, action - (A_GIVE_K * k + A_GIVE_B))
        turn.end_turn(st, cfg, spec, dice, rng, seat, False)
    else:
        house.swap(st, cfg, seat, action - (A_SWAP_K * k + A_SWAP_B) + 1)
        turn.end_turn(st, cfg, spec, dice, rng, seat, False)
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
