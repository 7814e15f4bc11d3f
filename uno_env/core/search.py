"""Search on the compiled core for the ``ismcts`` agent: flat Monte Carlo with common random numbers, SO-ISMCTS,
and their compiled rollout policies.

Both searches read the real state only through :func:`~uno_env.core.determinize.determinize` (a full state
consistent with what the searching seat knows, redrawn for every sample), and both score a simulation at the
end of the round: the round's winner scores 1 for its seat (in a match of several rounds this is the round, not
the match; the arena's "game" is one round); a game cut off at ``max_turns`` scores nothing.  With a ``horizon``
the rollout stops after that many decisions and the position is scored from the hand sizes
(:func:`position_value`).

:func:`flat_search` (``mode=flat``, the default in the card games) is one-step *rollout policy improvement*
(Tesauro & Galperin 1996; Bertsekas' rollout algorithm) on determinized states.  Each sample is a
determinization; on it every action legal at the root is played and the round finished by the rollout policy
for every seat (the searcher's own later turns too), every action with the same sample and the same random
stream (common random numbers: the same future draws, the same tie-breaks), so two actions' results differ
only by what the actions changed and their paired difference has far less variance than two independent
estimates.  The agent then plays the rollout policy's own choice unless another action beats it by a paired
z-test over the shared samples (``z``): noise alone cannot make the search play worse than its rollout policy,
and with enough samples it plays at least as well as that policy under the model.  The model is the rollout
policy, ``heuristic`` by default, playing every other seat: the search computes a best reply to the heuristic
one move deep, so against the ``heuristic`` agent it is partly tuned to its opponent (the README says so).

:func:`search` (``mode=tree``, the default in UNO Dice) is single-observer ISMCTS (SO-ISMCTS; Cowling, Powley &
Whitehouse 2012, the algorithm of OpenSpiel's ``ismcts``): one tree for the searching seat, whose nodes are
sequences of actions from the real state.  Every simulation draws a fresh determinization, walks the tree with
the actions legal *in that sample*, expands one node, plays the rest of the round with the rollout policy and
backs up who won.  Nodes keep a win count per seat, so each seat's choice in the tree maximises its own wins
(the opponents search too, with the hands of the sample), unless ``opp_model`` makes the other seats play the
rollout policy in the tree as well (an opponent model); ``bias`` adds a progressive bias toward the rollout
policy's choice at the searcher's nodes.  An action is scored by UCB1 with its *availability* count (the
simulations in which it was legal at that node) in place of the parent's visits, since a sample may not offer
every action.  Chance (the card drawn, the die rolled) is not a tree level: the next node after ``draw`` pools
every card the sample happened to draw, which the availability counts absorb.  Why a single tree rather than
PIMC (one tree per sample, then a vote): a PIMC tree assumes the seat knows the other hands, so it values what
only a cheat could do (strategy fusion); the single tree never conditions the seat's own choice on hidden
cards.  In UNO Dice every hand is public and only future rolls are sampled, so the tree loses little to
determinization and out-searches the one-step flat search; in the card games its noisy root statistics lost to
the heuristic, which the flat search with a paired test beats (pilots in the agent's docstring).

Rollout policies (compiled, :data:`ROLLOUTS`): ``random`` (uniform over the legal actions), ``greedy`` (the
``greedy`` agent's rule read from the state row: the highest-value card first, the colour held most of, never
challenge) and ``heuristic``: the ``heuristic`` agent itself (``baselines.heuristic_action``), handed the acting
seat's observation of the sample, so the model of every seat is exactly the heuristic agent and reads only
what that seat would see.  In UNO Dice ``heuristic`` rollouts play ``greedy``: the dice heuristic has a compiled
twin now (``dice_baselines``), but the search does not call it yet, as that would change the committed dice results.
"""
from __future__ import annotations

import math

import numpy as np

from . import common as U
from . import engine as E
from ._cache import rule_sources, track_dependencies
from ._jit import njit, njit_refcounted
from .actions import *  # noqa: F403 - generated action section starts A_*
from .baselines import heuristic_action, heuristic_choice
from .cards import COL_COLOUR, COL_POINTS
from .determinize import SAMPLE_OK, determinize
from .layout import *  # noqa: F403 - the generated state offsets S_*, O_*, option slots C_*, phases PH_*
from .observe import B_COLOUR as OB_COLOUR
from .observe import B_DIRECTION as OB_DIRECTION
from .observe import B_DISCARDED as OB_DISCARDED
from .observe import B_HAND as OB_HAND
from .observe import B_HAND_SIZES as OB_HAND_SIZES
from .observe import B_PHASE as OB_PHASE
from .observe import B_TOP as OB_TOP
from .observe import observe_one
from .workspace import baseline_scratch

