"""The batched simulator's step with its opponent seats played inside the kernel: :func:`advance`.

One call does, for every listed game: check nothing (the caller validated the actions with
``core.batch.first_illegal``), step the action, add the rewards, and when the game ends record its final
observation and result and reset it from its next episode seed; optionally play the other seats until the
learner's seat is to act, each as the compiled baseline its pool entry names (uniformly random, ``greedy``,
``heuristic``: :mod:`uno_env.players.baselines`) from what that seat observes; then write the observation of the
seat to act.  :func:`advance_lead` and :func:`helper_spin` run the same step on one env's threads, which claim
chunks of its games through the control array of ``core.batch``.
"""
from __future__ import annotations

import numpy as np

from ..core import engine as E
from ..core._cache import track_dependencies
from ..core._jit import njit, njit_refcounted
from ..core.atomic import fetch_add, load, store
from ..core.batch import (
    C_ACTIVE,
    C_CHUNK,
    C_DONE,
    C_DRY,
    C_GEN,
    C_MODE,
    C_N,
    C_NA,
    C_SPINS,
    C_STOP,
    CLAIM_STALE,
    CLAIM_USED_UP,
    TAG_MASK,
    add_rewards,
    claim,
    claim_slot,
    finish_episode,
    random_legal,
    start_episode,
    wait_done,
)
from ..core.layout import C_NP, S_CUR, S_DONE
from ..core.observe import observe_one
from ..core.prefetch import prefetch_game_head, prefetch_game_rest, prefetch_write
from ._cache import player_sources
from .baselines import KIND_EXTERNAL, KIND_RANDOM, baseline_action
from .workspace import baseline_scratch

track_dependencies(__file__, player_sources())

#: bits of :func:`advance`'s ``mode``
MODE_OPPONENTS = 1  # the opponents play here until the learner is to act
MODE_RANDOM_SEAT = 2  # draw the learner's seat at random when an episode starts
MODE_STOP_AT_START = 4  # stop when an episode starts (the caller draws its opponents first)
MODE_PREFETCH = 8  # prefetch the next games' memory while stepping one

#: how many games ahead the kernel asks for a game's first lines, and (once those are in) for the rest
HEAD_AHEAD = 8
REST_AHEAD = 4
#: ... and for its PRNG word and reward rows: small rows that the processor's own prefetchers, busy with the state
#: rows' jumps, leave to miss at B=8192 (UNO Dice 2p +6%, pocket +4-5%, classic level;
#: ``benchmarks/results/bench_ab_small_rows_prefetch_1321c3e.txt``)
SMALL_AHEAD = 16


