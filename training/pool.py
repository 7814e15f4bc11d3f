"""The opponent pool of both trainers: who sits in a seat that is not the learner's, drawn per episode.

A draw for one seat is a baseline (by weight), a frozen snapshot of the learner (with probability
``selfplay_prob`` once self-play is active and a snapshot exists: the newest with ``latest_prob``, else uniform
over the pool) or, when ``baseline_prob`` is given, the learner itself (:data:`SELF`):

* ``uno-env train`` (``baseline_prob=None``): every draw that is not a snapshot is a baseline, so the
  baselines stay in the mix.  Snapshots are ``.npz`` files (``snapshot:<path>``).
* ``uno-env train-rllib`` (``baseline_prob`` set): a draw is a snapshot with ``selfplay_prob``, a baseline with
  ``baseline_prob``, else the learner itself (one shared policy).  Snapshots are frozen RLlib modules
  (``snapshot:<module id>``); :class:`training.rllib_train.SeatMapping` turns the draws into module ids.

The pool's state (snapshot list, whether self-play is on, the random stream) goes into checkpoints.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from .league import PFSP, pfsp_weight

__all__ = ["OpponentPool", "SNAPSHOT_PREFIX", "SELF"]

SNAPSHOT_PREFIX = "snapshot:"
#: the draw "the learner itself" (only with ``baseline_prob``)
SELF = "self"


class OpponentPool:
    """Baselines plus frozen snapshots of the learner; draws an opponent spec per seat per episode."""

    def __init__(self, baselines: Mapping[str, float], selfplay_prob: float = 0.5, latest_prob: float = 0.5,
                 pool_size: int = 8, seed: int | None = None, baseline_prob: float | None = None,
                 sampling: str = "fixed", pfsp: str = "linear"):
        names = [n for n, w in baselines.items() if w > 0]
        if not names and baseline_prob is None:
            raise ValueError("the opponent pool needs at least one baseline with a positive weight")
        self.baseline_names = names
        w = np.array([baselines[n] for n in names], dtype=np.float64)
        self.baseline_probs = w / w.sum() if names else w
        self.selfplay_prob = float(selfplay_prob)
        self.latest_prob = float(latest_prob)
        self.pool_size = int(pool_size)
        # None: every non-snapshot draw is a baseline; else a baseline with this probability, the learner otherwise
        self.baseline_prob = None if baseline_prob is None else (float(baseline_prob) if names else 0.0)
        self.snapshots: list[dict[str, Any]] = []  # {"name", "path", "step"}, oldest first
        self.selfplay_active = False
        self.rng: np.random.Generator | None = np.random.default_rng(seed)
        if sampling not in ("fixed", "win_rate"):
            raise ValueError(f"sampling must be 'fixed' or 'win_rate', got {sampling!r}")
        # win_rate: each member's weight is scaled by how often it beats the learner (the trainer reports results)
        self.track_results = sampling == "win_rate"
        if pfsp not in PFSP:
            raise ValueError(f"pfsp must be one of {', '.join(PFSP)}, got {pfsp!r}")
        self.pfsp = pfsp  # the weighting of the win rates (training.league.pfsp_weight)
        self.results: dict[str, list[float]] = {}  # spec -> [learner wins, games], decayed (recent games count)

    # -- pool -----------------------------------------------------------------------------------
    def add_snapshot(self, path: str, step: int, name: str | None = None) -> list[str]:
        """Add a snapshot file; returns the paths that left the pool (the caller may delete them)."""
        self.snapshots.append({"name": name or f"snapshot_{step}", "path": os.path.abspath(path), "step": int(step)})
        dropped = []
        while len(self.snapshots) > self.pool_size:
            dropped.append(self.snapshots.pop(0)["path"])
        return dropped

    def specs(self) -> list[str]:
        """Agent specs of every pool member: baseline names and ``snapshot:`` paths."""
        return list(self.baseline_names) + [SNAPSHOT_PREFIX + s["path"] for s in self.snapshots]

    # -- drawing --------------------------------------------------------------------------------
    def generator(self) -> np.random.Generator:
        """The pool's random stream, which draws opponents and snapshot players' seeds."""
        if self.rng is None:  # unpickled in another process without its stream: draw from a fresh one
            self.rng = np.random.default_rng()
        return self.rng

    def _snapshot(self, rng: np.random.Generator) -> str:
        if self.track_results:
            k = len(self.snapshots)
            prior = np.full(k, (1.0 - self.latest_prob) / k)
            prior[-1] += self.latest_prob
            specs = [SNAPSHOT_PREFIX + s["path"] for s in self.snapshots]
            return specs[self._weighted(rng, specs, prior)]
        if rng.random() < self.latest_prob:
            snap = self.snapshots[-1]
        else:
            snap = self.snapshots[int(rng.integers(len(self.snapshots)))]
        return SNAPSHOT_PREFIX + snap["path"]

    def _baseline(self, rng: np.random.Generator) -> str:
        if self.track_results:
            return self.baseline_names[self._weighted(rng, self.baseline_names, self.baseline_probs)]
        return self.baseline_names[int(rng.choice(len(self.baseline_names), p=self.baseline_probs))]

    # -- results (sampling: win_rate) -------------------------------------------------------------
    #: each recorded result shrinks the older ones by this factor: about the last 500 games against a member count
    RESULT_DECAY = 0.998

    def _weighted(self, rng: np.random.Generator, specs: list[str], prior: np.ndarray) -> int:
        """Index of a member drawn with weight prior x f(the learner's recent win rate against it), f the league's
        PFSP weighting (:func:`training.league.pfsp_weight`)."""
        rates = np.array([self.learner_win_rate(s) for s in specs])
        w = np.asarray(prior, dtype=np.float64) * pfsp_weight(rates, self.pfsp)
        return int(rng.choice(len(specs), p=w / w.sum()))

    def learner_win_rate(self, spec: str) -> float:
        """The learner's recent win rate against ``spec`` (0.5 before any game: Laplace's rule)."""
        wins, games = self.results.get(spec, (0.0, 0.0))
        return (wins + 1.0) / (games + 2.0)

    def record_result(self, spec: str, learner_won: bool) -> None:
        """One finished game of the learner against ``spec`` (a pool member sitting in one of its other seats)."""
        r = self.results.setdefault(spec, [0.0, 0.0])
        r[0] = r[0] * self.RESULT_DECAY + float(learner_won)
        r[1] = r[1] * self.RESULT_DECAY + 1.0

    def win_rates(self) -> dict[str, float]:
        """The learner's recent win rate against each member it has played (names: baselines, snapshot names)."""
        names = {SNAPSHOT_PREFIX + s["path"]: s["name"] for s in self.snapshots}
        return {names.get(spec, spec): self.learner_win_rate(spec) for spec in self.results
                if spec in names or spec in self.baseline_names}

    def results_state(self) -> dict[str, list[float]]:
        """The recorded results as plain data (saved with the trainer's checkpoint)."""
        return {k: list(v) for k, v in self.results.items()}

    def load_results(self, d: Mapping[str, Any]) -> None:
        """Restore :meth:`results_state` output."""
        self.results = {str(k): [float(v[0]), float(v[1])] for k, v in d.items()}

    def draw(self) -> str:
        """One opponent spec: a baseline name, ``snapshot:<path>`` or :data:`SELF`."""
        rng = self.generator()
        snapshots = self.selfplay_active and bool(self.snapshots)
        if self.baseline_prob is None:
            if snapshots and rng.random() < self.selfplay_prob:
                return self._snapshot(rng)
            return self._baseline(rng)
        u = rng.random()
        if snapshots and u < self.selfplay_prob:
            return self._snapshot(rng)
        if self.selfplay_prob <= u < self.selfplay_prob + self.baseline_prob:
            return self._baseline(rng)
        return SELF

    def sample(self, n: int = 1) -> list[str]:
        """``n`` opponent specs (one per other seat)."""
        return [self.draw() for _ in range(n)]

    def probabilities(self) -> dict[str, float]:
        """The chance of each opponent for one seat now (for logs and the report)."""
        probs: dict[str, float] = {}
        p_snap = self.selfplay_prob if (self.selfplay_active and self.snapshots) else 0.0
        p_base = (1.0 - p_snap) if self.baseline_prob is None else self.baseline_prob
        for name, p in zip(self.baseline_names, self.baseline_probs):
            probs[name] = p_base * float(p)
        if p_snap:
            k = len(self.snapshots)
            for i, s in enumerate(self.snapshots):
                p = (1.0 - self.latest_prob) / k + (self.latest_prob if i == k - 1 else 0.0)
                probs[s["name"]] = p_snap * p
        if self.baseline_prob is not None:
            probs[SELF] = max(0.0, 1.0 - p_snap - p_base)
        return probs

    # -- checkpointing --------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The pool as plain data (snapshots, self-play flag, PRNG state) for a checkpoint."""
        return {"snapshots": [dict(s) for s in self.snapshots], "selfplay_active": self.selfplay_active,
                "rng": self.generator().bit_generator.state, "results": self.results_state()}

    def load_state_dict(self, d: Mapping[str, Any]) -> None:
        """Restore the pool from :meth:`state_dict` output."""
        self.snapshots = [dict(s) for s in d["snapshots"]]
        self.selfplay_active = bool(d["selfplay_active"])
        self.generator().bit_generator.state = d["rng"]
        self.load_results(d.get("results", {}))
