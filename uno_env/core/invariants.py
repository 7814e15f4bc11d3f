"""Compiled invariant checks and a random-play soak driver, for tests over many games.

``check_state`` recomputes everything from scratch (it trusts none of the core's incremental counters), so a
bookkeeping bug in the rules shows up as a broken invariant at the step that caused it.
"""
from __future__ import annotations

import numpy as np

from . import actions as A
from . import engine as E
from ._cache import rule_sources, track_dependencies
from ._jit import njit_refcounted
from .cards import WILD_DRAW_FOUR, WILD_DRAW_TWO

track_dependencies(__file__, rule_sources())

# failure codes (0 = fine)
BAD_COUNT = 1  # a negative or impossible count
BAD_HAND_SIZE = 2  # hand size disagrees with the hand
BAD_CONSERVATION = 3  # a card/die is missing, duplicated or invented
BAD_SEAT = 4  # acting seat out of range
BAD_TOP = 5  # top/centre disagrees with the discard pile
BAD_MASK = 6  # the acting seat has no legal action
BAD_PILES = 7  # pile sizes out of range
NOT_ENDED = 8  # a game ran past max_turns without ending
CORE_REJECTED = 9  # the core refused an action its own mask offered
BAD_REWARD = 10  # an episode's rewards do not sum to zero
BAD_FIELD = 11  # a scalar field out of its range (top kind, colour, phase, direction)
# the phase does not fit the other fields or the rules (each is something the phase's actions rely on)
BAD_OVER = 12
BAD_PHASE_RULES = 13
BAD_PENDING = 14
BAD_WD_PLAYER = 15
BAD_JUMP = 16
BAD_DRAWN = 17
BAD_CONT = 18
BAD_CALLED = 19
BAD_EMPTY_SEAT = 20
BAD_BOUNDS = 21  # an entry outside its field's bounds (validate.field_bounds)
FAILURE_NAMES = ("ok", "negative count", "hand size", "conservation", "seat", "top card", "empty mask",
                 "pile size", "did not end", "core rejected a legal action", "rewards do not sum to 0",
                 "a field out of range (top, colour, phase, direction or a Wild Draw Four to take back)",
                 "field 'phase' is 'over' exactly when field 'done' is not 0",
                 "field 'phase' names a phase these rules never open (give: pocket only; rerolled: dice only; "
                 "swap: seven_zero; jump-in: jump_in)",
                 "field 'pending' must be at least 1 in the 'pending draw' phase",
                 "field 'wd_player' must be the seat that played the pending Wild Draw Four / Wild Draw 2 (not -1)",
                 "field 'jump_from' must be the seat whose card opened the jump-in window (not -1, not the seat asked)",
                 "fields 'drawn' / 'drawn_die' must be the card (die) the seat to act drew, in its hand, in the "
                 "'drawn' phase",
                 "field 'cont' is 1 (the round's first card was a Wild) only in the 'choose colour' phase",
                 "field 'called' is 1 only for a seat that holds exactly one card",
                 "fields 'called', 'scores' must be 0 for seats past num_players",
                 "an entry outside its field's bounds")


@njit_refcounted(cache=True)
def check_state(st, cfg, spec, dice):
    """The one invariant checker: 0 when ``st`` is a consistent state, else a failure code (FAILURE_NAMES).

    Every index is range-checked before it is used, so any int16 row can be checked safely.  The checks run in
    this order, each piece trusting what the ones before it established: the scalars that index the row, the hand
    sizes, the items (cards or dice: every one somewhere, exactly once), then the phase (:func:`check_phase`).
    The pieces are inlined: called as functions, the batch check ran 8% slower than the one function they were.
    """
    code = _check_scalars(st, cfg)
    if code == 0:
        code = _check_hand_sizes(st, cfg)
    if code == 0:
        if cfg[E.C_GAME] == E.GAME_DICE:
            code = _check_dice(st, cfg, dice)
        else:
            code = _check_cards(st, cfg, spec)
    if code == 0:
        code = check_phase(st, cfg, spec, dice)
    return code


@njit_refcounted(cache=True, inline="always")
def _check_scalars(st, cfg):
    """The row's length, the seat to act, the pile sizes, the top kind, the colour, the phase and the direction."""
    n = cfg[E.C_NP]
    k = cfg[E.C_K]
    if st.shape[0] != E.O_HAND + n * E.MAX_KINDS:  # a row of another player count: the hands would not fit
        return BAD_FIELD
    if st[E.S_CUR] < 0 or st[E.S_CUR] >= n:
        return BAD_SEAT
    draw_n, disc_n = st[E.S_DRAW_N], st[E.S_DISC_N]
    if st[E.S_PENDING] < 0 or draw_n < 0 or disc_n < 1 or draw_n + disc_n > E.MAX_ITEMS:
        return BAD_PILES
    if st[E.S_TOP] < 0 or st[E.S_TOP] >= k or st[E.S_COLOUR] < 0 or st[E.S_COLOUR] > 3:
        return BAD_FIELD
    if st[E.S_PHASE] < 0 or st[E.S_PHASE] >= E.NUM_PHASES or (st[E.S_DIR] != 1 and st[E.S_DIR] != -1):
        return BAD_FIELD
    return 0