@njit_refcounted(cache=True, nogil=True)
def step_scratch(states, obs, masks):
    """One thread's work rows for stepping games, allocated once per call of an entry point (allocating needs
    reference counting, which the loop over the games is compiled without: ``core/_jit.py``): what a compiled
    opponent sees, the heuristic's rule questions, and the compiled opponents' work arrays."""
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
    mode     int          ``MODE_OPPONENTS``: the opponents play here until the learner is to act, each seat as
                          its kind in ``pool_kind`` says (random, greedy, heuristic: ``baselines.KIND_*``),
                          stopping at a seat played from Python (KIND_EXTERNAL); else return as soon as any seat is
                          to act; ``MODE_RANDOM_SEAT``: draw the learner's seat at random (from the opponent
                          stream) when an episode starts; ``MODE_STOP_AT_START``: stop when an episode starts (the
                          caller draws its opponents first); ``MODE_PREFETCH``: prefetch the next games' memory
                          (``core/prefetch.py``), which pays only once the batch's arrays outgrow the caches
    masks    int8 (B,A)   the current legal masks, kept up to date
    obs      f32 (B,D)    observation of the seat to act
    seats    int64 (B,)   seat to act (-1: waiting for a seed-list refill)
    rew      f32 (B,10)   scratch for one step's rewards
    rewards  f32 (B,n)    += every seat's rewards of the steps taken here
    lrew     f32 (B,)     += the learner's rewards (single-agent)
    carry    f32 (B,)     += the learner's rewards in an episode it has not acted in yet (``fresh``), which the
                          caller pays with its first action; an episode that ends before then is void (its carry
                          dropped, no ``finish_episode``, the next deal started).  Length 0: multi-agent
    fresh    bool (B,)    set when a game starts an episode (single-agent); the caller clears it when the learner
                          acts
    terminated, truncated  bool (B,)  set for the games that finished an episode here
    final    int64 (B,F)  the finished episode's result (columns F_*), written when it ends
    final_obs f32 (B,D)   the finished episode's last observation (learner's view / the last actor's view)
    seed_buf int64 (B,K)  each game's next episode seeds; counters int64 (B,3) (columns K_*)
    opp_ids  int64 (B,n-1) pool index of each opponent seat (next seat after the learner's first)
    pool_kind int64 (P,)  what plays each pool index (``baselines.KIND_*``); length 0: every opponent is random
    weights  f64 (W,)     the compiled baselines' parameters (``parameters.baseline_weight_array``)
    """
    scratch_obs, scratch_row, fw, iw, bw = step_scratch(states, obs, masks)
    return _advance_games(states, rngs, cfg, spec, dice, offs, rows, actions, learner, opp, mode, masks, obs, seats,
                          rew, rewards, lrew, carry, fresh, terminated, truncated, final, final_obs, seed_buf,
                          counters, opp_ids, pool_kind, weights, scratch_obs, scratch_row, fw, iw, bw)


@njit(cache=True, nogil=True)
def _advance_games(states, rngs, cfg, spec, dice, offs, rows, actions, learner, opp, mode, masks, obs, seats, rew,
                   rewards, lrew, carry, fresh, terminated, truncated, final, final_obs, seed_buf, counters, opp_ids,
                   pool_kind, weights, scratch_obs, scratch_row, fw, iw, bw):
    """:func:`advance` with its scratch rows given."""
    n = cfg[C_NP]
    step = actions.shape[0] > 0
    multi = learner.shape[0] == 0
    prefetch = (mode & MODE_PREFETCH) != 0
    dry = 0
    for i in range(rows.shape[0]):
        if prefetch:
            _prefetch_ahead(states, rngs, obs, masks, rew, rewards, cfg, rows, i)
        b = rows[i]
        st = states[b]
        rng = rngs[b]
        mask = masks[b]
        r = rew[b]
        if step:
            actor = st[S_CUR]
            me = -1 if multi else learner[b]
            _step_game(st, rng, cfg, spec, dice, offs, actions[i], mask, r, n, b, me, actor if multi else me,
                       rewards, lrew, carry, fresh, terminated, truncated, final, final_obs, counters)
        if _play_to_learner(st, rng, cfg, spec, dice, offs, b, learner, opp, mode, mask, r, rewards, lrew, carry,
                            fresh, terminated, truncated, final, final_obs, seed_buf, counters, opp_ids, pool_kind,
                            weights, scratch_obs, scratch_row, fw, iw, bw):
            dry += 1
            seats[b] = -1
        else:
            seats[b] = st[S_CUR]
            observe_one(st, cfg, spec, offs, st[S_CUR], obs[b])
    return dry


@njit(cache=True, inline="always")
def _prefetch_ahead(states, rngs, obs, masks, rew, rewards, cfg, rows, i):
    """Big batches do not fit the caches: ask for game i+HEAD_AHEAD's head and game i+REST_AHEAD's other lines
    now (``core/prefetch.py``)."""
    if i + HEAD_AHEAD < rows.shape[0]:
        prefetch_game_head(states, rows[i + HEAD_AHEAD])
    if i + REST_AHEAD < rows.shape[0]:
        prefetch_game_rest(states, obs, masks, cfg, rows[i + REST_AHEAD])
    if i + SMALL_AHEAD < rows.shape[0]:
        b_ahead = rows[i + SMALL_AHEAD]
        prefetch_write(rngs, b_ahead, 0)
        prefetch_write(rew, b_ahead, 0)
        prefetch_write(rewards, b_ahead, 0)


@njit(cache=True, inline="always")
def _step_game(st, rng, cfg, spec, dice, offs, a, mask, r, n, b, me, view, rewards, lrew, carry, fresh, terminated,
               truncated, final, final_obs, counters):
    """Play legal action ``a`` in game ``b``, add its rewards, and record an episode it ends (from seat ``view``).
    An episode that ends before its learner acts (single-agent, ``fresh``) is void: it is replaced by the next
    deal, unscored, as in the Gymnasium env, and leaves the results of the last scored episode as they are."""
    E.step_masked(st, rng, cfg, spec, dice, a, mask, r)
    add_rewards(r, n, rewards, lrew, carry, fresh, b, me)
    if st[S_DONE] != 0:
        if me >= 0 and fresh[b]:
            carry[b] = 0.0
        else:
            finish_episode(st, cfg, spec, offs, b, view, terminated, truncated, final, final_obs, counters)


@njit(cache=True, inline="always")
def _play_to_learner(st, rng, cfg, spec, dice, offs, b, learner, opp, mode, mask, r, rewards, lrew, carry, fresh,
                     terminated, truncated, final, final_obs, seed_buf, counters, opp_ids, pool_kind, weights,
                     scratch_obs, scratch_row, fw, iw, bw):
    """Start game ``b``'s next episode if it has ended, then (``MODE_OPPONENTS``) play its opponent seats until the
    learner's seat is to act or a seat played from Python is; returns whether the game waits for a seed-list
    refill."""
    n = cfg[C_NP]
    multi = learner.shape[0] == 0
    play_opp = (mode & MODE_OPPONENTS) != 0 and not multi
    random_seat = (mode & MODE_RANDOM_SEAT) != 0 and not multi
    me = -1 if multi else learner[b]
    while True:
        if st[S_DONE] != 0:
            if not start_episode(st, rng, cfg, spec, dice, mask, opp, learner, random_seat, seed_buf, counters, b):
                return True
            if not multi:
                me = learner[b]
                fresh[b] = True
            if (mode & MODE_STOP_AT_START) != 0:
                return False
        if not play_opp or st[S_CUR] == me:
            return False
        kind = KIND_RANDOM
        if pool_kind.shape[0] > 0:
            kind = pool_kind[opp_ids[b, (st[S_CUR] - me + n) % n - 1]]
        if kind == KIND_EXTERNAL:
            return False
        if kind == KIND_RANDOM:
            a = random_legal(mask, opp[b])
        else:
            observe_one(st, cfg, spec, offs, st[S_CUR], scratch_obs)
            a = baseline_action(kind, scratch_obs, mask, cfg, spec, offs, weights, scratch_row, opp[b], fw, iw, bw)
        if a < 0:  # no legal action: impossible while the invariants hold; never spin
            return False
        _step_game(st, rng, cfg, spec, dice, offs, a, mask, r, n, b, me, me, rewards, lrew, carry, fresh, terminated,
                   truncated, final, final_obs, counters)


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
