"""The league of a self-play run: whom the learner meets in the other seats, and how often.

The league is the run's opponent pool (:class:`training.pool.OpponentPool`), filled and drawn from as follows:

* **Who is in it.** The baselines of ``opponents.baselines`` (kept for the whole run, so the learner never forgets
  how to beat the scripted players), and frozen snapshots of the learner: from ``opponents.selfplay_start`` x
  ``total_steps`` on, a copy of the current policy joins every ``opponents.snapshot_every`` steps
  (:meth:`training.run_state.RunState.add_snapshot`); once ``opponents.pool_size`` snapshots are kept, the oldest
  leaves.  A snapshot is a pickle-free numpy policy; it samples its moves (``opponents.deterministic: false``), so
  it does not play one game the same way twice.
* **How a seat's opponent is drawn** (every episode, every other seat): a snapshot with ``opponents.selfplay_prob``
  once self-play has started, else a baseline by weight.  A snapshot is the newest one with
  ``opponents.latest_prob``, else any of the pool.
* **Prioritised fictitious self-play** (``opponents.sampling: win_rate``, batched_ppo): every finished game is
  reported to the pool, which keeps the learner's recent win rate ``x`` against each member (about the last 500
  games against it).  Each member's weight (its baseline weight, or its snapshot share above) is multiplied by
  ``f(x)`` of :func:`pfsp_weight` (``opponents.pfsp``): ``linear`` 1 - x and ``squared`` (1 - x)^2 favour the
  members that beat the learner (AlphaStar's f_hard with p = 1 and 2), ``variance`` x (1 - x) the ones it beats
  about half the time.  No member's factor falls below :data:`MIN_FACTOR`, so a beaten member is still met now and
  then, and its win rate stays measured.
"""
from __future__ import annotations

import numpy as np

__all__ = ["PFSP", "MIN_FACTOR", "pfsp_weight"]

#: the weightings of prioritised fictitious self-play (``opponents.pfsp``)
PFSP = ("linear", "squared", "variance")
#: the smallest factor a member's weight is multiplied by
MIN_FACTOR = 0.02


def pfsp_weight(win_rates: np.ndarray, weighting: str = "linear") -> np.ndarray:
    """The factor each member's weight is multiplied by, from the learner's win rates against them (0..1)."""
    x = np.clip(np.asarray(win_rates, dtype=np.float64), 0.0, 1.0)
    if weighting == "linear":
        f = 1.0 - x
    elif weighting == "squared":
        f = (1.0 - x) ** 2
    elif weighting == "variance":
        f = x * (1.0 - x)
    else:
        raise ValueError(f"unknown PFSP weighting {weighting!r}; known: {', '.join(PFSP)}")
    return np.maximum(f, MIN_FACTOR)
