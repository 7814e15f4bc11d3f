"""Fused batch kernels for the batched simulator (``uno_env.vector``).

One call of :func:`advance` does, for every listed game: check nothing (the caller validated the actions with
:func:`first_illegal`), step the action, add the rewards, and when the game ends record its final observation
and result and reset it from its next episode seed; optionally play the other seats with uniformly random
legal actions until the learner's seat is to act; then write the observation of the seat to act.  Everything
a game does depends only on its own state row, its own PRNG word and its own seed list, so a game's trajectory
is the same whatever batch (and thread) it runs in.

The kernels that loop over games are compiled with ``nogil=True``: ``uno_env.vector`` runs them on chunks of
games in several Python threads (``uno_env._threads``) rather than with numba's ``parallel=True`` threading layers,
which share OpenMP with torch and collapse on a busy machine.
"""
from __future__ import annotations

import numpy as np

from . import baselines as BL
from . import common as U
from . import engine as E
from ._cache import rule_sources, track_dependencies
from ._jit import njit, njit_refcounted
from .atomic import compare_exchange, fetch_add, load, store
from .invariants import check_state
from .observe import observe_one
from .prefetch import prefetch_game_head, prefetch_game_rest, prefetch_write
from .workspace import baseline_scratch

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

#: how many games ahead the kernel asks for a game's first lines, and (once those are in) for the rest
HEAD_AHEAD = 8
REST_AHEAD = 4
#: ... and for its PRNG word and reward rows: small rows that the processor's own prefetchers, busy with the state
#: rows' jumps, leave to miss at B=8192 (UNO Dice 2p +6%, pocket +4-5%, classic level;
#: ``benchmarks/results/bench_ab_small_rows_prefetch_1321c3e.txt``)
SMALL_AHEAD = 16

#: bit of ``advance``'s ``mode``: prefetch the next games' memory while stepping one
MODE_PREFETCH = 8

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
def _start(st, rng, cfg, spec, dice, mask, opp, learner, random_seat, seed_buf, counters, b):
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
    E.seed_rng(opp[b], seed ^ OPP_SALT)
    if random_seat:
        learner[b] = E._below(opp[b], cfg[E.C_NP])
    return True


@njit(cache=True)
def _finish(st, cfg, spec, offs, b, view, terminated, truncated, final, final_obs, counters):
    if st[E.S_DONE] == 1:
        terminated[b] = True
    else:
        truncated[b] = True
    final[b, F_DONE] = st[E.S_DONE]
    final[b, F_WINNER] = st[E.S_MATCH_WINNER] if st[E.S_DONE] == 1 else -1
    final[b, F_TURNS] = U.get_wide(st, E.S_TURNS)
    final[b, F_ROUNDS] = U.get_wide(st, E.S_ROUND) + 1
    final[b, F_EPISODE] = counters[b, K_EPISODE]
    final[b, F_SEED] = counters[b, K_SEED]
    final[b, F_LEARNER] = view
    observe_one(st, cfg, spec, offs, view, final_obs[b])


@njit(cache=True, inline="always")
def _add_rewards(r, n, rewards, lrew, carry, fresh, b, me):
    for s in range(n):
        rewards[b, s] += r[s]
    if me >= 0:
        if fresh[b]:  # the learner has not acted in this episode yet: paid with its first action
            carry[b] += r[me]
        else:
            lrew[b] += r[me]


@njit_refcounted(cache=True, nogil=True)
def step_scratch(states, obs, masks):
    """One thread's work rows for stepping games, allocated once per call of an entry point (allocating needs
    reference counting, which the loop over the games is compiled without: ``_jit.py``): what a compiled opponent
    sees, the heuristic's rule questions, and the compiled opponents' work arrays."""
    fw, iw, bw = baseline_scratch(masks.shape[1])
    return np.empty(obs.shape[1], dtype=np.float32), np.zeros(states.shape[1], dtype=states.dtype), fw, iw, bw


