"""Search on the compiled core for the ``ismcts`` agent: flat Monte Carlo with common random numbers and SO-ISMCTS.

Both searches read the real state only through :func:`~uno_env.players.determinize.determinize` (a full state
consistent with what the searching seat knows, redrawn for every sample), and both score a simulation at the
end of the round: the round's winner scores 1 for its seat (in a match of several rounds this is the round, not
the match; the arena's "game" is one round); a game cut off at ``max_turns`` scores nothing.  With a ``horizon``
the rollout stops after that many decisions and the position is scored from the hand sizes
(:func:`position_value`).  The rollout policies are :mod:`uno_env.players.rollout`'s.

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
one move deep, so against the ``heuristic`` agent it is partly tuned to its opponent (the docs' agents page says so).

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
"""
from __future__ import annotations

import math

from ..core import common as U
from ..core import engine as E
from ..core._cache import track_dependencies
from ..core._jit import njit, njit_refcounted
from ..core.layout import C_NP, MAX_PLAYERS, O_HAND_N, S_CUR, S_DONE, S_ROUND, S_WINNER
from ._cache import player_sources
from .determinize import SAMPLE_OK, determinize
from .rollout import play_out, policy_choice
from .workspace import baseline_scratch

track_dependencies(__file__, player_sources())

# counters of a search (int64 array): nodes in use, simulated decisions, simulations run
T_SIZE, T_DECISIONS, T_SIMS = 0, 1, 2
T_LEN = 3

NEG = -1.0e18


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
    for _ in range(sims):
        if determinize(st, cfg, spec, seat, s, srng, rng, pool) != SAMPLE_OK:
            return -1
        r0 = U.get_wide(s, S_ROUND)
        depth, dec = _descend(cfg, spec, dice, seat, policy, c_uct, opp_model, bias, rng, child, visits, avail, wins,
                              counters, s, srng, r0, mask, rew, path, obs, offs, w, hs, colours, fw, iw, bw)
        dec += play_out(s, srng, cfg, spec, dice, r0, horizon, policy, srng, mask, rew, obs, offs, w, hs, colours,
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


@njit(cache=True, inline="always")
def _descend(cfg, spec, dice, seat, policy, c_uct, opp_model, bias, rng, child, visits, avail, wins, counters, s,
             srng, r0, mask, rew, path, obs, offs, w, hs, colours, fw, iw, bw):
    """One simulation's walk down the tree on the sample ``s`` (round ``r0``), with the actions legal in the
    sample, until it expands a node (or the round ends, or the tree is full and the node's actions are untried);
    returns (depth reached, decisions played), ``path[1:depth + 1]`` holding the nodes passed."""
    na = mask.shape[0]
    max_nodes = child.shape[0]
    node = 0
    depth = 0
    dec = 0
    while s[S_DONE] == 0 and U.get_wide(s, S_ROUND) == r0:
        E.legal_mask(s, cfg, spec, dice, mask)
        cur = s[S_CUR]
        if cur != seat and opp_model == 1:  # the other seats play the rollout policy in the tree too
            pick = policy_choice(s, cfg, spec, dice, mask, na, policy, rng, obs, offs, w, hs, colours, fw, iw, bw)
            ch = child[node, pick]
            expand = ch < 0
            if expand:
                if counters[T_SIZE] >= max_nodes:
                    break
                ch = _new_child(child, visits, avail, wins, counters, node, pick)
            else:
                avail[ch] += 1
        else:
            prior = -1
            if cur == seat and bias > 0.0:
                prior = policy_choice(s, cfg, spec, dice, mask, na, policy, rng, obs, offs, w, hs, colours, fw, iw,
                                      bw)
            pick, untried = _ucb_choice(child, visits, avail, wins, mask, node, cur, c_uct, prior, bias)
            expand = untried > 0 and counters[T_SIZE] < max_nodes
            if expand:
                pick = _untried_choice(child, mask, node, prior, untried, rng)
                ch = _new_child(child, visits, avail, wins, counters, node, pick)
            elif pick < 0:  # the tree is full and this node's actions are untried: roll out from here
                break
            else:
                ch = child[node, pick]
        E._apply(s, srng, cfg, spec, dice, pick, rew)
        dec += 1
        depth += 1
        path[depth] = ch
        node = ch
        if expand:
            break
    return depth, dec


@njit(cache=True, inline="always")
def _ucb_choice(child, visits, avail, wins, mask, node, cur, c_uct, prior, bias):
    """UCB1 over the legal actions of ``node`` tried before, each with its availability count in place of the
    parent's visits, plus the progressive bias on ``prior``; (the best of them or -1, how many are untried)."""
    untried = 0
    best = -1
    best_v = NEG
    for a in range(mask.shape[0]):
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
    return best, untried


@njit(cache=True, inline="always")
def _untried_choice(child, mask, node, prior, untried, rng):
    """The action to expand at ``node``: the rollout policy's choice ``prior`` when it is untried, else one of the
    ``untried`` legal actions at random."""
    if prior >= 0 and child[node, prior] < 0:
        return prior
    j = U.below(rng, untried)
    for a in range(mask.shape[0]):
        if mask[a] != 0 and child[node, a] < 0:
            if j == 0:
                return a
            j -= 1
    return -1


# ---------------------------------------------------------------------------------------------- flat
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
            dec = 1 + play_out(s2, srng2, cfg, spec, dice, r0, horizon, policy, prng, mask, rew, obs, offs, w, hs,
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


