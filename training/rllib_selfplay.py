"""RLlib self-play: which module plays each seat of an episode (:class:`SeatMapping`), and the snapshots of ``main``
that join the opponents (:class:`SelfPlayCallback`, :func:`take_snapshot`).

Module ids: ``main``, the one learning policy; ``snapshot_<k>``, frozen copies of ``main`` for self-play;
``baseline_<name>``, frozen baselines from ``agents/``.
"""
from __future__ import annotations

import functools
import zlib
from collections.abc import Hashable
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

from .pool import SELF, OpponentPool
from .pool import SNAPSHOT_PREFIX as POOL_SNAPSHOT

__all__ = ["MAIN", "SNAPSHOT_PREFIX", "BASELINE_PREFIX", "SeatMapping", "SelfPlayCallback", "take_snapshot",
           "set_snapshots_taken"]

MAIN = "main"
SNAPSHOT_PREFIX = "snapshot_"
BASELINE_PREFIX = "baseline_"


class SeatMapping:
    """RLlib's ``policy_mapping_fn``: which module plays each seat (agent) of an episode.

    The anchor seat, drawn per episode from the episode id, is always ``main``, so every episode trains it from
    a seat that changes from game to game.  Every other seat is drawn from the opponent pool
    (:class:`training.pool.OpponentPool`, the same pool ``uno-env train`` uses): a snapshot with probability
    ``selfplay_prob`` (only once a snapshot has been taken), a baseline with probability ``baseline_prob``
    (weighted by ``baselines``), else ``main``.  The snapshots are ``pool_size`` module slots overwritten in
    turn; ``snapshots_taken`` is set by :class:`SelfPlayCallback` on every EnvRunner's copy of this object.  The
    draws are not seeded (RLlib's episode ids are random, so a multi-process RLlib run is not bit-reproducible
    anyway); the games themselves are seeded through ``seed``.
    """

    def __init__(self, num_players: int, baselines: dict[str, float], baseline_prob: float, selfplay_prob: float,
                 pool_size: int, latest_prob: float):
        self.num_players = num_players
        self.pool = OpponentPool(baselines, selfplay_prob=selfplay_prob, latest_prob=latest_prob,
                                 pool_size=pool_size, baseline_prob=baseline_prob)
        self.pool.rng = None  # each process draws from its own fresh generator
        self.pool.selfplay_active = True  # snapshots are drawn as soon as one exists
        self.baseline_ids = [BASELINE_PREFIX + n for n in self.pool.baseline_names]
        self._taken = 0

    @property
    def pool_size(self) -> int:
        """Number of self-play snapshot slots."""
        return self.pool.pool_size

    @property
    def selfplay_prob(self) -> float:
        """Probability that a non-learner seat plays a self-play snapshot."""
        return self.pool.selfplay_prob

    @property
    def baseline_prob(self) -> float:
        """Probability that a non-learner seat plays a baseline."""
        return float(self.pool.baseline_prob or 0.0)

    @property
    def snapshots_taken(self) -> int:
        """Snapshots of ``main`` taken so far; setting it lists the filled slots, oldest first."""
        return self._taken

    @snapshots_taken.setter
    def snapshots_taken(self, n: int) -> None:
        # slot k holds snapshot number k, k + pool_size, ...: list the filled slots oldest first
        self._taken = int(n)
        size = self.pool.pool_size
        filled = min(self._taken, size)
        slots = [(self._taken - filled + j) % size for j in range(filled)]
        self.pool.snapshots = [{"name": f"{SNAPSHOT_PREFIX}{k}", "path": f"{SNAPSHOT_PREFIX}{k}", "step": 0}
                               for k in slots]

    def module_ids(self) -> list[str]:
        """Every RLModule id this mapping can return: ``main``, the snapshot slots and the baselines in use."""
        ids = [MAIN]
        if self.selfplay_prob > 0:
            ids += [f"{SNAPSHOT_PREFIX}{k}" for k in range(self.pool_size)]
        if self.baseline_prob > 0:
            ids += list(self.baseline_ids)
        return ids

    def __getstate__(self):
        d = dict(self.__dict__)
        pool = d["pool"] = OpponentPool.__new__(OpponentPool)
        pool.__dict__.update(self.pool.__dict__, rng=None)  # each process draws from its own fresh generator
        return d

    def anchor_seat(self, episode_id: str) -> int:
        """The seat ``main`` plays in episode ``episode_id`` (the same in every process)."""
        return zlib.crc32(str(episode_id).encode()) % self.num_players

    def __call__(self, agent_id: Hashable, episode: Any = None, **kwargs: Any) -> str:
        seat = int(str(agent_id).rsplit("_", 1)[-1])
        if episode is None or seat == self.anchor_seat(getattr(episode, "id_", "")):
            return MAIN
        spec = self.pool.draw()
        if spec == SELF:
            return MAIN
        if spec.startswith(POOL_SNAPSHOT):
            return spec[len(POOL_SNAPSHOT):]
        return BASELINE_PREFIX + spec


