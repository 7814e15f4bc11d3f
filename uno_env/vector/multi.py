"""The multi-agent batch: B games, every seat played by the caller (self-play, search)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ._base import _NO_INT, _as_rows
from ._saving import _VectorBase


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