@njit_refcounted(cache=True, inline="always")
def _check_hand_sizes(st, cfg):
    """Every count of the game's seats' hands is a kind of the game and not negative, and adds up to the seat's
    hand size; seats past the game hold nothing."""
    n = cfg[E.C_NP]
    k = cfg[E.C_K]
    for seat in range(E.MAX_PLAYERS):
        total = 0
        for kind in range(E.MAX_KINDS if seat < n else 0):  # the row holds the hands of the game's seats only
            c = st[E.O_HAND + seat * E.MAX_KINDS + kind]
            if c < 0 or (c > 0 and kind >= k):
                return BAD_COUNT
            total += c
        if total != st[E.O_HAND_N + seat]:
            return BAD_HAND_SIZE
    return 0


@njit_refcounted(cache=True, inline="always")
def _check_dice(st, cfg, dice):
    """UNO Dice: every die in exactly one place (the bag, the centre or a hand) showing a face, the hands' counts
    those of the dice they hold, the top the centre die's face, and a Wild Draw Four's take-back all set or unset."""
    nd = cfg[E.C_NUM_DICE]
    if st[E.S_DISC_N] != 1:
        return BAD_PILES
    seen = np.zeros(nd, np.int32)
    for i in range(st[E.S_DRAW_N]):
        die = st[E.O_DRAW + i]
        if die < 0 or die >= nd or st[E.O_DIE_LOC + die] != E.LOC_BAG:
            return BAD_CONSERVATION
        seen[die] += 1
    centre = st[E.O_DISC]
    if centre < 0 or centre >= nd or st[E.O_DIE_LOC + centre] != E.LOC_CENTRE:
        return BAD_CONSERVATION
    seen[centre] += 1
    code = _check_dice_in_hands(st, cfg, dice, seen)
    if code != 0:
        return code
    if st[E.S_TOP] != dice[centre, st[E.O_DIE_FACE + centre]]:
        return BAD_TOP
    return _check_take_back(st, nd, centre)


@njit_refcounted(cache=True, inline="always")
def _check_dice_in_hands(st, cfg, dice, seen):
    """The dice in hands (``seen`` holds the bag's and the centre's): each die counted once, each face real, and
    every seat's counts those of the faces its dice show."""
    n = cfg[E.C_NP]
    k = cfg[E.C_K]
    nd = cfg[E.C_NUM_DICE]
    counts = np.zeros((n, k), np.int32)
    for die in range(nd):
        loc = st[E.O_DIE_LOC + die]
        face = st[E.O_DIE_FACE + die]
        if face < 0 or face > 5:
            return BAD_COUNT
        if loc >= 0:
            if loc >= n:
                return BAD_CONSERVATION
            seen[die] += 1
            counts[loc, dice[die, face]] += 1
    for die in range(nd):
        if seen[die] != 1:
            return BAD_CONSERVATION
    for seat in range(n):
        for kind in range(k):
            if counts[seat, kind] != st[E.O_HAND + seat * E.MAX_KINDS + kind]:
                return BAD_CONSERVATION
    return 0


@njit_refcounted(cache=True, inline="always")
def _check_take_back(st, nd, centre):
    """What a guilty Wild Draw Four's take-back restores: all set (the die in the centre) or all unset."""
    wd, prev = st[E.S_WD_DIE], st[E.S_WD_PREV_DIE]
    if wd < -1 or wd >= nd or prev < -1 or prev >= nd or st[E.S_WD_PREV_FACE] < -1 \
            or st[E.S_WD_PREV_FACE] > 5 or st[E.S_WD_PREV_COLOUR] < -1 or st[E.S_WD_PREV_COLOUR] > 3:
        return BAD_FIELD
    if (wd < 0) != (prev < 0) or (wd < 0) != (st[E.S_WD_PREV_FACE] < 0) \
            or (wd < 0) != (st[E.S_WD_PREV_COLOUR] < 0) or (wd >= 0 and (wd == prev or wd != centre)):
        return BAD_FIELD
    return 0