def _opponent_kind(module_id: str) -> str:
    if module_id.startswith(SNAPSHOT_PREFIX):
        return "snapshot"
    if module_id.startswith(BASELINE_PREFIX):
        return module_id[len(BASELINE_PREFIX):]
    return module_id


def _set_snapshots_taken(env_runner, n: int) -> None:
    fn = env_runner.config.policy_mapping_fn
    if isinstance(fn, SeatMapping):
        fn.snapshots_taken = n


class SelfPlayCallback(RLlibCallback):
    """Every ``snapshot_every`` iterations (from ``selfplay_start`` on) copy ``main``'s weights into the next
    snapshot slot, on the Learner (so checkpoints hold it) and on every EnvRunner, and tell the EnvRunners'
    :class:`SeatMapping` how many snapshots exist.  At each episode end, log ``main``'s win rate against the
    kind of opponent it met (``win_rate_vs_<kind>``: ``snapshot``, a baseline name, or ``mixed``; episodes
    with ``main`` in every seat are not counted).  RLlib reduces it per iteration: with a few dozen games per
    iteration it is noisy; the arena evaluation is the measurement to trust."""

    def __init__(self, selfplay_start: int = 10, snapshot_every: int = 10, pool_size: int = 4,
                 enabled: bool = True):
        super().__init__()
        self.selfplay_start = selfplay_start
        self.snapshot_every = snapshot_every
        self.pool_size = pool_size
        self.enabled = enabled

    # -- EnvRunner side ---------------------------------------------------------------------------
    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        """Log ``main``'s win against each kind of opponent it met in the episode."""
        if metrics_logger is None or not episode.is_terminated:
            return
        try:
            mains, others, won = [], set(), False
            for aid, sa in episode.agent_episodes.items():
                mid = episode.module_for(aid)
                if mid == MAIN:
                    mains.append(aid)
                    if len(sa) and float(sa.get_rewards(-1)) > 0:
                        won = True
                else:
                    others.add(_opponent_kind(mid))
        except Exception:  # pragma: no cover - logging must never break sampling
            return
        if not mains or not others:  # pure self-play: main wins every game, nothing to log
            return
        kind = "mixed" if len(others) > 1 else others.pop()
        metrics_logger.log_value(f"win_rate_vs_{kind}", float(won), reduce="mean", window=200)

    # -- driver side ------------------------------------------------------------------------------
    def on_train_result(self, *, algorithm, metrics_logger=None, result, **kwargs) -> None:
        """Take a self-play snapshot of ``main`` when it is due and report the pool in ``result``."""
        mapping = algorithm.config.policy_mapping_fn
        if not self.enabled or not isinstance(mapping, SeatMapping):
            return
        it = algorithm.iteration
        if it >= self.selfplay_start and (it - self.selfplay_start) % self.snapshot_every == 0:
            take_snapshot(algorithm)
        result["selfplay"] = {"snapshots_taken": mapping.snapshots_taken,
                              "pool_filled": min(mapping.snapshots_taken, mapping.pool_size)}


def take_snapshot(algorithm) -> str:
    """Copy ``main``'s weights into the next snapshot slot (Learner and EnvRunners); returns the slot's id."""
    mapping: SeatMapping = algorithm.config.policy_mapping_fn
    slot = f"{SNAPSHOT_PREFIX}{mapping.snapshots_taken % mapping.pool_size}"
    weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    algorithm.learner_group.set_state({"learner": {"rl_module": {slot: weights}}})
    algorithm.env_runner_group.sync_weights(from_worker_or_learner_group=algorithm.learner_group, policies=[slot],
                                            inference_only=True)
    set_snapshots_taken(algorithm, mapping.snapshots_taken + 1)
    return slot


def set_snapshots_taken(algorithm, n: int) -> None:
    """Set the snapshot count on the driver's SeatMapping and on every EnvRunner's copy."""
    mapping = algorithm.config.policy_mapping_fn
    if isinstance(mapping, SeatMapping):
        mapping.snapshots_taken = n
    algorithm.env_runner_group.foreach_env_runner(functools.partial(_set_snapshots_taken, n=n))
