"""The batched simulator: B games of one configured UNO game stepped together in one call of the compiled core.

Four faces over the same kernels (``uno_env.players.batch_play``, ``uno_env.core.batch``):

* :class:`UnoVectorEnv` -- multi-agent (self-play, search).  Every game reports the seat to act, that seat's
  observation and legal mask; ``step(actions)`` applies one action per game (the acting seat's), and returns
  every seat's reward.  ``reset(seeds)`` -> ``(obs (B, D) float32, masks (B, A) int8, seats (B,) int64)``;
  ``step(actions)`` -> ``(obs, masks, seats, rewards (B, n) float32, terminated (B,), truncated (B,), infos)``.
* :class:`UnoSingleAgentVectorEnv` -- one learner seat per game; the other seats are played in-batch, either by
  uniformly random legal play inside the compiled kernel (``opponents="random"``, the default), or by batched
  policies (any object with ``act_batch(observations (B, D) float32, masks (B, A) int8) -> (B,) int64``), called
  once per opponent seat and round of moves over the games that still wait for an opponent: no per-game Python.
* :func:`make_gym_vector_env` -> :class:`UnoGymVectorEnv`, a ``gymnasium.vector.VectorEnv`` (what
  ``gymnasium.make_vec("uno_env/Classic-v0", num_envs=N, vectorization_mode="vector_entry_point")`` returns).
* :func:`make_sb3_vec_env` -> ``UnoSB3VecEnv``, a stable-baselines3 ``VecEnv`` with ``action_masks()`` for
  sb3-contrib's MaskablePPO (no subprocesses).  stable-baselines3 is imported only when this is called.

Seeds.  Game ``b`` reset with seed ``s`` plays the same episodes as ``uno_env.env(...)`` reset with
``reset(seed=s)``, then ``reset()``, ``reset()``, ...: episode ``e`` of the game is dealt from the core seed
``uno_env.seeding.episode_seed(s, e)`` (a splitmix64 mix of ``s`` and ``e``; :func:`episode_seeds`).  Finished games
reset automatically in the same call, from their next episode seed, so a game's trajectory (given its actions)
is the same in a batch of any size as alone.  ``reset(seeds=int)`` gives game ``b`` the seed ``seed + b`` (as
Gymnasium's vector envs do); ``reset()`` without seeds, after a first reset, starts every game's next episode.
The random opponents of :class:`UnoSingleAgentVectorEnv` draw from a per-game stream seeded by the episode's core
seed, so their play is reproducible per game too.

Threads.  ``num_threads=`` (every face; default: the environment variable ``UNO_ENV_NUM_THREADS``, else the
number of CPUs the process may use) splits a call's games into chunks run by that many threads, the caller's
included; ``num_threads=1`` runs everything in the calling thread.  The threads are plain Python threads running
GIL-free compiled code: no OpenMP, no numba threading layer, and no other library's thread count is touched.  A
thread the OS does not schedule (a busy machine) takes fewer chunks and the caller takes the rest, so a call is not
much slower than on one thread.  Results never depend on the thread count.

Memory.  Once a batch's state, observation and mask rows outgrow the caches, the kernel asks for the next games'
memory while it steps one (software prefetch); below that size the processor's own prefetchers do as well and the
extra instructions only cost time, so the attribute ``prefetch`` is set from the batch's size (over
``PREFETCH_MIN_BYTES``).  Set it to measure either way: results never depend on it.

Buffers.  Observations, masks, seats, rewards and flags are preallocated and rewritten in place by every call:
copy what you keep (the Gymnasium and SB3 faces return copies).  ``infos`` describes the episodes that ended in
this call (columns valid where ``terminated | truncated``): ``winner`` (-1 when truncated), ``episode_turns``,
``episode_rounds``, ``episode`` (its index for that game), ``seed`` (its core seed), ``final_observation``
and ``final_seat`` (whose view it is: the last actor's in the multi-agent face, the learner's in the
single-agent face).
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np

from . import _threads, seeding
from ._exact_copy import ExactCopy
from .aec import ActionOutOfRangeError, IllegalActionError
from .config import make_rules
from .core import batch as K
from .core.cards import COL_COUNT, COL_POINTS
from .core.game import Game, GameMetadata, check_shell_part
from .core.layout import MAX_ITEMS, MAX_PLAYERS, PHASE_NAMES, BatchView, StateView
from .core.validate import range_faults, row_problem
from .opponents import load_opponent
from .players import baselines as BL
from .players import batch_play as P
from .players.parameters import baseline_weight_array
from .yaml_io import FLOAT32_MAX, is_finite_number, short_repr

__all__ = [
    # UnoGymVectorEnv is built on first use (module __getattr__), so gymnasium.vector is imported only then
    "UnoVectorEnv", "UnoSingleAgentVectorEnv", "UnoGymVectorEnv",  # noqa: F822
    "RandomLegalPolicy", "make_gym_vector_env", "PREFETCH_MIN_BYTES",
    "make_sb3_vec_env", "game_seed", "episode_seeds",
]

SEEDS_PER_REFILL = 32  # episode seeds computed at once per game (the kernel reads them from a (B, 32) table)
_NO_INT = np.empty(0, dtype=np.int64)
_NO_F32 = np.empty(0, dtype=np.float32)


def game_seed(seed: int) -> int:
    """The core seed of the first episode of a game reset with ``seed`` (what ``env.reset(seed=seed)`` uses)."""
    return seeding.episode_seed(seeding.check_seed(seed), 0)


def episode_seeds(seed: int, count: int) -> np.ndarray:
    """The core seeds of a game's first ``count`` episodes (AEC: ``reset(seed=seed)`` then ``reset()``...)."""
    return seeding.episode_seeds(np.array([seeding.check_seed(seed)], dtype=np.uint64), 0, count)[0]


def _observation_high(game: Game, target: int) -> float:
    # the same bound as the AEC env's observation space
    spec = game.spec
    return max(float(MAX_ITEMS), 1.0 + float((spec[:, COL_POINTS] * np.maximum(spec[:, COL_COUNT], 6)).sum()) / target)


class RandomLegalPolicy:
    """Uniformly random legal actions for a batch, drawn in the compiled core (no per-game Python).

    Row ``i`` of a call uses its own splitmix64 stream seeded with ``seed + i``, so a call's result depends only
    on the seed, the row and how many calls came before.  Implements the batched policy protocol
    ``act_batch(observations, masks) -> actions`` and the single-game ``act(observation, action_mask)``.
    """

    def __init__(self, seed: int | None = None):
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(2))
        # row i's stream is seeded with seed + i in compiled int64 arithmetic
        if seeding.check_seed(seed, "RandomLegalPolicy seed") >= 2**62:
            raise ValueError(f"RandomLegalPolicy seed must be in [0, 2**62), got {int(seed)}")
        self.seed = int(seed)
        self._rngs = np.zeros((0, 1), dtype=np.uint64)

    def _words(self, n: int) -> np.ndarray:
        if self._rngs.shape[0] < n:
            old = self._rngs
            new = np.zeros((max(n, 2 * old.shape[0]), 1), dtype=np.uint64)
            new[: old.shape[0]] = old
            fresh = new[old.shape[0]:]
            K.seed_words(fresh, self.seed + old.shape[0])
            self._rngs = new
        return self._rngs[:n]

    def act_batch(self, observations: np.ndarray | None, masks: np.ndarray) -> np.ndarray:
        """One uniformly random legal action per row of ``masks`` (B, A); ``observations`` is ignored."""
        masks = np.ascontiguousarray(masks)
        if masks.dtype == np.bool_:
            masks = masks.view(np.int8)
        elif masks.dtype != np.int8:
            if masks.dtype.kind not in "iuf" or ((masks != 0) & (masks != 1)).any():
                raise ValueError(f"masks must hold 0 and 1 (legal) only, got a {masks.dtype} array with other values")
            masks = masks.astype(np.int8)
        if masks.ndim != 2:
            raise ValueError(f"masks must be 2-D (batch, num_actions), got shape {masks.shape}")
        out = np.empty(masks.shape[0], dtype=np.int64)
        bad = K.random_actions(masks, self._words(masks.shape[0]), out)
        if bad >= 0:  # found in the kernel: a numpy reduction here cost 10% of a one-game step
            raise ValueError(f"row {bad} of the masks has no legal action")
        return out

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray) -> int:
        """One uniformly random legal action of ``action_mask``."""
        return int(self.act_batch(None, np.asarray(action_mask)[None, :])[0])


