"""Information-set Monte Carlo tree search on the compiled core, and its compiled rollout policies.

The variant is single-observer ISMCTS (SO-ISMCTS; Cowling, Powley & Whitehouse 2012, the algorithm of
OpenSpiel's ``ismcts``): one tree for the searching seat, whose nodes are sequences of actions from the real
state.  Every simulation draws a fresh determinization (``determinize``: a full state consistent with what the
seat knows), walks the tree with the actions legal *in that sample*, expands one node, plays the rest of the
round with a rollout policy and backs up who won.  Nodes keep a win count per seat, so each seat's choice in
the tree maximises its own wins (the opponents search too, with the hands of the sample).  An action is scored
by UCB1 with its *availability* count (the simulations in which it was legal at that node) in place of the
parent's visits, since a sample may not offer every action.  Chance (the card drawn, the die rolled) is not a
tree level: the next node after ``draw`` pools every card the sample happened to draw, which the availability
counts absorb.  Why SO-ISMCTS rather than PIMC (one tree per sample, then a vote): a PIMC tree assumes the seat
knows the other hands, so it values what only a cheat could do (strategy fusion); the single tree shares every
simulation and never conditions the seat's own choice on hidden cards.

A simulation ends at the end of the round: the round's winner scores 1 for its seat (in a match of several
rounds this is the round, not the match); a game cut off at ``max_turns`` scores nothing for anyone.  With a
``horizon`` the rollout stops after that many decisions and the position is scored from the hand sizes
(:func:`position_value`): a shorter, less noisy estimate, so more simulations fit in the same time.

Rollout policies (compiled, :data:`ROLLOUTS`): ``random`` (uniform over the legal actions), ``greedy`` (the
``greedy`` agent's rule: the highest-value card first, colour held most of, never challenge) and ``heuristic``
(a compiled player of its own, a few of the ``heuristic`` agent's rules: keep wilds while a coloured card is
playable, never bluff a Wild Draw Four, aim action cards at a player close to going out, keep the colour held
most of, and prefer a card the next seat cannot follow: in a rollout every hand is the sample's, so that is
read from the next seat's sampled hand).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import common as U
from . import engine as E
from . import wilds
from ._cache import rule_sources, track_dependencies
from .actions import *  # noqa: F403 - generated action section starts A_*
from .cards import COL_COLOUR, COL_POINTS, COL_SYMBOL, NO_COLOUR, REVERSE, SKIP
from .determinize import SAMPLE_OK, determinize
from .layout import *  # noqa: F403 - the generated state offsets S_*, O_*, option slots C_*, phases PH_*

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
def _can_follow(st, spec, k, seat, colour, sym):
    """Whether ``seat`` holds a card that matches a top of ``colour`` and ``sym`` (a wild always does)."""
    base = O_HAND + seat * MAX_KINDS
    for kind in range(k):
        if st[base + kind] > 0:
            c = spec[kind, COL_COLOUR]
            if c == NO_COLOUR or c == colour or spec[kind, COL_SYMBOL] == sym:
                return True
    return False


@njit(cache=True, inline="always")
def _other_score(st, cfg, spec, seat, a, k, colours):
    """Score of a legal action that is not a play (both scripted rollouts): colours, draw, keep, give, swap..."""
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
def policy_action(st, cfg, spec, mask, na, policy, rng, score, colours):
    """The rollout policy's action for the acting seat of ``st`` (``mask`` = its legal mask); ``score`` is
    unused scratch kept for the signature."""
    if policy == POLICY_RANDOM:
        return random_action(mask, na, rng)
    k = cfg[C_K]
    seat = st[S_CUR]
    heuristic = policy == POLICY_HEURISTIC
    nxt = 0
    phase = st[S_PHASE]
    if heuristic or phase == PH_COLOUR:
        _colour_counts(st, spec, k, seat, colours)
    coloured_play = False
    close = False
    n = cfg[C_NP]
    if heuristic:
        for kind in range(k):
            if mask[kind] != 0 and spec[kind, COL_COLOUR] != NO_COLOUR:
                coloured_play = True
                break
        nxt = U.next_seat(st, cfg, seat, 1)
        close = st[O_HAND_N + nxt] <= 2
    legal_wd = -1  # computed once, when a restricted wild is on offer
    best = NEG
    pick = -1
    ties = 0
    for a in range(na):
        if mask[a] == 0:
            continue
        if a < 2 * k:  # a play, with (a >= k) or without the UNO call
            kind = a if a < k else a - k
            if not heuristic:
                s = 1000.0 + spec[kind, COL_POINTS]
            else:
                colour = spec[kind, COL_COLOUR]
                sym = spec[kind, COL_SYMBOL]
                s = 1000.0 + 0.02 * spec[kind, COL_POINTS]
                if colour == NO_COLOUR:
                    if U.is_restricted_wild(spec, kind):
                        if legal_wd < 0:
                            legal_wd = 1 if wilds.restricted_wild_legal(st, cfg, spec, seat) else 0
                        s += 6.0 if legal_wd == 1 else -900.0  # never bluff
                    elif coloured_play and st[O_HAND_N + seat] > 2:
                        s -= 8.0  # keep a plain wild for when it is needed
                else:
                    s += 0.5 * (colours[colour] - 1)
                # deny: the seat that faces the new top (in the sample) cannot follow it
                if colour != NO_COLOUR and not _can_follow(st, spec, k, nxt, colour, sym):
                    s += 4.0
                amount = U.draw_amount(sym)
                if sym == SKIP or sym == REVERSE or amount > 0:
                    if close:
                        s += 6.0
                    elif n == 2:
                        s += 3.0
                    s += 1.5 * amount
            if a >= k:
                s += 0.5
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
    return pick


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


@njit(cache=True)
def search(st, cfg, spec, dice, seat, sims, policy, c_uct, horizon, rng, child, visits, avail, wins, counters,
           s, srng, mask, rew, pool, path, score, colours, value):
    """Run ``sims`` more simulations of SO-ISMCTS for ``seat`` from the real state ``st`` into the tree.

    The tree (``child`` (N, A) int32, ``visits``/``avail`` (N,) int32, ``wins`` (N, MAX_PLAYERS) float32,
    ``counters`` int64 (T_LEN,)) persists between calls, so a caller can stop between batches of simulations
    (a time budget).  The other arguments are scratch: ``s``/``srng`` a state row and its PRNG word, ``mask``
    (A,) int8, ``rew`` (MAX_PLAYERS,) float32, ``pool`` (MAX_ITEMS,) int32, ``path`` (N + 1,) int32, ``score``
    (A,) float64, ``colours`` (5,) int64.  ``rng`` is the search's own PRNG word.  Returns 0, or -1 when the
    state cannot be sampled (inconsistent public counts).  ``horizon`` > 0 cuts a rollout after that many
    decisions and scores the position instead (:func:`position_value`); 0 plays the round out.  ``value``
    (MAX_PLAYERS,) float32 is scratch for the score of a simulation.
    """
    na = mask.shape[0]
    max_nodes = child.shape[0]
    for _ in range(sims):
        if determinize(st, cfg, spec, seat, s, srng, rng, pool) != SAMPLE_OK:
            return -1
        node = 0
        depth = 0
        r0 = s[S_ROUND]
        dec = 0
        while s[S_DONE] == 0 and s[S_ROUND] == r0:
            E.legal_mask(s, cfg, spec, dice, mask)
            cur = s[S_CUR]
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
                if v > best_v:
                    best_v = v
                    best = a
            if untried > 0 and counters[T_SIZE] < max_nodes:
                j = U.below(rng, untried)
                pick = -1
                for a in range(na):
                    if mask[a] != 0 and child[node, a] < 0:
                        if j == 0:
                            pick = a
                            break
                        j -= 1
                new = counters[T_SIZE]
                counters[T_SIZE] = new + 1
                child[new, :] = -1
                visits[new] = 0
                avail[new] = 1
                wins[new, :] = 0.0
                child[node, pick] = new
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
        steps = 0
        while s[S_DONE] == 0 and s[S_ROUND] == r0 and (horizon == 0 or steps < horizon):
            E.legal_mask(s, cfg, spec, dice, mask)
            a = policy_action(s, cfg, spec, mask, na, policy, srng, score, colours)
            if a < 0:
                break
            E._apply(s, srng, cfg, spec, dice, a, rew)
            dec += 1
            steps += 1
        position_value(s, cfg, r0, value)
        visits[0] += 1
        for d in range(1, depth + 1):
            visits[path[d]] += 1
            for p in range(MAX_PLAYERS):
                wins[path[d], p] += value[p]
        counters[T_DECISIONS] += dec
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
    if s[S_DONE] != 0 or s[S_ROUND] != r0:
        if s[S_DONE] == 1 or s[S_ROUND] != r0:
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


@njit(cache=True)
def rollout_speed(st, rng, cfg, spec, dice, policy, steps, mask, rew, score, colours, prng):
    """Play ``steps`` decisions with a rollout policy from ``st`` (reset from a fresh seed at each episode end);
    returns the episodes finished.  The plain simulator's speed under a rollout policy, for the benchmark."""
    na = mask.shape[0]
    done = 0
    E.legal_mask(st, cfg, spec, dice, mask)
    for _ in range(steps):
        if st[S_DONE] != 0:
            done += 1
            E.reset_one(st, rng, cfg, spec, dice, np.int64(U.next_u64(prng) >> np.uint64(1)))
            E.legal_mask(st, cfg, spec, dice, mask)
        a = policy_action(st, cfg, spec, mask, na, policy, prng, score, colours)
        E._apply(st, rng, cfg, spec, dice, a, rew)
        E.legal_mask(st, cfg, spec, dice, mask)
    return done
