"""``greedy``: sheds the highest-value legal card, calls UNO, never challenges."""
from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.players.baselines import KIND_GREEDY
from uno_env.players.parameters import baseline_weight_array

from .base import BaseAgent
from .compiled import CompiledPlayer


class GreedyAgent(BaseAgent):
    """A one-rule player, compiled (:mod:`uno_env.players.greedy`, which the batched simulator's ``"greedy"``
    opponent plays too).

    Every legal action gets a score and the best one is taken: a play scores 1000 + the card's points (so the
    highest-value card goes first, wilds before action cards before high numbers), with the UNO call preferred
    to the same play without it; drawing, rerolling, accepting a penalty or declining a jump-in score 0;
    keeping a drawn card 10 (playing it scores more); challenging is never chosen.  A colour is named after the
    colour the hand holds most of; Wild Dip Into Deck gives away the highest-value card; seven_zero swaps with
    the smallest other hand.  Ties are broken by a seeded random rotation of the action order, one draw from the
    agent's stream per decision.  In UNO Dice the face is chosen so, then the lowest-id die showing it.
    """

    name = "greedy"

    def __init__(self, game: Any = "classic", seed: int | None = None):
        super().__init__(game, seed)
        self._player = CompiledPlayer(self.game, KIND_GREEDY, baseline_weight_array(self.game), self.name)

    def _rotation(self, b: int) -> np.ndarray:
        """Per-row tie-break shifts: one seeded draw per row (B numbers, not B x A)."""
        return self.rng.integers(0, self.num_actions, size=b)

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The highest-value legal play (with the UNO call when it applies); never challenges."""
        obs, masks = self._player.prepare_one(observation, action_mask)
        return int(self._player.run(obs, masks, self._rotation(1))[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``act`` for a batch, compiled (UNO Dice draws the rows' rotations one at a time, as ``act`` per row
        would)."""
        obs, masks = self._player.prepare(observations, action_masks)
        b = obs.shape[0]
        shifts = (np.array([self._rotation(1)[0] for _ in range(b)], dtype=np.int64) if self.actions.num_dice
                  else self._rotation(b))
        return self._player.run(obs, masks, shifts)