def _as_rows(rows: Any, num_envs: int, what: str = "rows") -> np.ndarray:
    arr = np.asarray(rows)
    if arr.ndim != 1 or not (arr.dtype.kind in "iu" or arr.size == 0):
        raise ValueError(f"{what} must be a 1-D sequence of integer game indices in [0, {num_envs}), got "
                         f"{arr.dtype} array of shape {arr.shape}")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= num_envs):
        bad = arr[(arr < 0) | (arr >= num_envs)][0]
        raise ValueError(f"{what}: game index {int(bad)} is out of range [0, {num_envs})")
    return arr


#: The batch size, in bytes of state, observation and mask rows, above which the kernel prefetches.  Measured on a
#: 2-core AMD EPYC VM, one thread, alternating bursts without and with (``benchmarks/bench_batch_size.py
#: --prefetch-ab``, ``benchmarks/results/bench_prefetch_ab.txt``): up to 2.7 MiB (B=512) without ran 1.03-1.12x as
#: fast, from 5.4 MiB on 0.75-0.86x; between, at B=1024 (3.7-4.5 MiB), 0.90-1.04x, a toss-up.  Prefetching where it
#: was not needed cost at most 12%, not prefetching where it was up to 25%: the threshold sits below the toss-ups.
#: With int16 state rows B=1024 holds 2.4-3.9 MiB; without prefetching it ran 0.95-1.00x (median of 11 pairs, six
#: game and player rows) and B=2048 0.73-0.90x, B=512 (1.2-2.0 MiB) 0.94-1.05x: B=1024 stays on the prefetching side.
PREFETCH_MIN_BYTES = 2 << 20


# ---------------------------------------------------------------------------------------------- shared machinery
class _StepTeam:
    """One env's threaded steps: the control array its threads share (``core.batch.C_*``), the buffers the step's
    rows and actions are copied into for the helpers, and the arrays every compiled call of the team takes (a
    new team is made when one of them is replaced, e.g. a new opponent pool).

    The caller publishes a step (``batch.publish``), then runs its part (``batch_play.advance_lead``); helpers
    that are not spinning for steps (the first step, or after an idle millisecond) are woken through
    ``_threads.helpers``.  No result depends on which thread ran which games."""

    def __init__(self, threads: int, head: tuple, arrays: tuple, capacity: int):
        self.threads = threads
        self.head, self.arrays = head, arrays
        self.ctrl = np.zeros(K.control_len(threads), dtype=np.int64)
        self.rows_buf = np.zeros(capacity, dtype=np.int64)
        self.actions_buf = np.zeros(capacity, dtype=np.int64)
        self.gen = 0
        self.error: BaseException | None = None
        self.pid = os.getpid()
        # the caller's time between two steps (a moving average): the helpers spin through it when it is short
        self.gap = 0.0
        self.last_end: float | None = None
        # compile (or load from the cache) the helpers' loop here: a helper thread compiling it would help with
        # nothing for seconds, and a daemon thread inside LLVM when the interpreter exits aborts the process
        self.ctrl[K.C_STOP] = 1
        self.spin(1)
        self.ctrl[K.C_STOP] = 0

    def serves(self, head: tuple, arrays: tuple) -> bool:
        """Whether this team's calls take exactly these arrays (and its helpers live in this process)."""
        return (self.pid == os.getpid() and all(a is b for a, b in zip(head, self.head))
                and all(a is b for a, b in zip(arrays, self.arrays)))

    # -- the helpers' side (``_threads.HelperPool``)
    def spin(self, index: int) -> None:
        P.helper_spin(self.ctrl, index, self.threads, *self.head, self.rows_buf, self.actions_buf, *self.arrays)

    def fail(self, exc: BaseException) -> None:
        self.error = exc
        self.ctrl[K.C_ERROR] = 1

    def stop(self) -> None:
        self.ctrl[K.C_STOP] = 1

    # -- the caller's side
    def run(self, rows: np.ndarray, actions: np.ndarray, mode: int) -> int:
        """Step ``rows`` on every thread; returns the games left waiting for a seed-list refill."""
        if self.error is not None:
            raise RuntimeError("a helper thread of this env failed earlier (its games may be part-stepped): make a "
                               "new env, or use num_threads=1") from self.error
        now = time.perf_counter()
        if self.last_end is not None:  # clipped: one long pause (the env left idle for a while) counts as two spins
            self.gap += 0.3 * (min(now - self.last_end, 2 * _threads.HELPER_SPIN_SECONDS) - self.gap)
        spins = _threads.helper_spins() if self.gap < _threads.HELPER_SPIN_SECONDS else 0
        self.gen += 1
        n, na = rows.shape[0], actions.shape[0]
        # no step of this team is running (the last one ended with every game done), so no thread reads these
        self.rows_buf[:n] = rows
        self.actions_buf[:na] = actions
        if K.publish(self.ctrl, self.gen, self.threads, n, na, mode, _threads.claim_size(n, self.threads), spins):
            self.ctrl[K.C_STOP] = 0  # a helper is asleep: wake it (the step is published: it starts on it)
            _threads.helpers.wake(self, range(1, self.threads))
        if not P.advance_lead(self.ctrl, self.gen, self.threads, _threads.SETTLE_SPINS, *self.head, self.rows_buf,
                              self.actions_buf, *self.arrays):
            _await_step(self.ctrl, n, lambda: self.error)
        self.last_end = time.perf_counter()
        return int(self.ctrl[K.C_DRY])


def _await_step(ctrl: np.ndarray, n: int, error: Callable[[], BaseException | None]) -> None:
    """Until every game of the step ``ctrl`` published is done: a helper holds a chunk (it is running it, or the OS
    has descheduled it); short sleeps, so a busy machine's scheduler can run it.  A failed helper (``C_ERROR``) is
    raised, not waited for.  An interrupt (Ctrl-C) is raised only once the helpers are out of the step's games, so
    that the next step never overlaps them."""
    interrupted: BaseException | None = None
    while not K.wait_done(ctrl, n, _threads.SETTLE_SPINS):
        if ctrl[K.C_ERROR]:
            raise RuntimeError("a helper thread failed while stepping; its games were left part-stepped") \
                from error()
        try:
            time.sleep(0)
        except BaseException as exc:  # noqa: BLE001 - re-raised below, once the step is whole
            interrupted = exc
    if interrupted is not None:
        raise interrupted