@njit_refcounted(cache=True, inline="always")
def _check_cards(st, cfg, spec):
    """Card games: every pile entry a kind of the game, the deck's count of every kind found in the piles and hands,
    the discard counts those of the discard pile, and the top its last card."""
    n = cfg[E.C_NP]
    k = cfg[E.C_K]
    total = np.zeros(k, np.int64)
    disc = np.zeros(k, np.int64)
    for i in range(st[E.S_DRAW_N]):
        kind = st[E.O_DRAW + i]
        if kind < 0 or kind >= k:
            return BAD_CONSERVATION
        total[kind] += 1
    for i in range(st[E.S_DISC_N]):
        kind = st[E.O_DISC + i]
        if kind < 0 or kind >= k:
            return BAD_CONSERVATION
        total[kind] += 1
        disc[kind] += 1
    for seat in range(n):
        for kind in range(k):
            total[kind] += st[E.O_HAND + seat * E.MAX_KINDS + kind]
    for kind in range(k):
        if total[kind] != spec[kind, 3]:
            return BAD_CONSERVATION
        if disc[kind] != st[E.O_DISC_COUNT + kind]:
            return BAD_COUNT
    if st[E.S_TOP] != st[E.O_DISC + st[E.S_DISC_N] - 1]:
        return BAD_TOP
    return 0


@njit_refcounted(cache=True)
def check_phase(st, cfg, spec, dice):
    """0 when the phase fits the other fields and the rules, else a failure code (BAD_OVER .. BAD_EMPTY_SEAT).

    Run by :func:`check_state` once the counts hold (seat, kinds and dice are then in range).  Each check is
    something every reachable state satisfies and an action of the phase reads: the drawn card is in the hand of
    the seat that may play it, a challenge finds the seat that played the wild, a jump-in window knows whose card
    opened it, and a phase exists only under the rules that open it.
    """
    phase = st[E.S_PHASE]
    if (phase == E.PH_OVER) != (st[E.S_DONE] != 0):
        return BAD_OVER
    code = _check_phase_rules(phase, cfg)
    if code == 0 and phase == E.PH_PENDING:
        code = _check_pending(st, cfg)
    if code == 0 and phase == E.PH_JUMP:
        jump_from = st[E.S_JUMP_FROM]
        if jump_from < 0 or jump_from >= cfg[E.C_NP] or jump_from == st[E.S_CUR]:
            code = BAD_JUMP
    if code == 0 and phase == E.PH_DRAWN:
        code = _check_drawn(st, cfg, dice)
    if code == 0 and st[E.S_CONT] == E.CONT_START and phase != E.PH_COLOUR:
        code = BAD_CONT
    if code == 0:
        code = _check_seat_flags(st, cfg)
    return code


@njit_refcounted(cache=True, inline="always")
def _check_phase_rules(phase, cfg):
    """A phase opens only under the rules (and in the game) that have it."""
    game = cfg[E.C_GAME]
    if (phase == E.PH_GIVE and game != E.GAME_POCKET) or (phase == E.PH_REROLLED and game != E.GAME_DICE) \
            or (phase == E.PH_SWAP and cfg[E.C_SEVEN_ZERO] != 1) or (phase == E.PH_JUMP and cfg[E.C_JUMP_IN] != 1):
        return BAD_PHASE_RULES
    return 0


@njit_refcounted(cache=True, inline="always")
def _check_pending(st, cfg):
    """A pending draw draws at least one, and a pending Wild Draw Four / Wild Draw 2 knows the seat that played it."""
    if st[E.S_PENDING] < 1:
        return BAD_PENDING
    sym = st[E.S_PENDING_SYM]
    if (sym == WILD_DRAW_FOUR or sym == WILD_DRAW_TWO) and (st[E.S_WD_PLAYER] < 0 or st[E.S_WD_PLAYER] >= cfg[E.C_NP]):
        return BAD_WD_PLAYER
    return 0


@njit_refcounted(cache=True, inline="always")
def _check_drawn(st, cfg, dice):
    """The drawn card (die) is in the hand of the seat to act (and, in UNO Dice, shows the drawn kind)."""
    cur = st[E.S_CUR]
    drawn = st[E.S_DRAWN]
    if drawn < 0 or drawn >= cfg[E.C_K] or st[E.O_HAND + cur * E.MAX_KINDS + drawn] < 1:
        return BAD_DRAWN
    if cfg[E.C_GAME] == E.GAME_DICE:
        die = st[E.S_DRAWN_DIE]
        if die < 0 or die >= cfg[E.C_NUM_DICE] or st[E.O_DIE_LOC + die] != cur \
                or dice[die, st[E.O_DIE_FACE + die]] != drawn:
            return BAD_DRAWN
    return 0