@njit_refcounted(cache=True, nogil=True)
def advance(states, rngs, cfg, spec, dice, offs, rows, actions, learner, opp, mode, masks, obs, seats, rew,
            rewards, lrew, carry, fresh, terminated, truncated, final, final_obs, seed_buf, counters, opp_ids,
            pool_kind, weights):
    """Step, auto-reset, (compiled opponents,) observe; returns how many games wait for a seed-list refill.

    rows     int64 (R,)   games to process
    actions  int64 (R,)   action of ``rows[i]``'s acting seat; length 0: do not step (only reset finished games,
                          play opponents and observe)
    learner  int64 (B,)   single-agent: the learner's seat per game, the other seats are opponents; length 0:
                          multi-agent (observe the seat to act, final observation from the seat that acted)
    opp      uint64 (B,1) per-game opponent PRNG words, reseeded from each episode's seed
    mode     int          bit 0: the opponents play here until the learner is to act, each seat as its kind in
                          ``pool_kind`` says (random, greedy, heuristic: ``baselines.KIND_*``), stopping at a
                          seat played from Python (KIND_EXTERNAL); else return as soon as any seat is to act;
                          bit 1: draw the learner's seat at random (from the opponent stream) when an episode
                          starts; bit 2: stop when an episode starts (the caller draws its opponents first);
                          bit 3 (``MODE_PREFETCH``): prefetch the next games' memory (``prefetch.py``), which pays
                          only once the batch's arrays outgrow the caches
    masks    int8 (B,A)   the current legal masks, kept up to date
    obs      f32 (B,D)    observation of the seat to act
    seats    int64 (B,)   seat to act (-1: waiting for a seed-list refill)
    rew      f32 (B,10)   scratch for one step's rewards
    rewards  f32 (B,n)    += every seat's rewards of the steps taken here
    lrew     f32 (B,)     += the learner's rewards (single-agent)
    carry    f32 (B,)     += the learner's rewards in an episode it has not acted in yet (``fresh``), which the
                          caller pays with its first action; an episode that ends before then is void (its carry
                          dropped, no ``_finish``, the next deal started).  Length 0: multi-agent
    fresh    bool (B,)    set when a game starts an episode (single-agent); the caller clears it when the learner
                          acts
    terminated, truncated  bool (B,)  set for the games that finished an episode here
    final    int64 (B,F)  the finished episode's result (columns F_*), written when it ends
    final_obs f32 (B,D)   the finished episode's last observation (learner's view / the last actor's view)
    seed_buf int64 (B,K)  each game's next episode seeds; counters int64 (B,3) (columns K_*)
    opp_ids  int64 (B,n-1) pool index of each opponent seat (next seat after the learner's first)
    pool_kind int64 (P,)  what plays each pool index (``baselines.KIND_*``); length 0: every opponent is random
    weights  f64 (W,)     the compiled baselines' parameters (``baselines.baseline_weight_array``)
    """
    scratch_obs, scratch_row, fw, iw, bw = step_scratch(states, obs, masks)
    return _advance_games(states, rngs, cfg, spec, dice, offs, rows, actions, learner, opp, mode, masks, obs, seats,
                          rew, rewards, lrew, carry, fresh, terminated, truncated, final, final_obs, seed_buf,
                          counters, opp_ids, pool_kind, weights, scratch_obs, scratch_row, fw, iw, bw)


#: the control array (int64, ``control_len(threads)``) that one env's threaded steps share with its helper threads,
#: which stay in a compiled spin loop between steps (:func:`helper_spin`).  A step is published by raising
#: ``C_GEN``; every thread then claims chunks of its games from one counter per thread's share of the rows.  A
#: counter holds the step's generation in its high 32 bits (``TAG_MASK``) and the next unclaimed offset in the
#: low ones, so a claim succeeds only for the step its thread read its parameters for: a helper the OS held up
#: until the caller had moved on finds the tag changed and claims nothing.
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
def _claim_games(ctrl, gen, index, threads, states, rngs, cfg, spec, dice, offs, rows, actions, learner, opp, masks,
                 obs, seats, rew, rewards, lrew, carry, fresh, terminated, truncated, final, final_obs, seed_buf,
                 counters, opp_ids, pool_kind, weights, scratch_obs, scratch_row, fw, iw, bw):
    """Run the chunks of step ``gen`` this thread claims: its own share of the rows first (``index`` modulo
    ``threads``), then the others', so a thread steps the same games from one step to the next and their state
    rows stay in its core's cache, and a thread the OS does not schedule holds back at most one chunk.  A chunk's
    result is added to ``C_DRY`` before its games to ``C_DONE``: once ``C_DONE`` is the step's row count, every
    game is stepped and ``C_DRY`` is the total.  Returns the games this call ran."""
    n = load(ctrl, C_N)
    na = load(ctrl, C_NA)
    mode = load(ctrl, C_MODE)
    chunk = load(ctrl, C_CHUNK)
    tag = gen & TAG_MASK
    per = (n + threads - 1) // threads
    ran = 0
    for k in range(threads):
        share = (index + k) % threads
        slot = claim_slot(threads, share)
        start = share * per
        end = min(n, start + per)
        while True:
            lo = claim(ctrl, slot, tag, start, end, chunk)
            if lo == CLAIM_STALE:  # the caller has published another step since this thread read gen
                return ran
            if lo == CLAIM_USED_UP:
                break
            hi = min(lo + chunk, end)
            acts = actions[lo:hi] if na > 0 else actions[:0]
            dry = _advance_games(states, rngs, cfg, spec, dice, offs, rows[lo:hi], acts, learner, opp, mode, masks,
                                 obs, seats, rew, rewards, lrew, carry, fresh, terminated, truncated, final,
                                 final_obs, seed_buf, counters, opp_ids, pool_kind, weights, scratch_obs,
                                 scratch_row, fw, iw, bw)
            fetch_add(ctrl, C_DRY, dry)
            fetch_add(ctrl, C_DONE, hi - lo)
            ran += hi - lo
    return ran


