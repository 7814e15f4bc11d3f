"""The single-agent batch: one learner seat per game, the other seats played in-batch (in the compiled kernel, or
by batched policies) until the learner is to act."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..aec import check_seats_can_act
from ..core import batch as K
from ..opponents import load_opponent
from ..players import baselines as BL
from ..yaml_io import short_repr
from ._base import _NO_INT, first_not_waiting
from ._saving import _VectorBase
from .policy import RandomLegalPolicy


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
        # a seat no deal reaches would have the batch replay its games forever, waiting for the learner's turn
        seats = set(range(n)) if self._random_seat else set(np.unique(self._learner).tolist())
        check_seats_can_act(self.rules, seats, any_seat=self._random_seat)
        self._sampler = None
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != n - 1:
                raise ValueError(f"opponents: expected {n - 1} policies (one per other seat), got {len(opponents)}")
            self.set_opponent_pool(list(opponents))
            self._opponent_ids[:] = np.arange(n - 1)
        else:
            self.set_opponent_pool([opponents])

    def _check_edited_seats(self, what: str) -> None:
        b = first_not_waiting(self._states, self._learner)
        if b >= 0:
            raise ValueError(f"{what}(): in the single-agent face a running game waits for its learner (seat "
                             f"{int(self._learner[b])}); the edited game {b} has seat {int(self._seats[b])} to act; "
                             f"nothing was stepped")

    # -- copies (``_exact_copy.ExactCopy``): also the learner seats and the opponent pool ----------------------
    def _copy_init(self) -> dict[str, Any]:
        return {**super()._copy_init(),
                "learner_seat": "random" if self._random_seat else [int(x) for x in self._learner]}

    def _copy_state(self) -> dict[str, Any]:
        return {**super()._copy_state(), "pool": list(self.opponents), "sampler": self._sampler}

    def _load_copy_state(self, state: Any) -> None:
        if not isinstance(state, dict) or not isinstance(state.get("pool"), list) or not state["pool"]:
            raise ValueError(f"a copy of a {type(self).__name__}: expected its opponent pool, got {short_repr(state)}")
        self.set_opponent_pool(state["pool"], state.get("sampler"))
        super()._load_copy_state(state)

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
