"""The search's rollout policies, compiled: how every seat plays a sampled game on to the end of the round.

:data:`ROLLOUTS`: ``random`` (uniform over the legal actions), ``greedy`` (the ``greedy`` agent's rule read from
the state row: the highest-value card first, the colour held most of, never challenge) and ``heuristic``: the
``heuristic`` agent itself (``card_heuristic.heuristic_action``), handed the acting seat's observation of the
sample, so the model of every seat is exactly the heuristic agent and reads only what that seat would see.  In UNO
Dice ``heuristic`` rollouts play ``greedy``: the dice heuristic is compiled too (``dice_heuristic``), but the search
does not call it yet, as that would change the committed dice results.
"""
from __future__ import annotations

import numpy as np

from ..core import common as U
from ..core import engine as E
from ..core._cache import track_dependencies
from ..core._jit import njit, njit_refcounted
from ..core.actions import (
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
    A_PLAY_DIE_B,
    A_PLAY_DIE_K,
    A_SWAP_B,
    A_SWAP_K,
)
from ..core.cards import COL_COLOUR, COL_POINTS
from ..core.layout import (
    C_GAME,
    C_K,
    C_NP,
    C_NUM_DICE,
    GAME_DICE,
    MAX_KINDS,
    NUM_PHASES,
    O_DIE_FACE,
    O_DISC_COUNT,
    O_HAND,
    O_HAND_N,
    PH_COLOUR,
    S_COLOUR,
    S_CUR,
    S_DIR,
    S_DONE,
    S_PHASE,
    S_ROUND,
    S_TOP,
)
from ..core.observe import B_COLOUR as OB_COLOUR
from ..core.observe import B_DIRECTION as OB_DIRECTION
from ..core.observe import B_DISCARDED as OB_DISCARDED
from ..core.observe import B_HAND as OB_HAND
from ..core.observe import B_HAND_SIZES as OB_HAND_SIZES
from ..core.observe import B_PHASE as OB_PHASE
from ..core.observe import B_TOP as OB_TOP
from ..core.observe import observe_one
from ._cache import player_sources
from .card_heuristic import heuristic_action, heuristic_choice
from .workspace import baseline_scratch

track_dependencies(__file__, player_sources())

#: rollout policies by name; the index is the compiled code's id
ROLLOUTS = ("random", "greedy", "heuristic")
POLICY_RANDOM, POLICY_GREEDY, POLICY_HEURISTIC = range(3)

NEG = -1.0e18


@njit(cache=True)
def _colour_counts(st, spec, k, seat, out):
    for c in range(5):
        out[c] = 0
    for kind in range(k):
        cnt = st[U.hand_at(seat, kind)]
        if cnt > 0:
            out[spec[kind, COL_COLOUR]] += cnt


@njit(cache=True, inline="always")
def _other_score(st, cfg, spec, seat, a, k, colours):
    """Greedy's score of a legal action that is not a play: colours, draw, keep, give, swap..."""
    if a < A_DRAW_K * k + A_DRAW_B:  # name a colour: the one held most of
        return 100.0 + colours[a - (A_COLOUR_K * k + A_COLOUR_B)]
    if a == A_KEEP_K * k + A_KEEP_B:
        return 10.0
    if a == A_CHALLENGE_K * k + A_CHALLENGE_B:
        return -1.0e9
    if a >= A_SWAP_K * k + A_SWAP_B:  # seven_zero: swap with the smallest other hand
        off = a - (A_SWAP_K * k + A_SWAP_B) + 1
        return 500.0 - st[O_HAND_N + (seat + off) % cfg[C_NP]]
    if a >= A_GIVE_K * k + A_GIVE_B:  # Wild Dip Into Deck: give the highest-value card away
        return 500.0 + spec[a - (A_GIVE_K * k + A_GIVE_B), COL_POINTS]
    return 0.0  # draw, accept, pass, reroll


