"""The batch kernels of the batched simulator (``uno_env.vector``): what every batched step needs besides choosing
the opponents' actions.

The step itself, with the opponent seats played inside the kernel, is :func:`uno_env.players.batch_play.advance`
(one layer up: it calls the compiled players).  From here it takes a game's episode bookkeeping
(:func:`start_episode`, :func:`finish_episode`, :func:`add_rewards`) and the control array through which one
env's threads share a step (:func:`publish`, :func:`claim`, :func:`wait_done`).  Everything a game does depends
only on its own state row, its own PRNG word and its own seed list, so a game's trajectory is the same whatever
batch (and thread) it runs in.

The kernels that loop over games are compiled with ``nogil=True``: ``uno_env.vector`` runs them on chunks of
games in several Python threads (``uno_env._threads``) rather than with numba's ``parallel=True`` threading layers,
which share OpenMP with torch and collapse on a busy machine.
"""
from __future__ import annotations

import numpy as np

from . import common as U
from . import engine as E
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .atomic import compare_exchange, load, store
from .invariants import check_state
from .layout import C_NP, S_CUR, S_DONE, S_MATCH_WINNER, S_ROUND, S_TURNS
from .observe import observe_one

track_dependencies(__file__, rule_sources())

# columns of the ``final`` (B, FINAL_LEN) int64 array: the result of the last episode each game finished
F_DONE = 0  # 1 terminated, 2 truncated
F_WINNER = 1  # match winner seat, -1 when truncated
F_TURNS = 2  # decisions in the episode
F_ROUNDS = 3  # rounds played in the episode
F_EPISODE = 4  # index of the finished episode for this game (0 = first)
F_SEED = 5  # the core seed the finished episode was reset with
F_LEARNER = 6  # the seat whose view final_obs holds (single-agent: the learner's seat in that episode)
FINAL_LEN = 7

# columns of the ``counters`` (B, COUNTERS_LEN) int64 array
K_SEED_POS = 0  # next unused column of the game's seed list
K_EPISODE = 1  # index of the episode being played
K_SEED = 2  # core seed of the episode being played
COUNTERS_LEN = 3

OPP_SALT = np.int64(0x2545F4914F6CDD1D)  # opponent PRNG of an episode = splitmix64(core seed ^ OPP_SALT)


@njit(cache=True)
def first_illegal(rows, actions, masks):
    """Index ``i`` of the first ``actions[i]`` that is out of range or not legal in game ``rows[i]``; -1 if none."""
    a_max = masks.shape[1]
    for i in range(rows.shape[0]):
        a = actions[i]
        if a < 0 or a >= a_max or masks[rows[i], a] == 0:
            return i
    return -1


@njit(cache=True, inline="always")
def random_legal(mask, rng):
    """A uniformly random legal action of ``mask`` (-1 if none)."""
    return U.random_legal(mask, mask.shape[0], rng)


@njit(cache=True)
def start_episode(st, rng, cfg, spec, dice, mask, opp, learner, random_seat, seed_buf, counters, b):
    """Reset game ``b`` from its next seed; False when its seed list is used up (the caller refills it).

    The game's opponent stream is reseeded from the episode's seed; with ``random_seat`` its first draw is the
    learner's seat for the episode.
    """
    pos = counters[b, K_SEED_POS]
    if pos >= seed_buf.shape[1]:
        return False
    seed = seed_buf[b, pos]
    counters[b, K_SEED_POS] = pos + 1
    counters[b, K_EPISODE] += 1
    counters[b, K_SEED] = seed
    E.reset_one(st, rng, cfg, spec, dice, seed)
    E.legal_mask(st, cfg, spec, dice, mask)
    U.seed_rng(opp[b], seed ^ OPP_SALT)
    if random_seat:
        learner[b] = U.below(opp[b], cfg[C_NP])
    return True