@njit(cache=True, nogil=True)
def publish(ctrl, gen, threads, n, na, mode, chunk, spins):
    """Publish step ``gen`` of ``ctrl``: ``n`` rows and ``na`` actions (already in the team's buffers), ``mode``,
    ``chunk`` games per claim, and how long the helpers spin for the next step once this one is done (``spins``
    reads).  The claim counters are reset first, so that a helper still holding the last step's
    parameters finds the tag changed and claims nothing; ``C_GEN`` is raised last.  A separate call from
    :func:`advance_lead`, so that spinning helpers start while the caller's own call is being dispatched.  Returns
    how many helpers are not in their spin loop (the caller wakes them)."""
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


@njit_refcounted(cache=True, nogil=True)
def advance_lead(ctrl, gen, threads, spins, states, rngs, cfg, spec, dice, offs, rows_buf, actions_buf, learner, opp,
                 masks, obs, seats, rew, rewards, lrew, carry, fresh, terminated, truncated, final, final_obs,
                 seed_buf, counters, opp_ids, pool_kind, weights):
    """The calling thread's part of published step ``gen``: claim chunks with the helpers, then spin up to
    ``spins`` reads for the last chunks to finish.  Returns whether every game is done (if not, a helper still
    holds a chunk and the caller waits)."""
    scratch_obs, scratch_row, fw, iw, bw = step_scratch(states, obs, masks)
    _claim_games(ctrl, gen, 0, threads, states, rngs, cfg, spec, dice, offs, rows_buf, actions_buf, learner, opp,
                 masks, obs, seats, rew, rewards, lrew, carry, fresh, terminated, truncated, final, final_obs,
                 seed_buf, counters, opp_ids, pool_kind, weights, scratch_obs, scratch_row, fw, iw, bw)
    return wait_done(ctrl, load(ctrl, C_N), spins)


@njit_refcounted(cache=True, nogil=True)
def helper_spin(ctrl, index, threads, states, rngs, cfg, spec, dice, offs, rows_buf, actions_buf, learner,
                opp, masks, obs, seats, rew, rewards, lrew, carry, fresh, terminated, truncated, final, final_obs,
                seed_buf, counters, opp_ids, pool_kind, weights):
    """Helper ``index``'s loop: help with every step published on ``ctrl``, and between steps spin (without the
    GIL) for the next one, up to the last step's ``C_SPINS`` reads, then leave.

    Waking a sleeping thread costs 100-300 microseconds on the AMD EPYC development VM, up to half a 1,024-game
    step; a helper that spins through the caller's Python between two steps starts each step as soon as it is
    published.  The spin is bounded (about a millisecond, :func:`uno_env._threads.helper_spins`), so a helper of
    an env that stops stepping (or that the runner keeps to one thread on a busy machine) goes back to sleep, and
    the caller asks for none when its steps come further apart than that (a policy whose forward pass takes
    longer would only lose a CPU to it).
    ``C_ACTIVE + index`` says whether it is in the loop; it is cleared before the last look at ``C_GEN`` and the
    caller reads it after raising ``C_GEN``, so a step is never published to a helper that already left unseen.
    """
    store(ctrl, C_ACTIVE + index, 1)
    scratch_obs, scratch_row, fw, iw, bw = step_scratch(states, obs, masks)
    seen = -1
    left = 0
    while load(ctrl, C_STOP) == 0:
        gen = load(ctrl, C_GEN)
        if gen != seen:
            seen = gen
            _claim_games(ctrl, gen, index, threads, states, rngs, cfg, spec, dice, offs, rows_buf, actions_buf,
                         learner, opp, masks, obs, seats, rew, rewards, lrew, carry, fresh, terminated, truncated,
                         final, final_obs, seed_buf, counters, opp_ids, pool_kind, weights, scratch_obs,
                         scratch_row, fw, iw, bw)
            left = load(ctrl, C_SPINS)
            continue
        left -= 1
        if left <= 0:
            store(ctrl, C_ACTIVE + index, 0)
            if load(ctrl, C_GEN) == seen or load(ctrl, C_STOP) != 0:
                return
            store(ctrl, C_ACTIVE + index, 1)  # a step came in as it was leaving: the caller counts on it
    store(ctrl, C_ACTIVE + index, 0)