@njit(cache=True)
def greedy_state_action(st, cfg, spec, dice, mask, na, rng, colours):
    """The ``greedy`` agent's rule read from the state row (every game, UNO Dice's die plays too, scored by the
    kind their die shows, ``dice``): the highest-value card first, the UNO call with it, the colour held most of,
    never challenge; ties at random (between two dice showing one face too, where the agent takes the lower die).
    """
    k = cfg[C_K]
    seat = st[S_CUR]
    if st[S_PHASE] == PH_COLOUR:
        _colour_counts(st, spec, k, seat, colours)
    best = NEG
    pick = -1
    ties = 0
    # UNO Dice marks no card play (a die is played by its own action, past the table's end: ``plays_by_die``
    # clears the 2k card plays), so the scan skips them; and it skips eight actions at a time where a word of the
    # mask is zero: a step has a handful of legal actions among the 181, and the byte-by-byte scan was most of
    # this function's time
    a = 2 * k if cfg[C_GAME] == GAME_DICE else 0
    # the die plays lie past every other action (in the card games: nothing is past the table's end)
    die_start = A_PLAY_DIE_K * k + A_PLAY_DIE_B if cfg[C_GAME] == GAME_DICE else na
    nd = cfg[C_NUM_DICE]
    words = mask[:na - na % 8].view(np.uint64)
    while a < na:
        if a & 7 == 0 and (a >> 3) < words.shape[0] and words[a >> 3] == 0:
            a += 8
            continue
        if mask[a] != 0:
            if a < 2 * k:  # a play, with (a >= k) or without the UNO call
                s = 1000.0 + spec[a if a < k else a - k, COL_POINTS]
                if a >= k:
                    s += 0.5
            elif a >= die_start:  # UNO Dice: a die's play, with (past the first nd) or without the UNO call
                die = a - die_start
                s = 1000.0
                if die >= nd:
                    die -= nd
                    s += 0.5
                s += spec[dice[die, st[O_DIE_FACE + die]], COL_POINTS]
            else:
                s = _other_score(st, cfg, spec, seat, a, k, colours)
            if s > best:
                best = s
                pick = a
                ties = 1
            elif s == best:
                ties += 1
                if U.below(rng, ties) == 0:
                    pick = a
        a += 1
    return pick


@njit_refcounted(cache=True)
def policy_action(st, cfg, spec, dice, mask, na, policy, rng, obs, offs, w, hs, colours):
    """The rollout policy's action for the acting seat of ``st`` (``mask`` = its legal mask).

    ``heuristic`` is the ``heuristic`` agent itself (``card_heuristic.heuristic_action``, the code the agent
    calls): it is handed the acting seat's observation of ``st``, written into ``obs`` (float32,
    the game's observation length; ``offs`` its block offsets), with weights ``w`` and ``hs`` (a state row of
    scratch).  In UNO Dice ``heuristic`` falls back to ``greedy`` (the compiled dice heuristic is not wired in
    here yet).  This entry point allocates the heuristic's work arrays for one call; the search's loops call
    :func:`policy_choice` with theirs.
    """
    fw, iw, bw = baseline_scratch(na)
    return policy_choice(st, cfg, spec, dice, mask, na, policy, rng, obs, offs, w, hs, colours, fw, iw, bw)


@njit(cache=True)
def policy_choice(st, cfg, spec, dice, mask, na, policy, rng, obs, offs, w, hs, colours, fw, iw, bw):
    """:func:`policy_action` with the heuristic's work arrays given (``workspace.baseline_scratch``): the search's
    opponent model and prior."""
    if policy == POLICY_RANDOM:
        return U.random_legal(mask, na, rng)
    if policy == POLICY_HEURISTIC and cfg[C_GAME] != GAME_DICE:
        observe_one(st, cfg, spec, offs, st[S_CUR], obs)
        return heuristic_action(obs, mask, cfg, spec, offs, w, hs, fw, iw, bw)
    return greedy_state_action(st, cfg, spec, dice, mask, na, rng, colours)


@njit(cache=True, inline="always")
def _heuristic_view(st, cfg, spec, offs, seat, obs):
    """The blocks of ``seat``'s observation that ``heuristic_action`` reads, written over the previous call's
    (the rollout's buffer; a test holds its choices equal to those on the full observation).  A rollout step
    spends about a fifth of its time in :func:`~uno_env.core.observe.observe_one`, most of it clearing blocks
    the heuristic never reads."""
    k = cfg[C_K]
    n = cfg[C_NP]
    hand = O_HAND + seat * MAX_KINDS
    h_at = offs[OB_HAND]
    d_at = offs[OB_DISCARDED]
    t_at = offs[OB_TOP]
    # through views indexed from 0, so that no read or write pays numba's negative-index fix-up
    held = st[hand:hand + k]
    gone = st[O_DISC_COUNT:O_DISC_COUNT + k]
    o_held = obs[h_at:h_at + k]
    o_gone = obs[d_at:d_at + k]
    o_top = obs[t_at:t_at + k]
    for kind in range(k):
        o_held[kind] = held[kind]
        o_gone[kind] = gone[kind]
        o_top[kind] = 0.0
    obs[t_at + st[S_TOP]] = 1.0
    c_at = offs[OB_COLOUR]
    for c in range(4):
        obs[c_at + c] = 0.0
    obs[c_at + st[S_COLOUR]] = 1.0
    p_at = offs[OB_PHASE]
    for p in range(NUM_PHASES):
        obs[p_at + p] = 0.0
    obs[p_at + st[S_PHASE]] = 1.0
    obs[offs[OB_DIRECTION]] = st[S_DIR]
    s_at = offs[OB_HAND_SIZES]
    for r in range(n):
        obs[s_at + r] = st[O_HAND_N + (seat + r) % n]