@njit_refcounted(cache=True, inline="always")
def _check_seat_flags(st, cfg):
    """UNO calls only by seats holding one card; seats past the game neither call nor score."""
    n = cfg[E.C_NP]
    for seat in range(E.MAX_PLAYERS):
        if seat >= n:
            if st[E.O_CALLED + seat] != 0 or E.get_wide(st, E.O_SCORES + 2 * seat) != 0:
                return BAD_EMPTY_SEAT
        elif st[E.O_CALLED + seat] == 1 and st[E.O_HAND_N + seat] != 1:
            return BAD_CALLED
    return 0


@njit_refcounted(cache=True)
def check_row(st, lo, hi, wide, cfg, spec, dice):
    """The state check every row that enters a shell goes through: 0 when every entry of ``st`` lies within its
    bounds (``lo``/``hi``, one per entry), every wide value within its own (``wide``: rows of offset, lowest,
    highest) and :func:`check_state` finds nothing; else ``BAD_BOUNDS`` or the invariant's failure code.

    ``validate.state_problem`` builds the bounds from the game and words what is wrong; this is its fast path
    (a row's check costs a few microseconds, so copies and deserialized states can afford it)."""
    if st.shape[0] != lo.shape[0]:
        return BAD_BOUNDS
    for i in range(st.shape[0]):
        if st[i] < lo[i] or st[i] > hi[i]:
            return BAD_BOUNDS
    for j in range(wide.shape[0]):
        value = E.get_wide(st, wide[j, 0])
        if value < wide[j, 1] or value > wide[j, 2]:
            return BAD_BOUNDS
    return check_state(st, cfg, spec, dice)


@njit_refcounted(cache=True)
def check_rows(states, lo, hi, wide, cfg, spec, dice, out):
    """``out[b]`` = :func:`check_row` of game ``b``; returns how many games fail."""
    bad = 0
    for b in range(states.shape[0]):
        out[b] = check_row(states[b], lo, hi, wide, cfg, spec, dice)
        if out[b] != 0:
            bad += 1
    return bad


@njit_refcounted(cache=True)
def soak(cfg, spec, dice, seeds, play_bias, out):
    """Play one random game per seed, checking every invariant after every step.

    ``play_bias`` in [0, 1]: the chance that the random player picks among non-draw actions when it has any
    (uniform random players draw so often that 2-player classic games run ~1,300 decisions; biased ones give
    shorter games and more round ends per second).  ``out[i]`` = (steps taken, failure code): a failing game stops
    at the step that broke an invariant.
    """
    num_actions = A.A_NUM_ACTIONS_K * cfg[E.C_K] + A.A_NUM_ACTIONS_B + 2 * cfg[E.C_NUM_DICE]  # + play_die(_uno)
    draw_action = A.A_DRAW_K * cfg[E.C_K] + A.A_DRAW_B
    st = np.zeros(E.O_HAND + cfg[E.C_NP] * E.MAX_KINDS, E.STATE_DTYPE)  # layout.state_len(num_players)
    rng = np.zeros(1, np.uint64)
    pick = np.zeros(1, np.uint64)
    mask = np.zeros(num_actions, np.int8)
    scratch = np.zeros(num_actions, np.int8)
    rew = np.zeros(E.MAX_PLAYERS, np.float32)
    legal = np.zeros(num_actions, np.int64)  # legal actions, non-draw ones first
    for g in range(seeds.shape[0]):
        E.reset_one(st, rng, cfg, spec, dice, seeds[g])
        E.seed_rng(pick, seeds[g] ^ 0x5DEECE66D)
        out[g, 1] = check_state(st, cfg, spec, dice)
        steps = 0
        reward_sum = 0.0
        while out[g, 1] == 0 and st[E.S_DONE] == 0:
            if steps > cfg[E.C_MAX_TURNS]:
                out[g, 1] = NOT_ENDED
                break
            count = E.legal_mask(st, cfg, spec, dice, mask)
            if count == 0:
                out[g, 1] = BAD_MASK
                break
            n_play = 0
            for a in range(num_actions):  # non-draw actions first, then draw, for the biased pick
                if mask[a] == 1 and a != draw_action:
                    legal[n_play] = a
                    n_play += 1
            n_legal = n_play
            if mask[draw_action] == 1:
                legal[n_play] = draw_action
                n_legal += 1
            u = E._below(pick, 1 << 20) / float(1 << 20)
            if n_play > 0 and u < play_bias:
                action = legal[E._below(pick, n_play)]
            else:
                action = legal[E._below(pick, n_legal)]
            code = E.step_one(st, rng, cfg, spec, dice, action, scratch, rew)
            steps += 1
            if code != 0:
                out[g, 1] = CORE_REJECTED
                break
            for i in range(E.MAX_PLAYERS):
                reward_sum += rew[i]
            out[g, 1] = check_state(st, cfg, spec, dice)
        if out[g, 1] == 0 and abs(reward_sum) > 1e-4:
            out[g, 1] = BAD_REWARD
        out[g, 0] = steps