@njit(cache=True)
def finish_episode(st, cfg, spec, offs, b, view, terminated, truncated, final, final_obs, counters):
    """Record the episode game ``b`` just ended: its flag, its result (``final``, columns ``F_*``) and its last
    observation from seat ``view``."""
    if st[S_DONE] == 1:
        terminated[b] = True
    else:
        truncated[b] = True
    final[b, F_DONE] = st[S_DONE]
    final[b, F_WINNER] = st[S_MATCH_WINNER] if st[S_DONE] == 1 else -1
    final[b, F_TURNS] = U.get_wide(st, S_TURNS)
    final[b, F_ROUNDS] = U.get_wide(st, S_ROUND) + 1
    final[b, F_EPISODE] = counters[b, K_EPISODE]
    final[b, F_SEED] = counters[b, K_SEED]
    final[b, F_LEARNER] = view
    observe_one(st, cfg, spec, offs, view, final_obs[b])


@njit(cache=True, inline="always")
def add_rewards(r, n, rewards, lrew, carry, fresh, b, me):
    """Add one step's rewards ``r`` of game ``b`` to every seat's, and to the learner's (seat ``me``; -1: none),
    which an episode the learner has not acted in yet (``fresh``) carries to its first action."""
    for s in range(n):
        rewards[b, s] += r[s]
    if me >= 0:
        if fresh[b]:
            carry[b] += r[me]
        else:
            lrew[b] += r[me]


#: the control array (int64, ``control_len(threads)``) that one env's threaded steps share with its helper threads,
#: which stay in a compiled spin loop between steps (``uno_env.players.batch_play.helper_spin``).  A step is
#: published by raising ``C_GEN``; every thread then claims chunks of its games from one counter per thread's
#: share of the rows.  A counter holds the step's generation in its high 32 bits (``TAG_MASK``) and the next
#: unclaimed offset in the low ones, so a claim succeeds only for the step its thread read its parameters for: a
#: helper the OS held up until the caller had moved on finds the tag changed and claims nothing.
C_GEN = 0  # the step published last (1, 2, ...)
C_DONE = 1  # games of that step finished
C_DRY = 2  # sum of the finished chunks' results (games waiting for a seed-list refill)
C_STOP = 3  # nonzero: helpers leave their spin loop (another env wants the threads, or the arrays changed)
C_ERROR = 4  # nonzero: a helper's call raised (the caller re-raises it instead of waiting)
C_N = 5  # the step's rows, its actions (0: no step, only resets), its mode and games per claim
C_NA = 6
C_MODE = 7
C_CHUNK = 8
C_SPINS = 9  # reads a helper spins for the next step after this one (0: it sleeps at once)
C_ACTIVE = 10  # + h: helper h (1 .. threads - 1) is in its spin loop on this array
TAG_SHIFT = 32
TAG_MASK = (1 << 31) - 1
OFFSET_MASK = (1 << TAG_SHIFT) - 1


def control_len(threads: int) -> int:
    """Length of the control array of ``threads`` threads: the header, one flag per helper, one counter per share."""
    return C_ACTIVE + 2 * threads


CLAIM_USED_UP = -1  # what :func:`claim` returns when every game of the share is claimed
CLAIM_STALE = -2  # ... when the step it was asked for is no longer the published one


@njit(cache=True, nogil=True)
def claim_slot(threads, share):
    """The control array's entry of share ``share``'s claim counter."""
    return C_ACTIVE + threads + share


@njit(cache=True, nogil=True)
def claim(ctrl, slot, tag, start, end, chunk):
    """The first row of ``chunk`` rows claimed from the share ``[start, end)`` whose counter is ``ctrl[slot]``, for
    the step tagged ``tag``; ``CLAIM_USED_UP`` if none is left, ``CLAIM_STALE`` if the counter holds another step's
    tag (the caller published a new step: a thread that read the old one's parameters may claim nothing)."""
    while True:
        old = load(ctrl, slot)
        if (old >> TAG_SHIFT) != tag:
            return CLAIM_STALE
        lo = start + (old & OFFSET_MASK)
        if lo >= end:
            return CLAIM_USED_UP
        if compare_exchange(ctrl, slot, old, old + chunk) == old:
            return lo