@njit_refcounted(cache=True)
def _rollout_action(st, cfg, spec, dice, mask, na, legal, policy, rng, obs, offs, w, hs, colours):
    """:func:`_rollout_choice` with work arrays of its own (for a caller outside the search, e.g. a test)."""
    fw, iw, bw = baseline_scratch(na)
    return _rollout_choice(st, cfg, spec, dice, mask, na, legal, policy, rng, obs, offs, w, hs, colours, fw, iw, bw)


@njit(cache=True, inline="always")
def _rollout_choice(st, cfg, spec, dice, mask, na, legal, policy, rng, obs, offs, w, hs, colours, fw, iw, bw):
    """:func:`policy_action` inside a rollout, given the number of ``legal`` actions: a forced move (a draw with
    nothing playable, keeping an unplayable card: a third of a rollout's decisions) is taken without building
    the heuristic's view (``heuristic`` and ``greedy`` play it too, drawing no random number); the heuristic
    reads :func:`_heuristic_view`."""
    if policy == POLICY_RANDOM:
        return U.random_legal(mask, na, rng)
    if legal == 1:
        # the one legal action, whatever order it is looked for in: a forced draw, then keep, are tested before
        # the scan (which crossed every play action to reach them)
        k = cfg[C_K]
        draw = A_DRAW_K * k + A_DRAW_B
        if mask[draw] != 0:
            return draw
        keep = A_KEEP_K * k + A_KEEP_B
        if mask[keep] != 0:
            return keep
        for a in range(na):
            if mask[a] != 0:
                return a
    if policy == POLICY_HEURISTIC and cfg[C_GAME] != GAME_DICE:
        _heuristic_view(st, cfg, spec, offs, st[S_CUR], obs)
        if legal < 1:  # no legal action: the checked entry point's answer, as before (the rollout then stops)
            return heuristic_action(obs, mask, cfg, spec, offs, w, hs, fw, iw, bw)
        # two or more legal actions (counted by the caller's legal mask): the heuristic without its own count
        return heuristic_choice(obs, mask, cfg, spec, offs, w, hs, fw, iw, bw)
    return greedy_state_action(st, cfg, spec, dice, mask, na, rng, colours)


@njit(cache=True)
def play_out(s, srng, cfg, spec, dice, r0, horizon, policy, prng, mask, rew, obs, offs, w, hs, colours, fw, iw, bw):
    """Play ``s`` on with the rollout policy until the round ends (or ``horizon`` decisions); returns the
    decisions played."""
    na = mask.shape[0]
    steps = 0
    while s[S_DONE] == 0 and U.get_wide(s, S_ROUND) == r0 and (horizon == 0 or steps < horizon):
        legal = E.legal_mask(s, cfg, spec, dice, mask)
        a = _rollout_choice(s, cfg, spec, dice, mask, na, legal, policy, prng, obs, offs, w, hs, colours, fw, iw, bw)
        if a < 0:
            break
        E._apply(s, srng, cfg, spec, dice, a, rew)
        steps += 1
    return steps


@njit_refcounted(cache=True)
def rollout_speed(st, rng, cfg, spec, dice, policy, steps, mask, rew, obs, offs, w, hs, colours, prng):
    """Play ``steps`` decisions with a rollout policy from ``st`` (reset from a fresh seed at each episode end);
    returns the episodes finished.  The plain simulator's speed under a rollout policy, for the benchmark."""
    fw, iw, bw = baseline_scratch(mask.shape[0])
    return _rollout_speed(st, rng, cfg, spec, dice, policy, steps, mask, rew, obs, offs, w, hs, colours, prng, fw, iw,
                          bw)


@njit(cache=True)
def _rollout_speed(st, rng, cfg, spec, dice, policy, steps, mask, rew, obs, offs, w, hs, colours, prng, fw, iw, bw):
    """:func:`rollout_speed` with the heuristic's work arrays given."""
    na = mask.shape[0]
    done = 0
    E.legal_mask(st, cfg, spec, dice, mask)
    for _ in range(steps):
        if st[S_DONE] != 0:
            done += 1
            E.reset_one(st, rng, cfg, spec, dice, np.int64(U.next_u64(prng) >> np.uint64(1)))
            E.legal_mask(st, cfg, spec, dice, mask)
        a = policy_choice(st, cfg, spec, dice, mask, na, policy, prng, obs, offs, w, hs, colours, fw, iw, bw)
        E._apply(st, rng, cfg, spec, dice, a, rew)
        E.legal_mask(st, cfg, spec, dice, mask)
    return done