class _VectorBase(ExactCopy, GameMetadata):
    """Buffers, seeding, auto-reset and the kernel call shared by the multi- and single-agent faces."""

    # set by the single-agent face only; the shared state_dict code reads them when a learner seat exists
    _opponent_ids: np.ndarray
    _pool: list[Any]

    def __init__(self, game: str, num_envs: int, num_players: int | None, rules: Any, seed: int | None,
                 num_threads: int | None):
        if game not in ("classic", "pocket", "dice"):
            raise ValueError(f"unknown game {game!r}; choose one of 'classic', 'pocket', 'dice'")
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.rules = make_rules(game, num_players, rules)
        self.game = Game(self.rules)
        self.num_envs = B = int(num_envs)
        self.num_players = n = self.game.num_players
        self.num_actions = A = self.game.num_actions
        self.obs_dim = D = self.game.obs_dim
        if seed is not None:  # checked now: a bad seed found at the first reset would lose the run's seeding
            seeding.check_seed(seed, "seed")
            if int(seed) > seeding.SEED_LIMIT - B:
                raise ValueError(f"seed: game b gets the seed seed + b, which must be in [0, 2**64); got seed = "
                                 f"{int(seed)} for {B} games")
        self._seed = None if seed is None else int(seed)
        self.num_threads = _threads.resolve_num_threads(num_threads)
        self._runner = _threads.Runner(self.num_threads)
        self._team: _StepTeam | None = None  # the threaded steps' helpers, made on the first one
        self._cfg, self._spec, self._dice, self._offs = self.game.cfg, self.game.spec, self.game.dice, \
            self.game.obs_offsets
        self._states, self._rngs = self.game.new_states(B)
        self._opp = np.zeros((B, 1), dtype=np.uint64)
        self._masks = np.zeros((B, A), dtype=np.int8)
        self._obs = np.zeros((B, D), dtype=np.float32)
        self._seats = np.zeros(B, dtype=np.int64)
        self._rew = np.zeros((B, MAX_PLAYERS), dtype=np.float32)
        self._rewards = np.zeros((B, n), dtype=np.float32)
        self._lrew = np.zeros(B, dtype=np.float32)
        # the single-agent face's rewards carried to the learner's first action, and which games' learners have not
        # acted in their episode yet (``batch_play.advance``); empty here: the multi-agent face has no learner
        self._carry = _NO_F32
        self._fresh = np.zeros(0, dtype=bool)
        self._terminated = np.zeros(B, dtype=bool)
        self._truncated = np.zeros(B, dtype=bool)
        self._final = np.zeros((B, K.FINAL_LEN), dtype=np.int64)
        self._final[:, K.F_WINNER] = -1
        self._final_obs = np.zeros((B, D), dtype=np.float32)
        self._seed_buf = np.zeros((B, SEEDS_PER_REFILL), dtype=np.int64)
        self._counters = np.zeros((B, K.COUNTERS_LEN), dtype=np.int64)
        self._seed0 = np.zeros(B, dtype=np.uint64)  # each game's seed at its last seeded reset
        self._blocks = np.zeros(B, dtype=np.int64)  # seed lists of SEEDS_PER_REFILL episodes used since then
        self._all = np.arange(B, dtype=np.int64)
        # the multi-agent face has no opponents; the single-agent face replaces these three
        self._opponent_ids = np.zeros((B, max(n - 1, 1)), dtype=np.int64)
        self._pool_kind = np.zeros(0, dtype=np.int64)
        self._weights = baseline_weight_array(self.game)
        self._has_reset = False
        # set when the raw rows were handed out (``states``, ``state_view``): they may have been edited, so the next
        # call that runs a kernel on them checks every row first (see ``_check_edits``)
        self._rows_unchecked = False
        # why this env refuses to step until reset (an opponent policy failed after the learners had moved)
        self._broken = ""
        bytes_per_game = self._states[0].nbytes + self._obs[0].nbytes + self._masks[0].nbytes
        #: software prefetch in the kernel (see "Memory" above); changes speed only, never a result
        self.prefetch = B * bytes_per_game > PREFETCH_MIN_BYTES
        self._link_infos()

    def _after_copy(self) -> None:
        super()._after_copy()
        self._link_infos()  # views of the copied result columns, not of the original's

    def _link_infos(self) -> None:
        self.infos = {
            "winner": self._final[:, K.F_WINNER],
            "episode_turns": self._final[:, K.F_TURNS],
            "episode_rounds": self._final[:, K.F_ROUNDS],
            "episode": self._final[:, K.F_EPISODE],
            "seed": self._final[:, K.F_SEED],
            "final_seat": self._final[:, K.F_LEARNER],
            "final_observation": self._final_obs,
        }

    @property
    def states(self) -> np.ndarray:
        """The live (B, STATE_LEN) int16 state rows (hidden information included; read the wide fields, ``turns``,
        ``scores``..., through ``state_view``; call ``refresh()`` after edits).

        Handing them out marks them as possibly edited: the next ``step``/``observe`` checks every row first (and
        recomputes masks and observations), as ``refresh()`` does.  Edit through an array taken since the last
        step, not one kept from long before."""
        self._rows_unchecked = True
        return self._states

    @property
    def state_view(self) -> BatchView:
        """:attr:`states` as a named view: ``.cur``, ``.done``, ``.hand[b, seat, kind]`` ... (the fields of
        ``uno_env.core.layout.FIELDS``); writes go to the games (call ``refresh()`` after edits; as with
        :attr:`states`, the next ``step``/``observe`` checks the rows)."""
        self._rows_unchecked = True
        return BatchView(self._states)

    @property
    def prng_states(self) -> np.ndarray:
        """The games' PRNG words (uint64, (B, 1)); writable: the future draws and rolls of every game."""
        return self._rngs

    @property
    def episode_index(self) -> np.ndarray:
        """Index of the episode each game is playing (0 = the first after ``reset``)."""
        return self._counters[:, K.K_EPISODE]

    @property
    def episode_seed(self) -> np.ndarray:
        """Core seed of the episode each game is playing."""
        return self._counters[:, K.K_SEED]

    @property
    def masks(self) -> np.ndarray:
        return self._masks

    @property
    def observations(self) -> np.ndarray:
        return self._obs

    @property
    def seats(self) -> np.ndarray:
        return self._seats

    def _game_index(self, b: Any, what: str) -> int:
        if isinstance(b, (bool, np.bool_)) or not isinstance(b, (int, np.integer)) or not 0 <= b < self.num_envs:
            raise ValueError(f"{what}: game index must be an int in [0, {self.num_envs}), got {short_repr(b)}")
        return int(b)

    def state_dict(self, b: int) -> dict[str, Any]:
        """Game ``b``'s whole state as plain, versioned, JSON-ready data (hidden information included).

        The game's state (``Game.state_dict``: every field of the state layout, the PRNG word, the rules) plus
        ``"env"``: this game's episode counters and seed (from which its later episodes are dealt), the PRNG word
        of the in-kernel random opponents and, in the single-agent face, the learner's seat, opponent ids and the
        reward its episode earned before the learner's first action (``carried_reward``).
        :meth:`load_state_dict` of it continues game ``b`` exactly (batched policy objects keep their own state).
        """
        self._require_reset("state_dict")
        b = self._game_index(b, "state_dict")
        self._check_edits("state_dict")
        d = self.game.state_dict(self._states[b], self._rngs[b])
        env: dict[str, Any] = {
            "kind": "vector",
            "seed": int(self._seed0[b]),
            "seed_blocks": int(self._blocks[b]),
            "seed_pos": int(self._counters[b, K.K_SEED_POS]),
            "episode": int(self._counters[b, K.K_EPISODE]),
            "episode_seed": int(self._counters[b, K.K_SEED]),
            "opponent_rng": [int(self._opp[b, 0])],
        }
        learner = getattr(self, "_learner", None)
        if learner is not None:
            env["learner_seat"] = int(learner[b])
            env["opponent_ids"] = [int(x) for x in self._opponent_ids[b]]
            env["carried_reward"] = float(cast(Any, self)._carry[b])
        d["env"] = env
        return d

    def load_state_dict(self, b: int, d: Any) -> None:
        """Set game ``b`` from a :meth:`state_dict` (exact, its ``"env"`` part included), from an AEC or
        Gymnasium env's state dict without its ``"env"`` part (the game only; this game's counters stay), or edit
        it with a partial dict without ``"format"`` (as ``Game.load_state_dict``).  Anything the rules cannot
        reach raises ``ValueError``/``TypeError`` naming the field, and nothing is changed."""
        self._require_reset("load_state_dict")
        b = self._game_index(b, "load_state_dict")
        if not isinstance(d, Mapping):
            raise TypeError(f"load_state_dict takes a mapping (from state_dict()); got {type(d).__name__}")
        if "format" not in d:
            if "env" in d:
                raise ValueError("env: the shell's state is restored only with a versioned state dict")
            row = self._states[b].copy()
            self.game.load_state_dict(row, d)
            words = self._rngs[b].copy()
        else:
            row, words = self.game.check_exact(d)
        env = self._check_env(d.get("env"), row) if "format" in d else None
        learner = getattr(self, "_learner", None)
        cur_seat = StateView(row).cur
        if learner is not None and StateView(row).done == 0:
            seat = env["learner_seat"] if env is not None else int(learner[b])
            if cur_seat != seat:
                raise ValueError(f"current_seat: in the single-agent face a running game waits for its learner "
                                 f"(seat {seat}); the state has seat {cur_seat} to act")
        if env is not None:  # computed before anything is written: nothing changes unless everything is valid
            seed_row = seeding.episode_seeds(np.array([env["seed"]], dtype=np.uint64),
                                             (env["seed_blocks"] - 1) * SEEDS_PER_REFILL, SEEDS_PER_REFILL)[0]
        self._states[b] = row
        self._rngs[b] = words
        if env is not None:
            self._seed0[b], self._blocks[b] = np.uint64(env["seed"]), env["seed_blocks"]
            self._seed_buf[b] = seed_row
            self._counters[b] = (env["seed_pos"], env["episode"], env["episode_seed"])
            self._opp[b, 0] = np.uint64(env["opponent_rng"][0])
            if learner is not None:
                learner[b] = env["learner_seat"]
                self._opponent_ids[b] = env["opponent_ids"]
                cast(Any, self)._carry[b] = env.get("carried_reward", 0.0)
        self.refresh()

    def _check_env(self, env: Any, row: np.ndarray) -> dict[str, Any] | None:
        if env is None:
            return None
        single = hasattr(self, "_learner")
        keys = {"kind", "seed", "seed_blocks", "seed_pos", "episode", "episode_seed", "opponent_rng"} | (
            {"learner_seat", "opponent_ids"} if single else set())
        if single and "carried_reward" in env:  # state dicts saved before it existed carried nothing
            keys.add("carried_reward")
        check_shell_part(env, "vector", keys, "the game's counters", "a vector env")
        # seed_blocks * SEEDS_PER_REFILL must stay an int64 episode index (``_refill``)
        limits = {"seed": (0, 2**64 - 1), "seed_blocks": (1, (2**63 - 1) // SEEDS_PER_REFILL - 1),
                  "seed_pos": (0, SEEDS_PER_REFILL), "episode": (-1, 2**62), "episode_seed": (0, 2**63 - 1)}
        for key, (lo, hi) in limits.items():
            if type(env[key]) is not int or not lo <= env[key] <= hi:
                raise ValueError(f"env.{key}: expected an int in {lo}..{hi}, got {short_repr(env[key])}")
        r = env["opponent_rng"]
        if not isinstance(r, list) or len(r) != 1 or type(r[0]) is not int or not 0 <= r[0] < 2**64:
            raise ValueError(f"env.opponent_rng: expected a list of one int in [0, 2**64), got {short_repr(r)}")
        if single:
            if type(env["learner_seat"]) is not int or not 0 <= env["learner_seat"] < self.num_players:
                raise ValueError(f"env.learner_seat: expected a seat in 0..{self.num_players - 1}, got "
                                 f"{short_repr(env['learner_seat'])}")
            carried = env.get("carried_reward", 0.0)
            if not is_finite_number(carried, FLOAT32_MAX):  # it is kept as a float32
                raise ValueError(f"env.carried_reward: expected a finite number, got {short_repr(carried)}")
            ids = env["opponent_ids"]
            if not isinstance(ids, list) or len(ids) != self.num_players - 1 or any(
                    type(x) is not int or not 0 <= x < len(self._pool) for x in ids):
                raise ValueError(f"env.opponent_ids: expected {self.num_players - 1} indices into the opponent pool "
                                 f"(0..{len(self._pool) - 1}), got {short_repr(ids)}")
        return dict(env)

    # -- seeding -------------------------------------------------------------------------------------
    def _seed_array(self, seeds: Any) -> np.ndarray:
        B = self.num_envs
        if seeds is None:
            if self._seed is not None:
                seeds = self._seed
                self._seed = None  # the constructor's seed applies to the first reset only
            else:
                return np.frombuffer(os.urandom(8 * B), dtype=np.uint64).copy()
        if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, (bool, np.bool_)):
            if not 0 <= int(seeds) <= seeding.SEED_LIMIT - B:
                raise ValueError(f"seeds: an int seed s gives game b the seed s + b, which must be in [0, 2**64); "
                                 f"got s = {int(seeds)} for {B} games")
            return np.uint64(int(seeds)) + np.arange(B, dtype=np.uint64)
        arr = np.asarray(seeds)
        if arr.shape != (B,) or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"seeds must be None, an int or {B} ints (one per game), got {seeds!r}")
        if arr.dtype.kind == "i" and (arr < 0).any():
            raise ValueError(f"seeds must be in [0, 2**64), got {int(arr.min())} for game {int(np.argmin(arr))}")
        return arr.astype(np.uint64)

    def _refill(self, rows: np.ndarray) -> None:
        self._seed_buf[rows] = seeding.episode_seeds(self._seed0[rows], self._blocks[rows] * SEEDS_PER_REFILL,
                                                     SEEDS_PER_REFILL)
        self._counters[rows, K.K_SEED_POS] = 0
        self._blocks[rows] += 1

    def _start_all(self, seeds: Any) -> None:
        """Reset every game: a fresh seed per game (``seeds`` given, or a first reset) or its next episode."""
        if seeds is not None or not self._has_reset:
            self._seed0[:] = self._seed_array(seeds)
            self._blocks[:] = 0
            self._refill(self._all)
            self._counters[:, K.K_EPISODE] = -1
        BatchView(self._states).done[:] = 1  # marks every game for a reset by the kernel (it reads nothing else)
        self._has_reset = True
        self._rows_unchecked = False
        self._broken = ""

    # -- the kernel call -----------------------------------------------------------------------------
    def _run(self, rows: np.ndarray, actions: np.ndarray, learner: np.ndarray, mode: int) -> None:
        dry = self._advance(rows, actions, learner, mode)
        while dry:  # games whose seed list ran out wait (done, seat -1) until it is refilled
            waiting = np.flatnonzero(self._seats < 0)
            self._refill(waiting)
            dry = self._advance(waiting, _NO_INT, learner, mode)

    def _advance(self, rows: np.ndarray, actions: np.ndarray, learner: np.ndarray, mode: int) -> int:
        """One kernel call over ``rows``, split into chunks over ``num_threads`` threads (games are independent)."""
        if self.prefetch:
            mode |= P.MODE_PREFETCH
        args = (learner, self._opp, mode, self._masks, self._obs, self._seats, self._rew, self._rewards, self._lrew,
                self._carry, self._fresh, self._terminated, self._truncated, self._final, self._final_obs,
                self._seed_buf, self._counters, self._opponent_ids, self._pool_kind, self._weights)
        head = (self._states, self._rngs, self._cfg, self._spec, self._dice, self._offs)
        if self._runner.one_chunk(rows.shape[0]):  # small batches (B=1 runs on Python's overhead): no closure
            return P.advance(*head, rows, actions, *args)
        n = rows.shape[0]

        def alone() -> int:
            return P.advance(*head, rows, actions, *args)

        def threaded() -> int:
            arrays = (args[0], args[1], *args[3:])  # ``mode`` (args[2]) is a step parameter, not an array
            team = self._team
            if team is None or not team.serves(head, arrays):
                if team is not None:
                    team.stop()
                team = self._team = _StepTeam(self.num_threads, head, arrays, self.num_envs)
            return team.run(rows, actions, mode)

        return self._runner.either(alone, threaded, n)

    def _check_actions(self, rows: np.ndarray, actions: Any, who: str = "") -> np.ndarray:
        acts = actions
        # an opponent's bad action is found after the learners moved: that step cannot be taken back
        note = "; the learners had already moved: reset() the env" if who else "; no game was stepped"
        if not (type(acts) is np.ndarray and acts.dtype == np.int64 and acts.shape == rows.shape
                and acts.flags.c_contiguous):
            if isinstance(actions, (list, tuple)) and any(isinstance(x, (bool, np.bool_)) for x in actions):
                raise ActionOutOfRangeError(f"{who}actions must be integers, not True/False{note}")
            acts = np.asarray(actions)
            if acts.shape != rows.shape or acts.dtype.kind not in "iu":
                raise ActionOutOfRangeError(
                    f"{who}actions must be {rows.shape[0]} integers (one per game), got "
                    f"{acts.dtype} array of shape {acts.shape}{note}")
            if acts.dtype.kind == "u" and acts.size and int(acts.max()) >= self.num_actions:
                # before the int64 cast, which would show values >= 2**63 as negative numbers
                i = int(np.argmax(acts >= self.num_actions))
                raise ActionOutOfRangeError(f"{who}action {int(acts[i])} for game {int(rows[i])} is out of range "
                                            f"[0, {self.num_actions}){note}")
            acts = np.ascontiguousarray(acts, dtype=np.int64)
        bad = K.first_illegal(rows, acts, self._masks)
        if bad >= 0:
            b, a = int(rows[bad]), int(acts[bad])
            if not 0 <= a < self.num_actions:
                raise ActionOutOfRangeError(
                    f"{who}action {a} for game {b} is out of range [0, {self.num_actions}){note}")
            legal = [self.game.action_names[i] for i in np.flatnonzero(self._masks[b])]
            shown = ", ".join(legal[:12]) + (" ..." if len(legal) > 12 else "")
            phase = PHASE_NAMES[BatchView(self._states).phase[b]]
            raise IllegalActionError(
                f"{who}illegal action {a} ({self.game.action_names[a]!r}) in game {b} for seat "
                f"{int(self._seats[b])} in phase {phase!r}; legal now: {shown}{note}")
        return acts

    def _require_reset(self, what: str) -> None:
        if not self._has_reset:
            from .aec import OrderError

            raise OrderError(f"reset() needs to be called before {what}()")

    def _check_edits(self, what: str) -> None:
        """Before a kernel reads the rows: refuse a broken env, and check rows that may have been edited by hand
        (handed out by ``states``/``state_view``) as ``refresh()`` does, so no edit reaches compiled code unread."""
        if self._broken:
            from .aec import OrderError

            raise OrderError(f"{what}(): {self._broken}; call reset()")
        if self._rows_unchecked:
            problem = row_problem(self.game, self._states)
            if problem:
                raise ValueError(f"{what}(): the state rows were handed out for editing and {problem}; fix them and "
                                 f"call refresh() (or restore a snapshot, or reset()); nothing was stepped")
            self._refresh_checked()
            self._check_edited_seats(what)

    def _check_edited_seats(self, what: str) -> None:
        """The single-agent face's check that hand-edited running games wait for their learners."""

    def _clear(self, learner: bool = False) -> None:
        self._rewards.fill(0.0)
        self._terminated.fill(False)
        self._truncated.fill(False)
        if learner:
            self._lrew.fill(0.0)

    # -- inspection and search -----------------------------------------------------------------------
    def observe(self, seats: Any, rows: Any = None) -> np.ndarray:
        """Fresh observations of ``seats`` (one per row) in games ``rows`` (default: all): shape (R, D).

        Any seat may be observed, not only the one to act (e.g. for a centralised critic).
        """
        self._require_reset("observe")
        self._check_edits("observe")
        rows = self._all if rows is None else _as_rows(rows, self.num_envs)
        seats = np.asarray(seats)
        if seats.dtype.kind not in "iu":
            raise ValueError(f"seats must be integers in [0, {self.num_players}), got {seats.dtype} values")
        try:
            seats = np.broadcast_to(seats.astype(np.int64), rows.shape).copy()
        except ValueError:
            raise ValueError(f"seats must be one seat or one per row ({rows.shape[0]}), got shape {seats.shape}") \
                from None
        if ((seats < 0) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be in [0, {self.num_players})")
        out = np.empty((rows.shape[0], self.obs_dim), dtype=np.float32)

        def chunk(lo: int, hi: int) -> int:
            K.observe_rows(self._states, self._cfg, self._spec, self._offs, rows[lo:hi], seats[lo:hi], out[lo:hi])
            return 0

        self._runner.run(chunk, rows.shape[0])
        return out

    def check_invariants(self) -> np.ndarray:
        """Indices of the games whose state breaks an invariant (conservation, counts, seat, top card)."""
        unsafe, _ = range_faults(self.game, self._states)  # rows the compiled checker itself cannot read safely
        out = np.zeros(self.num_envs, dtype=np.int64)
        safe = np.flatnonzero(~unsafe)
        codes = np.zeros(safe.size, dtype=np.int64)
        K.check_states(np.ascontiguousarray(self._states[safe]), self._cfg, self._spec, self._dice, codes)
        out[safe] = codes
        out[unsafe] = 1
        return np.flatnonzero(out)

    def snapshot(self) -> tuple[np.ndarray, ...]:
        """Copies of everything that decides the games' futures (states, PRNGs, episode seeds, learner seats)."""
        self._require_reset("snapshot")
        learner = getattr(self, "_learner", _NO_INT)
        carry = getattr(self, "_carry", _NO_F32)
        return (self._states.copy(), self._rngs.copy(), self._opp.copy(), self._seed_buf.copy(),
                self._counters.copy(), self._seed0.copy(), self._blocks.copy(), learner.copy(), carry.copy())

    def restore(self, snap: tuple[np.ndarray, ...]) -> None:
        """Return every game to a :meth:`snapshot` (for search: try actions, then rewind); exact, later episodes
        included."""
        mine = (self._states, self._rngs, self._opp, self._seed_buf, self._counters, self._seed0, self._blocks,
                getattr(self, "_learner", _NO_INT), getattr(self, "_carry", _NO_F32))
        if not isinstance(snap, tuple) or len(snap) != len(mine) or any(
                not isinstance(x, np.ndarray) or x.shape != y.shape or x.dtype != y.dtype for x, y in zip(snap, mine)):
            raise ValueError("restore() takes a snapshot() of this environment (a tuple of arrays of the same "
                             "shapes and dtypes)")
        states, rngs, opp, seed_buf, counters, seed0, blocks, learner, carry = snap
        problem = row_problem(self.game, states)
        if problem:
            raise ValueError(f"restore(): the snapshot's states cannot be played: {problem}; nothing was restored")
        if learner.size and ((learner < 0) | (learner >= self.num_players)).any():
            raise ValueError("restore(): the snapshot's learner seats are out of range; nothing was restored")
        if ((blocks < 0) | (counters[:, K.K_SEED_POS] < 0) | (counters[:, K.K_SEED_POS] > SEEDS_PER_REFILL)).any():
            raise ValueError("restore(): the snapshot's seed counters are out of range; nothing was restored")
        if carry.size and not np.isfinite(carry).all():
            raise ValueError("restore(): the snapshot's carried rewards are not finite; nothing was restored")
        self._states[:], self._rngs[:], self._opp[:], self._seed_buf[:], self._counters[:] = (
            states, rngs, opp, seed_buf, counters)
        if learner.size:
            cast(Any, self)._learner[:] = learner  # only the single-agent face has learner seats and carries
            cast(Any, self)._carry[:] = carry
        self._seed0[:], self._blocks[:] = seed0, blocks  # later seed lists follow from these
        self.refresh()

    def refresh(self) -> None:
        """Recompute masks, seats and observations from the state rows (after editing ``states`` by hand).

        Every row is checked first (seat, phase, kinds, pile sizes, conservation...): a row the kernels cannot read
        safely raises ``ValueError`` naming the game and the field, and nothing is recomputed.
        """
        problem = row_problem(self.game, self._states)
        if problem:
            self._rows_unchecked = True  # every later step refuses these rows too, until they are fixed
            raise ValueError(f"refresh(): {problem}; fix the state row (or restore a snapshot) before stepping")
        self._refresh_checked()

    def _refresh_checked(self) -> None:
        K.refresh(self._states, self._cfg, self._spec, self._dice, self._offs, self._masks, self._obs, self._seats)
        self._rows_unchecked = False

    def close(self) -> None:
        if self._team is not None:  # its helpers stop spinning for this env's steps now, not in a millisecond
            self._team.stop()
            self._team = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game.name!r}, num_envs={self.num_envs}, num_players={self.num_players})"