track_dependencies(__file__, rule_sources())

#: rollout policies by name; the index is the compiled code's id
ROLLOUTS = ("random", "greedy", "heuristic")
POLICY_RANDOM, POLICY_GREEDY, POLICY_HEURISTIC = range(3)

# counters of a search (int64 array): nodes in use, simulated decisions, simulations run
T_SIZE, T_DECISIONS, T_SIMS = 0, 1, 2
T_LEN = 3

NEG = -1.0e18


# ---------------------------------------------------------------------------------------------- rollout policies
@njit(cache=True)
def random_action(mask, na, rng):
    """A uniformly random legal action of ``mask`` (-1 if none)."""
    return U.random_legal(mask, na, rng)


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

    ``heuristic`` is the ``heuristic`` agent itself (``baselines.heuristic_action``, which a test holds equal to
    the Python agent): it is handed the acting seat's observation of ``st``, written into ``obs`` (float32,
    the game's observation length; ``offs`` its block offsets), with weights ``w`` and ``hs`` (a state row of
    scratch).  In UNO Dice ``heuristic`` falls back to ``greedy`` (the compiled dice heuristic is not wired in
    here yet).  This entry point allocates the heuristic's work arrays for one call; the search's loops call
    :func:`_policy` with theirs.
    """
    fw, iw, bw = baseline_scratch(na)
    return _policy(st, cfg, spec, dice, mask, na, policy, rng, obs, offs, w, hs, colours, fw, iw, bw)


@njit(cache=True)
def _policy(st, cfg, spec, dice, mask, na, policy, rng, obs, offs, w, hs, colours, fw, iw, bw):
    """:func:`policy_action` with the heuristic's work arrays given (``workspace.baseline_scratch``)."""
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


# ---------------------------------------------------------------------------------------------- the tree
@njit(cache=True)
def tree_reset(child, visits, avail, wins, counters):
    """Empty the tree: the root alone (node 0)."""
    child[0, :] = -1
    visits[0] = 0
    avail[0] = 0
    wins[0, :] = 0.0
    counters[T_SIZE] = 1
    counters[T_DECISIONS] = 0
    counters[T_SIMS] = 0


@njit(cache=True, inline="always")
def _new_child(child, visits, avail, wins, counters, node, action):
    """Add the node reached from ``node`` by ``action`` (the caller checked the tree has room); its index."""
    new = counters[T_SIZE]
    counters[T_SIZE] = new + 1
    child[new, :] = -1
    visits[new] = 0
    avail[new] = 1
    wins[new, :] = 0.0
    child[node, action] = new
    return new


@njit(cache=True)
def _rollout(s, srng, cfg, spec, dice, r0, horizon, policy, prng, mask, rew, obs, offs, w, hs, colours, fw, iw, bw):
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
def search(st, cfg, spec, dice, seat, sims, policy, c_uct, horizon, opp_model, bias, rng, child, visits, avail,
           wins, counters, s, srng, mask, rew, pool, path, obs, offs, w, hs, colours, value):
    """Run ``sims`` more simulations of SO-ISMCTS for ``seat`` from the real state ``st`` into the tree.

    The tree (``child`` (N, A) int32, ``visits``/``avail`` (N,) int32, ``wins`` (N, MAX_PLAYERS) float32,
    ``counters`` int64 (T_LEN,)) persists between calls, so a caller can stop between batches of simulations
    (a time budget).  ``opp_model`` 1: the other seats' moves in the tree are the rollout policy's (an opponent
    model) instead of their own UCB choice.  ``bias`` > 0: progressive bias at ``seat``'s nodes, ``bias / (n + 1)``
    added to the UCB score of the rollout policy's choice (n: its visits), which is also the first action
    expanded.  The other arguments are scratch: ``s``/``srng`` a state row and its PRNG word, ``mask`` (A,) int8,
    ``rew`` (MAX_PLAYERS,) float32, ``pool`` (MAX_ITEMS,) int32, ``path`` (N + 1,) int32, ``obs``/``offs``/``w``/
    ``hs`` the heuristic rollout's (:func:`policy_action`), ``colours`` (5,) int64, ``value`` (MAX_PLAYERS,)
    float32.  ``rng`` is the search's own PRNG word.  Returns 0, or -1 when the state cannot be sampled
    (inconsistent public counts).  ``horizon`` > 0 cuts a rollout after that many decisions and scores the
    position instead (:func:`position_value`); 0 plays the round out.
    """
    # the heuristic's work arrays, once per call: the simulations are compiled without reference counting, which
    # allocating would need (``_jit.py``)
    fw, iw, bw = baseline_scratch(mask.shape[0])
    return _search(st, cfg, spec, dice, seat, sims, policy, c_uct, horizon, opp_model, bias, rng, child, visits,
                   avail, wins, counters, s, srng, mask, rew, pool, path, obs, offs, w, hs, colours, value, fw, iw, bw)