@njit(cache=True, nogil=True)
def spin_probe(ctrl, spins):
    """The reads of :func:`helper_spin`'s wait, ``spins`` times (``C_GEN`` unchanged): times its reads per second."""
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
def _advance_games(states, rngs, cfg, spec, dice, offs, rows, actions, learner, opp, mode, masks, obs, seats, rew,
                   rewards, lrew, carry, fresh, terminated, truncated, final, final_obs, seed_buf, counters, opp_ids,
                   pool_kind, weights, scratch_obs, scratch_row, fw, iw, bw):
    """:func:`advance` with its scratch rows given."""
    n = cfg[E.C_NP]
    step = actions.shape[0] > 0
    multi = learner.shape[0] == 0
    play_opp = (mode & 1) != 0 and not multi
    random_seat = (mode & 2) != 0 and not multi
    stop_at_start = (mode & 4) != 0
    prefetch = (mode & MODE_PREFETCH) != 0
    dry = 0
    for i in range(rows.shape[0]):
        # big batches do not fit the caches: ask for game i+HEAD_AHEAD's head and game i+REST_AHEAD's other lines
        # now (prefetch.py)
        if prefetch and i + HEAD_AHEAD < rows.shape[0]:
            prefetch_game_head(states, rows[i + HEAD_AHEAD])
        if prefetch and i + REST_AHEAD < rows.shape[0]:
            prefetch_game_rest(states, obs, masks, cfg, rows[i + REST_AHEAD])
        if prefetch and i + SMALL_AHEAD < rows.shape[0]:
            b_ahead = rows[i + SMALL_AHEAD]
            prefetch_write(rngs, b_ahead, 0)
            prefetch_write(rew, b_ahead, 0)
            prefetch_write(rewards, b_ahead, 0)
        b = rows[i]
        st = states[b]
        rng = rngs[b]
        mask = masks[b]
        r = rew[b]
        me = -1 if multi else learner[b]
        if step:
            actor = st[E.S_CUR]
            E.step_masked(st, rng, cfg, spec, dice, actions[i], mask, r)
            _add_rewards(r, n, rewards, lrew, carry, fresh, b, me)
            if st[E.S_DONE] != 0:
                if not multi and fresh[b]:
                    carry[b] = 0.0  # void: see below
                else:
                    _finish(st, cfg, spec, offs, b, actor if multi else me, terminated, truncated, final, final_obs,
                            counters)
        waiting = False
        while True:
            if st[E.S_DONE] != 0:
                if not _start(st, rng, cfg, spec, dice, mask, opp, learner, random_seat, seed_buf, counters, b):
                    waiting = True
                    break
                if not multi:
                    me = learner[b]
                    fresh[b] = True
                if stop_at_start:
                    break
            if not play_opp or st[E.S_CUR] == me:
                break
            kind = BL.KIND_RANDOM
            if pool_kind.shape[0] > 0:
                kind = pool_kind[opp_ids[b, (st[E.S_CUR] - me + n) % n - 1]]
            if kind == BL.KIND_EXTERNAL:
                break
            if kind == BL.KIND_RANDOM:
                a = random_legal(mask, opp[b])
            else:
                observe_one(st, cfg, spec, offs, st[E.S_CUR], scratch_obs)
                a = BL.baseline_action(kind, scratch_obs, mask, cfg, spec, offs, weights, scratch_row, opp[b], fw, iw,
                                       bw)
            if a < 0:  # no legal action: impossible while the invariants hold; never spin
                break
            E.step_masked(st, rng, cfg, spec, dice, a, mask, r)
            _add_rewards(r, n, rewards, lrew, carry, fresh, b, me)
            if st[E.S_DONE] != 0:
                if not multi and fresh[b]:
                    # void: an episode that ends before its learner acts is replaced by the next deal, unscored, as
                    # in the Gymnasium env, and leaves the results of the episode this step ended as they are
                    carry[b] = 0.0
                else:
                    _finish(st, cfg, spec, offs, b, me, terminated, truncated, final, final_obs, counters)
        if waiting:
            dry += 1
            seats[b] = -1
        else:
            seats[b] = st[E.S_CUR]
            observe_one(st, cfg, spec, offs, st[E.S_CUR], obs[b])
    return dry



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
        E.seed_rng(rngs[i], seed + i)


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
        seats[b] = st[E.S_CUR]
        observe_one(st, cfg, spec, offs, st[E.S_CUR], obs[b])


@njit(cache=True)
def check_states(states, cfg, spec, dice, out):
    """``out[b]`` = the invariant checker's failure code for game ``b`` (0 = every invariant holds)."""
    bad = 0
    for b in range(states.shape[0]):
        out[b] = check_state(states[b], cfg, spec, dice)
        if out[b] != 0:
            bad += 1
    return bad