# ---------------------------------------------------------------------------------------------- multi-agent face
class UnoVectorEnv(_VectorBase):
    """B games, every seat played by the caller: the multi-agent batch (self-play, search).

    ``reset(seeds=None)`` -> ``(obs, masks, seats)``; ``step(actions)`` -> ``(obs, masks, seats, rewards,
    terminated, truncated, infos)`` where ``obs[b]``/``masks[b]`` belong to seat ``seats[b]``, the seat to act in
    game ``b`` (after an automatic reset, in its next episode); ``rewards[b, s]`` is seat ``s``'s reward for the
    step.  An illegal action in any game raises :class:`uno_env.IllegalActionError` naming the game and the action,
    and no game is stepped.  ``step(actions, rows=idx)`` steps only the games ``idx`` (``actions`` aligned with it).
    """

    def __init__(self, game: str = "classic", num_envs: int = 1, num_players: int | None = None, rules: Any = None,
                 seed: int | None = None, num_threads: int | None = None):
        super().__init__(game, num_envs, num_players, rules, seed, num_threads)

    def reset(self, seeds: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Reset every game: ``seeds`` (one int, or B ints) reseeds them, ``None`` starts each game's next episode
        (fresh seeds on the first reset). Returns ``(obs, masks, seats)``, arrays the env reuses on later calls.
        """
        self._start_all(seeds)
        self._run(self._all, _NO_INT, _NO_INT, 0)
        return self._obs, self._masks, self._seats

    def step(self, actions: Any, rows: Any = None):
        """Step every game (or the games ``rows``) with ``actions``, one per game, for the seat to act.

        Returns ``(obs, masks, seats, rewards, terminated, truncated, infos)``; finished games reset themselves.
        """
        self._require_reset("step")
        self._check_edits("step")
        if rows is None:
            rows = self._all
        else:
            rows = _as_rows(rows, self.num_envs)
            if np.unique(rows).size != rows.size:
                raise ValueError(f"rows must be distinct game indices in [0, {self.num_envs})")
        acts = self._check_actions(rows, actions)
        self._clear()
        self._run(rows, acts, _NO_INT, 0)
        return self._obs, self._masks, self._seats, self._rewards, self._terminated, self._truncated, self.infos


# ---------------------------------------------------------------------------------------------- single-agent face
def _is_random(policy: Any) -> bool:
    return policy is None or (isinstance(policy, str) and policy == "random") or isinstance(policy, RandomLegalPolicy)


class UnoSingleAgentVectorEnv(_VectorBase):
    """B games with one learner seat each; the other seats are played in-batch until the learner is to act.

    ``opponents``: ``"random"`` (default; uniformly random legal play inside the compiled kernel, drawn from a
    per-game stream seeded by each episode's seed), one batched policy for every opponent seat, or a sequence of
    ``num_players - 1`` of them for the seats after the learner's (next seat first).  A policy is any object with
    ``act_batch(observations, masks) -> actions``, or a baseline name (``"greedy"``, ``"heuristic"``).  For
    opponents that change per game and episode (self-play
    pools), see :meth:`set_opponent_pool`.
    ``learner_seat``: an int (every game), ``"rotate"`` (game ``b`` plays seat ``b % num_players``), ``"random"``
    (drawn for every episode from the game's episode-seeded stream) or B ints.

    ``reset(seeds=None)`` -> ``(obs, masks)`` of the learners; ``step(actions)`` -> ``(obs, masks, rewards (B,)
    float32, terminated, truncated, infos)``.  The reward is everything the learner received since its last
    action, opponents' moves included; a game that ended is reset and played up to the learner's next turn.  What
    the new episode earns before the learner's first action (a round scored in match mode) is paid with that
    action, not added to the step that ended the previous episode; a deal that ends before the learner acts is
    replaced, unscored, as in the Gymnasium env (``episode_index`` then skips it).
    Opponent moves cost one ``act_batch`` call per policy in use per round of moves, over the games that still
    wait for an opponent: no per-game Python.
    """

    MAX_OPPONENT_ROUNDS = 100_000

    def __init__(self, game: str = "classic", num_envs: int = 1, num_players: int | None = None, rules: Any = None,
                 opponents: Any = "random", learner_seat: Any = 0, seed: int | None = None,
                 num_threads: int | None = None):
        super().__init__(game, num_envs, num_players, rules, seed, num_threads)
        n, B = self.num_players, self.num_envs
        self._random_seat = isinstance(learner_seat, str) and learner_seat == "random"
        if isinstance(learner_seat, str):
            if learner_seat not in ("rotate", "random"):
                raise ValueError(f"learner_seat must be an int, 'rotate', 'random' or {B} ints, got {learner_seat!r}")
            learner = self._all % n if learner_seat == "rotate" else np.zeros(B, dtype=np.int64)
        else:
            try:
                learner = np.broadcast_to(np.asarray(learner_seat), (B,))
            except ValueError:
                raise ValueError(f"learner_seat must be an int, 'rotate', 'random' or {B} ints (one per game), got "
                                 f"{short_repr(learner_seat)}") from None
            if isinstance(learner_seat, (bool, np.bool_)) or not np.issubdtype(learner.dtype, np.integer) \
                    or ((learner < 0) | (learner >= n)).any():
                raise ValueError(f"learner_seat must be seats in [0, {n}), got {learner_seat!r}")
        self._learner = np.array(learner, dtype=np.int64)
        # rewards a game's current episode earned before its learner's first action (paid with that action), and
        # which games' learners have not acted in their current episode (the kernel keeps both: batch_play.advance)
        self._carry = np.zeros(B, dtype=np.float32)
        self._fresh = np.zeros(B, dtype=bool)
        self._check_learner_can_act()
        self._sampler = None
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != n - 1:
                raise ValueError(f"opponents: expected {n - 1} policies (one per other seat), got {len(opponents)}")
            self.set_opponent_pool(list(opponents))
            self._opponent_ids[:] = np.arange(n - 1)
        else:
            self.set_opponent_pool([opponents])

    def _check_learner_can_act(self) -> None:
        """Refuse a learner seat that no deal ever reaches before ``max_turns`` ends the game: the batch would
        otherwise reset and replay its games forever, waiting for the learner's turn (as the Gymnasium env
        does, after 1,000 deals)."""
        n = self.num_players
        if cast(int, self.rules.max_turns) >= n:  # with no special card every seat acts within n decisions of a deal
            return
        from .aec import raw_env

        seats = set(range(n)) if self._random_seat else set(np.unique(self._learner).tolist())
        env = raw_env(self.game.name, num_players=n, rules=self.rules)
        rng = np.random.default_rng(0)
        acted: set[int] = set()
        for deal in range(1000):
            env.reset(seed=deal)
            while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
                acted.add(env._seat[env.agent_selection])
                env.step(int(rng.choice(np.flatnonzero(env._mask))))
            if (acted & seats) if self._random_seat else seats <= acted:
                return
        never = sorted(seats - acted)
        raise ValueError(f"learner_seat: seat(s) {never} never act in 1,000 deals before max_turns="
                         f"{self.rules.max_turns} ends the game, so the learner would wait forever; raise max_turns "
                         f"or choose another learner_seat")

    def _check_edited_seats(self, what: str) -> None:
        waiting = np.flatnonzero((BatchView(self._states).done == 0) & (self._seats != self._learner))
        if waiting.size:
            b = int(waiting[0])
            raise ValueError(f"{what}(): in the single-agent face a running game waits for its learner (seat "
                             f"{int(self._learner[b])}); the edited game {b} has seat {int(self._seats[b])} to act; "
                             f"nothing was stepped")

    # -- opponents -----------------------------------------------------------------------------------
    def set_opponent_pool(self, pool: Sequence[Any], sampler: Any = None) -> None:
        """Opponents drawn per game and episode from ``pool`` (policies or ``"random"``).

        ``sampler(games, env) -> int array (len(games), num_players - 1)``: the pool index of each opponent seat
        (next seat after the learner's first) for the ``games`` that are starting an episode; called with every
        game at ``reset`` and with the games that finished an episode, before their opponents move.  It may grow
        the pool with :meth:`add_opponent`.  Without a sampler every game keeps its indices (``opponent_ids``,
        all 0 at first).  ``"random"``, ``"greedy"`` and ``"heuristic"`` (by name) play inside the compiled
        kernel, from each game's opponent stream; policy objects move through their
        ``act_batch``, one call per policy and round of moves over the games waiting for them.
        """
        pool = list(pool)
        if not pool:
            raise ValueError("the opponent pool is empty")
        self._pool: list[Any] = []
        self.opponents: list[Any] = []
        self._pool_kind = np.zeros(0, dtype=np.int64)
        for p in pool:
            self.add_opponent(p)
        self._sampler = sampler
        self._opponent_ids[self._opponent_ids >= len(pool)] = 0

    def _compiled_kind(self, policy: Any) -> int:
        if _is_random(policy):
            return BL.KIND_RANDOM
        if isinstance(policy, str) and policy in BL.COMPILED_BASELINES:
            return BL.COMPILED_BASELINES[policy]
        return BL.KIND_EXTERNAL

    def add_opponent(self, policy: Any) -> int:
        """Append ``policy`` to the opponent pool; returns its pool index.

        ``policy``: an object with ``act_batch``, or a baseline name of ``agents.registry``: ``"random"``,
        ``"greedy"`` and ``"heuristic"`` play inside the compiled kernel, other names are resolved through
        :mod:`uno_env.opponents`.
        """
        kind = self._compiled_kind(policy)
        if isinstance(policy, str) and kind == BL.KIND_EXTERNAL:
            policy = load_opponent(policy, self.game)
        if kind == BL.KIND_EXTERNAL and not callable(getattr(policy, "act_batch", None)):
            raise TypeError(f"an opponent must be a baseline name or have act_batch(observations, masks); "
                            f"got {policy!r}")
        self._pool.append(None if kind != BL.KIND_EXTERNAL else policy)
        self.opponents.append(policy)
        self._pool_kind = np.append(self._pool_kind, np.int64(kind))
        return len(self._pool) - 1

    @property
    def _in_kernel(self) -> bool:
        return bool((self._pool_kind >= 0).all())

    @property
    def opponents_in_kernel(self) -> bool:
        """True when every opponent in the pool plays inside the compiled kernel (random, greedy, heuristic)."""
        return self._in_kernel

    @property
    def opponent_ids(self) -> np.ndarray:
        """(B, num_players - 1) pool index of each game's opponent seats, next seat after the learner's first."""
        return self._opponent_ids

    @property
    def learner_seat(self) -> np.ndarray:
        """The learner's seat in each game's current episode."""
        return self._learner

    @property
    def learner_rewards(self) -> np.ndarray:
        """(B,) the learners' rewards of the last step (the array ``step`` returns)."""
        return self._lrew

    def _mode(self) -> int:
        # the kernel keeps what happens before a learner's first action apart itself (``carry``, ``fresh``); it
        # stops a game at an episode's start (4) only for a sampler to draw the new episode's opponents first
        return 1 | (2 if self._random_seat else 0) | (4 if self._sampler is not None else 0)

    def _sample(self, games: np.ndarray) -> None:
        if self._sampler is not None and games.size:
            ids = np.asarray(self._sampler(games, self))
            if ids.dtype.kind not in "iu" or ids.shape != (games.size, self.num_players - 1) or ids.min() < 0 \
                    or ids.max() >= len(self._pool):
                raise ValueError(f"the opponent sampler must return pool indices in [0, {len(self._pool)}) of shape "
                                 f"({games.size}, {self.num_players - 1}), got {ids!r}")
            self._opponent_ids[games] = ids

    # -- API -----------------------------------------------------------------------------------------
    def reset(self, seeds: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Reset every game (``seeds``: one int or B ints; ``None``: next episodes) and play the opponents until
        each learner is to act. Returns the learners' ``(obs, masks)``.
        """
        self._start_all(seeds)
        self._clear(learner=True)
        self._carry.fill(0.0)
        self._fresh.fill(True)
        self._run(self._all, _NO_INT, self._learner, self._mode())
        self._opponents_move(self._all, None)
        return self._obs, self._masks

    def step(self, actions: Any):
        """Play the learners' ``actions`` (B,), then the opponents until every learner acts again.

        Returns ``(obs, masks, rewards, terminated, truncated, infos)``; finished games reset themselves.
        """
        self._require_reset("step")
        self._check_edits("step")
        acts = self._check_actions(self._all, actions)
        self._clear(learner=True)
        # what the learner's episode earned before its first action is paid with that action
        self._lrew += self._carry
        self._carry.fill(0.0)
        self._fresh.fill(False)
        self._opponents_move(self._all, acts)
        return self._obs, self._masks, self._lrew, self._terminated, self._truncated, self.infos

    def _opponents_move(self, rows: np.ndarray, actions: np.ndarray | None) -> None:
        """The learners' ``actions`` (None: a reset's deals), then the opponents until every learner is to act.  A
        failure in between (an opponent policy or the sampler raising, or returning bad actions) leaves games
        waiting for an opponent, whose next actions ``step`` would give to the wrong seat: the env then refuses to
        step until ``reset()``."""
        try:
            if actions is None:
                self._sample(rows)
            else:
                self._run_and_sample(rows, actions)
            self._play_opponents()
        except BaseException as exc:
            self._broken = (f"an opponent policy or the sampler failed ({type(exc).__name__}) after the learners "
                            f"had moved, so some games wait for an opponent")
            raise

    def _run_and_sample(self, rows: np.ndarray, actions: np.ndarray) -> None:
        """One kernel call; then the sampler draws the opponents of the games that started an episode in it."""
        if self._sampler is None:
            self._run(rows, actions, self._learner, self._mode())
            return
        episode = self._counters[rows, K.K_EPISODE]
        self._run(rows, actions, self._learner, self._mode())
        self._sample(rows[self._counters[rows, K.K_EPISODE] != episode])

    def _play_opponents(self) -> None:
        """Move every game whose seat to act is not the learner's until none is left: compiled opponents inside the
        kernel, policies by their ``act_batch`` (one call per policy over the games waiting for it)."""
        n = self.num_players
        for _ in range(self.MAX_OPPONENT_ROUNDS):
            pending = np.flatnonzero(self._seats != self._learner)
            if pending.size == 0:
                return
            rel = (self._seats[pending] - self._learner[pending]) % n
            who = self._opponent_ids[pending, rel - 1]
            compiled = self._pool_kind[who] >= 0
            if compiled.any():  # games stopped at an episode start, their opponents drawn since
                self._run_and_sample(pending[compiled], _NO_INT)
            if compiled.all():
                continue
            pending, who = pending[~compiled], who[~compiled]
            acts = np.empty(pending.size, dtype=np.int64)
            for p in np.unique(who).tolist():
                sel = who == p
                sub = pending[sel]
                out = np.asarray(self._pool[p].act_batch(self._obs[sub], self._masks[sub]))
                if out.shape != (sub.size,) or out.dtype.kind not in "iu":  # no float truncated, no broadcast
                    raise TypeError(f"opponent policy {self.opponents[p]!r}: act_batch must return {sub.size} "
                                    f"integers (one per game), got a {out.dtype} array of shape {out.shape}")
                acts[sel] = out
            acts = self._check_actions(pending, acts, who="opponent policy: ")
            self._run_and_sample(pending, acts)
        raise RuntimeError("opponents kept moving for too long without the learner's turn coming")


# ---------------------------------------------------------------------------------------------- Gymnasium face
def _spaces(game: Game, target: int):
    import gymnasium

    high = _observation_high(game, target)
    single_obs = gymnasium.spaces.Dict({
        "observation": gymnasium.spaces.Box(-1.0, high, (game.obs_dim,), np.float32),
        "action_mask": gymnasium.spaces.Box(0, 1, (game.num_actions,), np.int8),
    })
    return single_obs, gymnasium.spaces.Discrete(game.num_actions)


def _gym_vector_class():
    import gymnasium
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space

    class UnoGymVectorEnv(ExactCopy, VectorEnv):
        """Gymnasium vector env over :class:`UnoSingleAgentVectorEnv` (same-step autoreset).

        Observations are ``{"observation": (B, D) float32, "action_mask": (B, A) int8}``, or with
        ``flat_obs=True`` the (B, D) float32 array alone; ``action_masks()`` returns the (B, A) bool masks for
        masked policies.  When games end, ``infos`` holds ``final_obs`` (the
        learners' last observations), ``final_info`` (``winner``, ``episode_turns``) and the ``_final_obs`` /
        ``_final_info`` masks, as Gymnasium's same-step autoreset mode specifies.
        """

        metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

        def __init__(self, game: str = "classic", num_envs: int = 1, num_players: int | None = None,
                     rules: Any = None, opponents: Any = "random", learner_seat: Any = 0, seed: int | None = None,
                     render_mode: str | None = None, max_episode_steps: int | None = None,
                     num_threads: int | None = None, flat_obs: bool = False):
            if not isinstance(flat_obs, (bool, np.bool_)):
                raise TypeError(f"flat_obs must be True or False; got {flat_obs!r}")
            self.flat_obs = bool(flat_obs)
            if render_mode is not None:
                raise ValueError("the vector env does not render; use uno_env.env(render_mode='ansi') to watch a game")
            if max_episode_steps is not None:
                raise ValueError("max_episode_steps is not supported by the vector env; pass rules={'max_turns': N}")
            self.env = UnoSingleAgentVectorEnv(game, num_envs, num_players, rules, opponents, learner_seat, seed,
                                               num_threads)
            self.num_envs = num_envs
            self.game = self.env.game
            single_obs, self.single_action_space = _spaces(self.game, cast(int, self.env.rules.target_score))
            self.single_observation_space = single_obs["observation"] if self.flat_obs else single_obs
            self.observation_space = batch_space(self.single_observation_space, num_envs)
            self.action_space = gymnasium.spaces.MultiDiscrete(np.full(num_envs, self.game.num_actions))
            self.render_mode = None

        def _obs(self) -> dict[str, np.ndarray] | np.ndarray:
            if self.flat_obs:
                return self.env._obs.copy()
            return {"observation": self.env._obs.copy(), "action_mask": self.env._masks.copy()}

        def reset(self, *, seed: int | Sequence[int] | None = None, options: dict | None = None):
            """``seed``: one int (game ``b`` gets ``seed + b``), one int per game, or None (next episodes)."""
            if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
                seed = int(seed)
                self.env.reset(seed)  # checked there first: a refused seed leaves the spaces' streams alone
                self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
                self.action_space.seed(seed)
            else:  # a list (as Gymnasium's vector envs take) seeds the games only, as SyncVectorEnv does
                self.env.reset(seed)
            return self._obs(), self._mask_info({})

        def _mask_info(self, infos: dict[str, Any]) -> dict[str, Any]:
            if self.flat_obs:  # the mask is not in a flat observation, so it rides in infos
                infos["action_mask"] = self.env._masks.copy()
                infos["_action_mask"] = np.ones(self.num_envs, dtype=bool)
            return infos

        def step(self, actions):
            _, _, rew, term, trunc, info = self.env.step(actions)
            infos: dict[str, Any] = {}
            done = term | trunc
            if done.any():
                infos["final_obs"] = info["final_observation"].copy() if self.flat_obs else {
                    "observation": info["final_observation"].copy(), "action_mask": np.zeros_like(self.env._masks)}
                infos["_final_obs"] = done.copy()
                infos["final_info"] = {"winner": info["winner"].copy(), "episode_turns": info["episode_turns"].copy(),
                                       "_winner": done.copy(), "_episode_turns": done.copy()}
                infos["_final_info"] = done.copy()
            return self._obs(), rew.astype(np.float64), term.copy(), trunc.copy(), self._mask_info(infos)

        def action_masks(self) -> np.ndarray:
            return self.env._masks.astype(bool)

        @property
        def action_names(self) -> list[str]:
            return self.game.action_names

        def close_extras(self, **kwargs) -> None:
            if hasattr(self, "env"):  # __init__ may have refused its arguments before building it
                self.env.close()

    # pickle finds the class through the module's __getattr__ (copies of a vector env pickle it by name)
    UnoGymVectorEnv.__qualname__ = "UnoGymVectorEnv"
    UnoGymVectorEnv.__module__ = __name__
    return UnoGymVectorEnv


_CLASSES: dict[str, type] = {}


def _cls(name: str) -> type:
    if name not in _CLASSES:
        _CLASSES[name] = _gym_vector_class() if name == "UnoGymVectorEnv" else _sb3_vec_env_class()
    return _CLASSES[name]


def make_gym_vector_env(game: str = "classic", num_envs: int = 1, **kwargs):
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` single-agent games (the registered vector entry point).

    Keyword arguments: ``num_players``, ``rules``, ``opponents``, ``learner_seat``, ``seed``, ``num_threads``
    (see :class:`UnoSingleAgentVectorEnv`), ``flat_obs`` (the observation is the float32 vector alone; masks
    through ``action_masks()``).
    """
    return _cls("UnoGymVectorEnv")(game, num_envs, **kwargs)


# ---------------------------------------------------------------------------------------------- SB3 face
_VECENV_OWN = {"reset", "step", "step_async", "step_wait", "close", "seed", "render", "get_attr", "set_attr",
               "env_method", "env_is_wrapped", "get_images"}


def _sb3_vec_env_class():
    import gymnasium
    from stable_baselines3.common.vec_env import VecEnv

    class UnoSB3VecEnv(ExactCopy, VecEnv):
        """A stable-baselines3 ``VecEnv`` over :class:`UnoSingleAgentVectorEnv`, for MaskablePPO without subprocesses.

        ``dict_obs=True``: observations ``{"observation", "action_mask"}`` (``MultiInputPolicy``); False: the
        observation vector alone (``MlpPolicy``; masks still come from ``action_masks()``).  Ended games report
        ``terminal_observation``, ``TimeLimit.truncated``, ``winner`` and a VecMonitor-style ``episode``
        (``r``, ``l``, ``t``) in their info dict, so SB3 logs episode returns without a Monitor wrapper.
        """

        def __init__(self, game: str = "classic", num_envs: int = 8, *, dict_obs: bool = True, **kwargs):
            if not isinstance(dict_obs, (bool, np.bool_)):
                raise TypeError(f"dict_obs must be True or False; got {dict_obs!r}")
            self.env = UnoSingleAgentVectorEnv(game, num_envs, **kwargs)
            self.game = self.env.game
            self.dict_obs = bool(dict_obs)
            self.render_mode = None
            single_obs, action_space = _spaces(self.game, cast(int, self.env.rules.target_score))
            obs_space = single_obs if dict_obs else single_obs["observation"]
            super().__init__(num_envs, obs_space, action_space)
            self._actions: np.ndarray | None = None
            self._ep_return = np.zeros(num_envs, dtype=np.float64)
            self._ep_len = np.zeros(num_envs, dtype=np.int64)
            self._t0 = time.time()

        def _obs(self, obs: np.ndarray, masks: np.ndarray):
            if self.dict_obs:
                return {"observation": obs.copy(), "action_mask": masks.copy()}
            return obs.copy()

        def reset(self):
            seeds = self._seeds
            try:
                arr = None if all(s is None for s in seeds) else np.array(
                    [seeding.check_seed(s, "seed") if s is not None else seeding.random_seed() for s in seeds],
                    dtype=np.uint64)
            except (TypeError, ValueError):
                self._reset_seeds()  # a refused seed() applies to no later reset either
                raise
            obs, masks = self.env.reset(arr)
            self._reset_seeds()
            self._reset_options()
            self._ep_return[:] = 0.0
            self._ep_len[:] = 0
            return self._obs(obs, masks)

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = actions

        def step_wait(self):
            obs, masks, rew, term, trunc, info = self.env.step(self._actions)
            self._ep_return += rew
            self._ep_len += 1
            done = term | trunc
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            ended = np.flatnonzero(done)
            if ended.size:
                now = round(time.time() - self._t0, 6)
                final_obs = info["final_observation"]
                zero_mask = np.zeros(self.game.num_actions, dtype=np.int8)
                for b in ended.tolist():
                    terminal = ({"observation": final_obs[b].copy(), "action_mask": zero_mask.copy()}
                                if self.dict_obs else final_obs[b].copy())
                    infos[b] = {
                        "terminal_observation": terminal,
                        "TimeLimit.truncated": bool(trunc[b] and not term[b]),
                        "winner": int(info["winner"][b]),
                        "episode": {"r": float(self._ep_return[b]), "l": int(self._ep_len[b]), "t": now},
                    }
                self._ep_return[ended] = 0.0
                self._ep_len[ended] = 0
            return self._obs(obs, masks), rew.astype(np.float32), done.copy(), infos

        def action_masks(self) -> np.ndarray:
            return self.env._masks.astype(bool)

        def close(self) -> None:
            self.env.close()

        def _indices(self, indices) -> list[int]:
            if indices is None:
                return list(range(self.num_envs))
            if isinstance(indices, (int, np.integer)):
                return [int(indices)]
            return [int(i) for i in indices]

        def get_attr(self, attr_name: str, indices=None) -> list[Any]:
            target = self if attr_name in ("action_masks", "render_mode") else self.env
            value = getattr(target, attr_name)
            return [value for _ in self._indices(indices)]

        def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
            setattr(self.env, attr_name, value)

        def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
            """Calls the method once for the whole batch (on this adapter if it has it, else on ``self.env``)."""
            idx = self._indices(indices)
            if method_name == "action_masks":
                masks = self.action_masks()
                return list(masks[idx]) if len(idx) != self.num_envs else list(masks)
            target = self if hasattr(self, method_name) and method_name not in _VECENV_OWN else self.env
            result = getattr(target, method_name)(*method_args, **method_kwargs)
            return [result for _ in idx]

        def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices=None) -> list[bool]:
            return [False for _ in self._indices(indices)]

        def get_images(self):
            return [None for _ in range(self.num_envs)]

    UnoSB3VecEnv.__qualname__ = "UnoSB3VecEnv"
    UnoSB3VecEnv.__module__ = __name__
    return UnoSB3VecEnv


def make_sb3_vec_env(game: str = "classic", num_envs: int = 8, **kwargs):
    """A stable-baselines3 ``VecEnv`` of ``num_envs`` single-agent games, for (Maskable)PPO without subprocesses.

    Keyword arguments: ``dict_obs`` (default True), ``num_players``, ``rules``, ``opponents``, ``learner_seat``,
    ``seed``, ``num_threads``.  Needs stable-baselines3 (``pip install uno-env[train]``).
    """
    return _cls("UnoSB3VecEnv")(game, num_envs, **kwargs)


def __getattr__(name: str):
    # the Gymnasium and SB3 classes are built on first use, so importing uno_env never imports stable_baselines3
    if name in ("UnoGymVectorEnv", "UnoSB3VecEnv"):
        return _cls(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
