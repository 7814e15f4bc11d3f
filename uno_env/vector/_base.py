"""The batched faces' shared machinery: buffers, seeding, automatic resets, the kernel call (``batch_play``)."""
from __future__ import annotations

import os
from typing import Any

import gymnasium
import numpy as np

from .. import _threads, seeding
from ..aec import ActionOutOfRangeError, IllegalActionError, OrderError
from ..config import make_rules
from ..core import batch as K
from ..core.cards import COL_COUNT, COL_POINTS
from ..core.game import Game, GameMetadata
from ..core.layout import MAX_ITEMS, MAX_PLAYERS, PHASE_NAMES, BatchView
from ..core.validate import row_codes, row_problem
from ..players import batch_play as P
from ..players.parameters import baseline_weight_array
from ..yaml_io import short_repr
from ._team import _StepTeam

SEEDS_PER_REFILL = 32  # episode seeds computed at once per game (the kernel reads them from a (B, 32) table)
_NO_INT = np.empty(0, dtype=np.int64)
_NO_F32 = np.empty(0, dtype=np.float32)

#: The batch size, in bytes of state, observation and mask rows, above which the kernel prefetches.  Measured on a
#: 2-core AMD EPYC VM, one thread, alternating bursts without and with (``benchmarks/bench_batch_size.py
#: --prefetch-ab``, ``benchmarks/results/bench_prefetch_ab.txt``): up to 2.7 MiB (B=512) without ran 1.03-1.12x as
#: fast, from 5.4 MiB on 0.75-0.86x; between, at B=1024 (3.7-4.5 MiB), 0.90-1.04x, a toss-up.  Prefetching where it
#: was not needed cost at most 12%, not prefetching where it was up to 25%: the threshold sits below the toss-ups.
#: With int16 state rows B=1024 holds 2.4-3.9 MiB; without prefetching it ran 0.95-1.00x (median of 11 pairs, six
#: game and player rows) and B=2048 0.73-0.90x, B=512 (1.2-2.0 MiB) 0.94-1.05x: B=1024 stays on the prefetching side.
PREFETCH_MIN_BYTES = 2 << 20




def game_seed(seed: int) -> int:
    """The core seed of the first episode of a game reset with ``seed`` (what ``env.reset(seed=seed)`` uses)."""
    return seeding.episode_seed(seeding.check_seed(seed), 0)


def episode_seeds(seed: int, count: int) -> np.ndarray:
    """The core seeds of a game's first ``count`` episodes (AEC: ``reset(seed=seed)`` then ``reset()``...)."""
    return seeding.episode_seeds(np.array([seeding.check_seed(seed)], dtype=np.uint64), 0, count)[0]


def spaces(game: Game, target: int) -> tuple[gymnasium.spaces.Dict, gymnasium.spaces.Discrete]:
    """One game's observation space (the AEC env's: observation and mask) and action space."""
    spec = game.spec
    # the same bound as the AEC env's observation space
    high = max(float(MAX_ITEMS), 1.0 + float((spec[:, COL_POINTS] * np.maximum(spec[:, COL_COUNT], 6)).sum()) / target)
    single_obs = gymnasium.spaces.Dict({
        "observation": gymnasium.spaces.Box(-1.0, high, (game.obs_dim,), np.float32),
        "action_mask": gymnasium.spaces.Box(0, 1, (game.num_actions,), np.int8),
    })
    return single_obs, gymnasium.spaces.Discrete(game.num_actions)


def first_not_waiting(states: np.ndarray, learner: np.ndarray) -> int:
    """The first game whose row runs with another seat than its learner's to act (-1: none); in the single-agent
    face a running game waits for its learner whenever the caller holds it."""
    view = BatchView(states)
    waiting = np.flatnonzero((view.done == 0) & (view.cur != learner))
    return int(waiting[0]) if waiting.size else -1


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



class _VectorCore(GameMetadata):
    """Buffers, seeding, auto-reset and the kernel call shared by the multi- and single-agent faces (saving and
    restoring: ``_saving._VectorBase``)."""

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
        # the single-agent face's learner seats, rewards carried to the learner's first action, and which games'
        # learners have not acted in their episode yet (``batch_play.advance``); empty here: no learner
        self._learner = _NO_INT
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
        self._pool: list[Any] = []
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
            raise OrderError(f"reset() needs to be called before {what}()")

    def _check_edits(self, what: str) -> None:
        """Before a kernel reads the rows: refuse a broken env, and check rows that may have been edited by hand
        (handed out by ``states``/``state_view``) as ``refresh()`` does, so no edit reaches compiled code unread."""
        if self._broken:
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
        """Indices of the games whose state breaks an invariant (conservation, counts, seat, top card) or holds an
        entry outside its field's bounds: the state check of ``refresh()``, game by game."""
        return np.flatnonzero(row_codes(self.game, self._states))

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