@njit(cache=True)
def _search(st, cfg, spec, dice, seat, sims, policy, c_uct, horizon, opp_model, bias, rng, child, visits, avail,
            wins, counters, s, srng, mask, rew, pool, path, obs, offs, w, hs, colours, value, fw, iw, bw):
    """:func:`search` with the heuristic's work arrays given."""
    na = mask.shape[0]
    max_nodes = child.shape[0]
    for _ in range(sims):
        if determinize(st, cfg, spec, seat, s, srng, rng, pool) != SAMPLE_OK:
            return -1
        node = 0
        depth = 0
        r0 = U.get_wide(s, S_ROUND)
        dec = 0
        while s[S_DONE] == 0 and U.get_wide(s, S_ROUND) == r0:
            E.legal_mask(s, cfg, spec, dice, mask)
            cur = s[S_CUR]
            prior = -1
            if cur != seat and opp_model == 1:
                pick = _policy(s, cfg, spec, dice, mask, na, policy, rng, obs, offs, w, hs, colours, fw, iw, bw)
                ch = child[node, pick]
                if ch >= 0:
                    avail[ch] += 1
                    E._apply(s, srng, cfg, spec, dice, pick, rew)
                    dec += 1
                    node = ch
                    depth += 1
                    path[depth] = node
                    continue
                if counters[T_SIZE] >= max_nodes:
                    break
                new = _new_child(child, visits, avail, wins, counters, node, pick)
                E._apply(s, srng, cfg, spec, dice, pick, rew)
                dec += 1
                depth += 1
                path[depth] = new
                break
            if cur == seat and bias > 0.0:
                prior = _policy(s, cfg, spec, dice, mask, na, policy, rng, obs, offs, w, hs, colours, fw, iw, bw)
            untried = 0
            best = -1
            best_v = NEG
            for a in range(na):
                if mask[a] == 0:
                    continue
                ch = child[node, a]
                if ch < 0:
                    untried += 1
                    continue
                avail[ch] += 1
                nv = visits[ch]
                v = wins[ch, cur] / nv + c_uct * math.sqrt(math.log(avail[ch]) / nv)
                if a == prior:
                    v += bias / (nv + 1)
                if v > best_v:
                    best_v = v
                    best = a
            if untried > 0 and counters[T_SIZE] < max_nodes:
                pick = -1
                if prior >= 0 and child[node, prior] < 0:
                    pick = prior
                else:
                    j = U.below(rng, untried)
                    for a in range(na):
                        if mask[a] != 0 and child[node, a] < 0:
                            if j == 0:
                                pick = a
                                break
                            j -= 1
                new = _new_child(child, visits, avail, wins, counters, node, pick)
                E._apply(s, srng, cfg, spec, dice, pick, rew)
                dec += 1
                depth += 1
                path[depth] = new
                break
            if best < 0:  # the tree is full and this node's actions are untried: roll out from here
                break
            E._apply(s, srng, cfg, spec, dice, best, rew)
            dec += 1
            node = child[node, best]
            depth += 1
            path[depth] = node
        dec += _rollout(s, srng, cfg, spec, dice, r0, horizon, policy, srng, mask, rew, obs, offs, w, hs, colours,
                        fw, iw, bw)
        position_value(s, cfg, r0, value)
        visits[0] += 1
        for d in range(1, depth + 1):
            visits[path[d]] += 1
            for p in range(MAX_PLAYERS):
                wins[path[d], p] += value[p]
        counters[T_DECISIONS] += dec
        counters[T_SIMS] += 1
    return 0


