"""The agents' face of the compiled players (``uno_env.players``): one player of one game, asked for a batch of
decisions, with the checks of its inputs that compiled code does not make.

``greedy``, ``heuristic`` (and its UNO Dice player) and the heuristic's advice to a policy network all choose
through :class:`CompiledPlayer`: each decision rule exists once, compiled, and the batched simulator's in-kernel
opponents play the same code.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.players.baselines import baseline_actions

from .base import NoLegalActionError, split_observation

__all__ = ["CompiledPlayer", "OBS_LIMIT"]

#: the largest magnitude an observation entry may have before it reaches a compiled player (real ones are card,
#: dice and point counts): the players loop over hand sizes, so a huge or non-finite value would hang or misread
#: them
OBS_LIMIT = 1e6


class CompiledPlayer:
    """Compiled baseline ``kind`` (``uno_env.players.baselines.KIND_*``) of ``game`` with its parameter array
    ``weights`` (``uno_env.players.parameters.baseline_weight_array``); ``who`` names it in error messages."""

    def __init__(self, game: Any, kind: int, weights: np.ndarray, who: str):
        self.game = game
        self.kind = int(kind)
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        self.who = who

    def prepare(self, observations: Any, action_masks: Any) -> tuple[np.ndarray, np.ndarray]:
        """A batch's observations (B, D) and masks (B, A) as the compiled player reads them (float32; int8, legal =
        nonzero), checked: a wrong shape or an observation entry that is not finite or beyond :data:`OBS_LIMIT` is
        a ``ValueError``, a row without a legal action a :class:`~uno_env.agents.base.NoLegalActionError`."""
        g = self.game
        # few numpy calls: in the arena this runs for one row at a time, where each call's overhead is the cost
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        masks = np.asarray(action_masks)
        if masks.dtype != np.int8:
            masks = (masks != 0).view(np.int8)
        masks = np.ascontiguousarray(masks)
        if obs.ndim != 2 or obs.shape[1] != g.obs_dim or masks.shape != (obs.shape[0], g.num_actions):
            raise ValueError(f"{self.who} for {g.name!r} with {g.num_players} players needs observations "
                             f"(B, {g.obs_dim}) and masks (B, {g.num_actions}); got {obs.shape} and {masks.shape}")
        if not masks.any(axis=1).all():
            row = int(np.flatnonzero(~masks.any(axis=1))[0])
            raise NoLegalActionError(f"{self.who}: no legal action (all-zero mask) in row {row}")
        if obs.size and not (obs.max() <= OBS_LIMIT and obs.min() >= -OBS_LIMIT):  # NaN fails both comparisons
            raise ValueError(f"{self.who}: observations must be finite with entries within +-{OBS_LIMIT:g} "
                             f"(what the environments give)")
        return obs, masks

    def prepare_one(self, observation: Any, action_mask: Any) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`prepare` for one decision (``act``'s arguments: a vector and a mask, or the env's dict), as a
        batch of one row."""
        obs, mask = split_observation(observation, action_mask)
        g = self.game
        if obs.shape != (g.obs_dim,) or mask.shape != (g.num_actions,):
            raise ValueError(f"{self.who} for {g.name!r} with {g.num_players} players needs an observation "
                             f"({g.obs_dim},) and a mask ({g.num_actions},); got {obs.shape} and {mask.shape}")
        if not mask.any():
            raise NoLegalActionError(f"{self.who}: no legal action (all-zero mask)")
        return self.prepare(obs[None, :], mask[None, :])

    def run(self, obs: np.ndarray, masks: np.ndarray, shifts: Any = None) -> np.ndarray:
        """The player's action for every row of a batch :meth:`prepare` returned (int64, (B,)); ``shifts``: greedy's
        tie-break rotation per row (0..A-1; default 0)."""
        b = obs.shape[0]
        shifts = np.zeros(b, dtype=np.int64) if shifts is None else np.ascontiguousarray(shifts, dtype=np.int64)
        if shifts.shape != (b,) or (b and not (0 <= shifts.min() and shifts.max() < self.game.num_actions)):
            raise ValueError(f"{self.who}: tie-break rotations must be {b} integers in [0, {self.game.num_actions})")
        out = np.empty(b, dtype=np.int64)
        g = self.game
        bad = baseline_actions(self.kind, obs, masks, g.cfg, g.spec, g.obs_offsets, self.weights, shifts, out)
        if bad >= 0:  # the checks of ``prepare`` leave no such row; never hand on a -1
            raise NoLegalActionError(f"{self.who}: the compiled player found no action for row {bad}")
        return out

    def choose_one(self, observation: Any, action_mask: Any) -> int:
        """``act``: :meth:`prepare_one`, then :meth:`run`."""
        return int(self.run(*self.prepare_one(observation, action_mask))[0])

    def choose(self, observations: Any, action_masks: Any) -> np.ndarray:
        """``f(observations (B, D), masks (B, A)) -> (B,) int64``: :meth:`prepare`, then :meth:`run`."""
        return self.run(*self.prepare(observations, action_masks))

    def __call__(self, observations: Any, action_masks: Any) -> np.ndarray:
        return self.choose(observations, action_masks)