@njit(cache=True, nogil=True)
def publish(ctrl, gen, threads, n, na, mode, chunk, spins):
    """Publish step ``gen`` of ``ctrl``: ``n`` rows and ``na`` actions (already in the team's buffers), ``mode``,
    ``chunk`` games per claim, and how long the helpers spin for the next step once this one is done (``spins``
    reads).  The claim counters are reset first, so that a helper still holding the last step's
    parameters finds the tag changed and claims nothing; ``C_GEN`` is raised last.  A separate call from
    :func:`uno_env.players.batch_play.advance_lead`, so that spinning helpers start while the caller's own call is
    being dispatched.  Returns how many helpers are not in their spin loop (the caller wakes them)."""
    tag = gen & TAG_MASK
    for share in range(threads):
        store(ctrl, claim_slot(threads, share), tag << TAG_SHIFT)
    store(ctrl, C_DONE, 0)
    store(ctrl, C_DRY, 0)
    store(ctrl, C_N, n)
    store(ctrl, C_NA, na)
    store(ctrl, C_MODE, mode)
    store(ctrl, C_CHUNK, chunk)
    store(ctrl, C_SPINS, spins)
    store(ctrl, C_GEN, gen)
    asleep = 0
    for h in range(1, threads):
        if load(ctrl, C_ACTIVE + h) == 0:
            asleep += 1
    return asleep


@njit(cache=True, nogil=True)
def spin_probe(ctrl, spins):
    """The reads of :func:`uno_env.players.batch_play.helper_spin`'s wait, ``spins`` times (``C_GEN`` unchanged):
    times its reads per second."""
    changed = 0
    seen = load(ctrl, C_GEN)
    for _ in range(spins):
        if load(ctrl, C_STOP) != 0:
            changed += 1
        if load(ctrl, C_GEN) != seen:
            changed += 1
    return changed


@njit(cache=True, nogil=True)
def wait_done(ctrl, total, spins):
    """Spin (without the GIL) until ``ctrl[C_DONE]`` reaches ``total`` or ``spins`` reads have passed; returns
    whether it did.  The caller of a threaded step runs out of chunks while a helper finishes its last one (tens
    of microseconds); sleeping instead costs a wake-up of about as long again.  Bounded, so a helper that the OS
    has descheduled costs the caller this short spin and then short sleeps, never a long busy wait."""
    for _ in range(spins):
        if load(ctrl, C_DONE) >= total:
            return True
    return load(ctrl, C_DONE) >= total


@njit(cache=True, nogil=True)
def random_actions(masks, rngs, out):
    """``out[i]`` = a uniformly random legal action of ``masks[i]`` drawn with the PRNG word ``rngs[i]``; returns
    the first row without a legal action (its ``out`` is -1), else -1."""
    bad = -1
    for i in range(masks.shape[0]):
        out[i] = random_legal(masks[i], rngs[i])
        if out[i] < 0 and bad < 0:
            bad = i
    return bad


@njit(cache=True)
def seed_words(rngs, seed):
    """Seed PRNG word ``i`` with ``seed + i`` (splitmix64 streams)."""
    for i in range(rngs.shape[0]):
        U.seed_rng(rngs[i], seed + i)


@njit(cache=True, nogil=True)
def observe_rows(states, cfg, spec, offs, rows, seats, out):
    """Write the observation of seat ``seats[i]`` in game ``rows[i]`` into ``out[i]``, for every i (compiled)."""
    for i in range(rows.shape[0]):
        observe_one(states[rows[i]], cfg, spec, offs, seats[i], out[i])


@njit(cache=True)
def refresh(states, cfg, spec, dice, offs, masks, obs, seats):
    """Recompute every game's legal mask, seat to act and its observation (after states were set by hand)."""
    for b in range(states.shape[0]):
        st = states[b]
        E.legal_mask(st, cfg, spec, dice, masks[b])
        seats[b] = st[S_CUR]
        observe_one(st, cfg, spec, offs, st[S_CUR], obs[b])


@njit(cache=True)
def check_states(states, cfg, spec, dice, out):
    """``out[b]`` = the invariant checker's failure code for game ``b`` (0 = every invariant holds)."""
    bad = 0
    for b in range(states.shape[0]):
        out[b] = check_state(states[b], cfg, spec, dice)
        if out[b] != 0:
            bad += 1
    return bad