@njit_refcounted(cache=True)
def flat_search(st, cfg, spec, dice, seat, sims, policy, horizon, rng, root_mask, base, totals, sq, vals, counts,
                counters, s, srng, s2, srng2, prng, mask, rew, pool, obs, offs, w, hs, colours, value):
    """Flat Monte Carlo with common random numbers: ``sims`` determinizations of what ``seat`` knows, and in each
    every action legal at the root (``root_mask``) played and followed by the rollout policy to the end of the
    round, every action on the same sample with the same random stream (the same future draws and rollout
    tie-breaks), so two actions differ only by what they change.  ``totals[a]`` / ``counts[a]`` accumulate the
    seat's score after action ``a``; with ``base`` >= 0 (an action legal at the root), ``sq[a]`` accumulates the
    squared paired difference of ``a``'s score and ``base``'s on the same sample, for a paired test of ``a``
    against ``base``.  Scratch as in :func:`search` (``s2``/``srng2`` a second state row and word, ``prng`` the
    rollout's word, ``vals`` (A,) float64).  Returns 0, or -1 when the state cannot be sampled."""
    fw, iw, bw = baseline_scratch(mask.shape[0])  # as in :func:`search`
    return _flat_search(st, cfg, spec, dice, seat, sims, policy, horizon, rng, root_mask, base, totals, sq, vals,
                        counts, counters, s, srng, s2, srng2, prng, mask, rew, pool, obs, offs, w, hs, colours, value,
                        fw, iw, bw)


@njit(cache=True)
def _flat_search(st, cfg, spec, dice, seat, sims, policy, horizon, rng, root_mask, base, totals, sq, vals, counts,
                 counters, s, srng, s2, srng2, prng, mask, rew, pool, obs, offs, w, hs, colours, value, fw, iw, bw):
    """:func:`flat_search` with the heuristic's work arrays given."""
    na = mask.shape[0]
    for _ in range(sims):
        if determinize(st, cfg, spec, seat, s, srng, rng, pool) != SAMPLE_OK:
            return -1
        r0 = U.get_wide(s, S_ROUND)
        word = U.next_u64(rng)
        for a in range(na):
            vals[a] = 0.0
            if root_mask[a] == 0:
                continue
            E.legal_mask(s, cfg, spec, dice, mask)
            if mask[a] == 0:  # cannot happen (the seat's own legal actions are public to it): never apply one
                continue
            for i in range(s.shape[0]):
                s2[i] = s[i]
            srng2[0] = srng[0]
            prng[0] = word
            E._apply(s2, srng2, cfg, spec, dice, a, rew)
            dec = 1 + _rollout(s2, srng2, cfg, spec, dice, r0, horizon, policy, prng, mask, rew, obs, offs, w, hs,
                               colours, fw, iw, bw)
            position_value(s2, cfg, r0, value)
            vals[a] = value[seat]
            totals[a] += value[seat]
            counts[a] += 1
            counters[T_DECISIONS] += dec
        if base >= 0:
            for a in range(na):
                if root_mask[a] != 0:
                    d = vals[a] - vals[base]
                    sq[a] += d * d
        counters[T_SIMS] += 1
    return 0


@njit(cache=True)
def position_value(s, cfg, r0, value):
    """Each seat's score for a simulation that ended in ``s``: 1 for the round's winner once the round is over
    (nothing for anyone in a game cut off at ``max_turns``); in a rollout cut at its horizon, a share of 1 that
    falls off by half with every card more in hand than the shortest hand (``2 ** -(n_i - n_min)``, normalised):
    the number of cards left is what decides a round of UNO."""
    for p in range(MAX_PLAYERS):
        value[p] = 0.0
    if s[S_DONE] != 0 or U.get_wide(s, S_ROUND) != r0:
        if s[S_DONE] == 1 or U.get_wide(s, S_ROUND) != r0:
            value[s[S_WINNER]] = 1.0
        return
    n = cfg[C_NP]
    low = s[O_HAND_N]
    for p in range(1, n):
        low = min(low, s[O_HAND_N + p])
    total = 0.0
    for p in range(n):
        value[p] = 0.5 ** (s[O_HAND_N + p] - low)
        total += value[p]
    for p in range(n):
        value[p] /= total


@njit(cache=True)
def root_choice(child, visits, wins, mask, seat, out_visits, out_value):
    """The most visited legal action at the root (ties: the higher win rate); fills per-action statistics."""
    best = -1
    best_n = -1
    best_v = -1.0
    for a in range(mask.shape[0]):
        out_visits[a] = 0
        out_value[a] = 0.0
        if mask[a] == 0:
            continue
        ch = child[0, a]
        nv = 0 if ch < 0 else visits[ch]
        v = 0.0 if nv == 0 else wins[ch, seat] / nv
        out_visits[a] = nv
        out_value[a] = v
        if nv > best_n or (nv == best_n and v > best_v):
            best, best_n, best_v = a, nv, v
    return best


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
        a = _policy(st, cfg, spec, dice, mask, na, policy, prng, obs, offs, w, hs, colours, fw, iw, bw)
        E._apply(st, rng, cfg, spec, dice, a, rew)
        E.legal_mask(st, cfg, spec, dice, mask)
    return done
