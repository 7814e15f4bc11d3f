"""Saving and restoring the batched faces' games: state dicts per game, snapshots of the whole batch, and copies.

Every way a state enters a batched env goes through the one state check: ``load_state_dict`` (``Game``'s and the
shell's checks, ``uno_env._state_checks``), ``restore`` and ``refresh`` (``core.validate.row_problem``), and a copy
(``pickle``, ``copy.deepcopy``: the constructor again, then ``restore`` of the copied snapshot).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import seeding
from .._exact_copy import ExactCopy
from .._state_checks import check_arrays_like, check_vector_part, vector_counter_limits
from ..core import batch as K
from ..core.layout import BatchView, StateView
from ..core.validate import row_problem
from ..yaml_io import short_repr
from ._base import SEEDS_PER_REFILL, _VectorCore, first_not_waiting

#: what a snapshot holds, in order
SNAPSHOT_PARTS = ("states", "prng words", "opponent PRNG words", "seed lists", "episode counters", "seeds",
                  "seed blocks", "learner seats", "carried rewards")
#: what a copy carries besides the snapshot: the games' opponent ids and the last step's results
RESULT_PARTS = ("opponent ids", "rewards", "learner rewards", "terminated", "truncated", "final info",
                "final observations")


class _VectorBase(ExactCopy, _VectorCore):
    """:class:`_VectorCore` with its games' state dicts, snapshots and copies."""

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
        if self._learner.size:
            env["learner_seat"] = int(self._learner[b])
            env["opponent_ids"] = [int(x) for x in self._opponent_ids[b]]
            env["carried_reward"] = float(self._carry[b])
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
        env = None
        if d.get("env") is not None:
            env = check_vector_part(d["env"], SEEDS_PER_REFILL, self.num_players if self._learner.size else None,
                                    len(self._pool))
        self._check_waits_for_learner(b, row, env)
        # computed before anything is written: nothing changes unless everything is valid
        seed_row = None if env is None else seeding.episode_seeds(
            np.array([env["seed"]], dtype=np.uint64), (env["seed_blocks"] - 1) * SEEDS_PER_REFILL,
            SEEDS_PER_REFILL)[0]
        self._states[b] = row
        self._rngs[b] = words
        if env is not None:
            self._set_counters(b, env, seed_row)
        self.refresh()

    def _check_waits_for_learner(self, b: int, row: np.ndarray, env: dict[str, Any] | None) -> None:
        view = StateView(row)
        if self._learner.size and view.done == 0:
            seat = env["learner_seat"] if env is not None else int(self._learner[b])
            if view.cur != seat:
                raise ValueError(f"current_seat: in the single-agent face a running game waits for its learner "
                                 f"(seat {seat}); the state has seat {view.cur} to act")

    def _set_counters(self, b: int, env: dict[str, Any], seed_row: Any) -> None:
        self._seed0[b], self._blocks[b] = np.uint64(env["seed"]), env["seed_blocks"]
        self._seed_buf[b] = seed_row
        self._counters[b] = (env["seed_pos"], env["episode"], env["episode_seed"])
        self._opp[b, 0] = np.uint64(env["opponent_rng"][0])
        if self._learner.size:
            self._learner[b] = env["learner_seat"]
            self._opponent_ids[b] = env["opponent_ids"]
            self._carry[b] = env.get("carried_reward", 0.0)

    # -- snapshots (search: try actions, then rewind) -------------------------------------------------------
    def _snapshot_arrays(self) -> tuple[np.ndarray, ...]:
        return (self._states, self._rngs, self._opp, self._seed_buf, self._counters, self._seed0, self._blocks,
                self._learner, self._carry)

    def snapshot(self) -> tuple[np.ndarray, ...]:
        """Copies of everything that decides the games' futures (states, PRNGs, episode seeds, learner seats);
        the opponent ids are :attr:`opponent_ids`."""
        self._require_reset("snapshot")
        return tuple(a.copy() for a in self._snapshot_arrays())

    def restore(self, snap: tuple[np.ndarray, ...]) -> None:
        """Return every game to a :meth:`snapshot` (for search: try actions, then rewind); exact, later episodes
        included.  A snapshot that does not hold together (its states, seeds, seats or opponent ids) is refused
        with ``ValueError`` and nothing is restored."""
        mine = self._snapshot_arrays()
        try:
            check_arrays_like("the snapshot", snap, mine, SNAPSHOT_PARTS)
        except ValueError as exc:
            raise ValueError(f"restore() takes a snapshot() of this environment, a tuple of arrays of the same shapes "
                             f"and dtypes: {exc}; nothing was restored") from None
        self._check_snapshot(snap)
        for target, source in zip(mine, snap):
            target[...] = source
        self.refresh()

    def _check_snapshot(self, snap: tuple[np.ndarray, ...]) -> None:
        """What a snapshot must hold to be one of this env's: playable states (the one state check), counters in
        the ranges a state dict's are held to, seed lists that follow from the games' seeds (as ``_refill`` makes
        them), learner seats of the game, and in the single-agent face running games that wait for their
        learners."""
        states, _, _, seed_buf, counters, seed0, blocks, learner, _ = snap
        problem = row_problem(self.game, states)
        if problem:
            raise ValueError(f"restore(): the snapshot's states cannot be played: {problem}; nothing was restored")
        limits = vector_counter_limits(SEEDS_PER_REFILL)
        for name, values in (("seed_blocks", blocks), ("seed_pos", counters[:, K.K_SEED_POS]),
                             ("episode", counters[:, K.K_EPISODE]), ("episode_seed", counters[:, K.K_SEED])):
            lo, hi = limits[name]
            if ((values < lo) | (values > hi)).any():
                raise ValueError(f"restore(): the snapshot's {name} counters are outside {lo}..{hi}; nothing was "
                                 f"restored")
        if not np.array_equal(seed_buf, seeding.episode_seeds(seed0, (blocks - 1) * SEEDS_PER_REFILL,
                                                              SEEDS_PER_REFILL)):
            raise ValueError("restore(): the snapshot's seed lists do not follow from its seeds; nothing was restored")
        if learner.size:
            if ((learner < 0) | (learner >= self.num_players)).any():
                raise ValueError("restore(): the snapshot's learner seats are out of range; nothing was restored")
            b = first_not_waiting(states, learner)
            if b >= 0:
                raise ValueError(f"restore(): in the single-agent face a running game waits for its learner; game "
                                 f"{b} has seat {int(BatchView(states).cur[b])} to act, its learner is seat "
                                 f"{int(learner[b])}; nothing was restored")

    # -- copies (``_exact_copy.ExactCopy``): the constructor again, then the snapshot ----------------------
    def _copy_init(self) -> dict[str, Any]:
        return {"game": self.game.name, "num_envs": self.num_envs, "rules": self.rules.to_dict(), "seed": self._seed,
                "num_threads": self.num_threads}

    def _copy_state(self) -> dict[str, Any]:
        snapshot = None
        if self._has_reset:
            if self._rows_unchecked:  # edits not refreshed yet: a copy carries only states the check accepts
                problem = row_problem(self.game, self._states)
                if problem:
                    raise ValueError(f"copy: the state rows were handed out for editing and {problem}; fix them "
                                     f"and call refresh() before copying")
            snapshot = self.snapshot()
        return {"snapshot": snapshot, "results": tuple(a.copy() for a in self._results()), "prefetch": self.prefetch,
                "broken": self._broken}

    def _results(self) -> tuple[np.ndarray, ...]:
        return (self._opponent_ids, self._rewards, self._lrew, self._terminated, self._truncated, self._final,
                self._final_obs)

    def _load_copy_state(self, state: Any) -> None:
        keys = {"snapshot", "results", "prefetch", "broken"}
        if not isinstance(state, dict) or not keys <= set(state):
            raise ValueError(f"a copy of a {type(self).__name__}: expected {sorted(keys)}, got {short_repr(state)}")
        results = self._results()
        check_arrays_like("a copy's last results", state["results"], results, RESULT_PARTS)
        ids = state["results"][0]
        if ((ids < 0) | (ids >= max(len(self._pool), 1))).any():
            raise ValueError(f"a copy of a {type(self).__name__}: its opponent ids are not indices of the opponent "
                             f"pool (0..{len(self._pool) - 1})")
        if not isinstance(state["prefetch"], bool) or not isinstance(state["broken"], str):
            raise ValueError(f"a copy of a {type(self).__name__}: prefetch must be True or False and broken a "
                             f"string, got {short_repr(state['prefetch'])} and {short_repr(state['broken'])}")
        if state["snapshot"] is not None:
            self.restore(state["snapshot"])
            self._has_reset = True
        for target, source in zip(results, state["results"]):
            target[...] = source
        self.prefetch, self._broken = state["prefetch"], state["broken"]

