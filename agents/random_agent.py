"""``random``: uniform over the legal actions."""
from __future__ import annotations

from typing import Any

import numpy as np

from .base import BaseAgent


class RandomAgent(BaseAgent):
    """Picks uniformly among the legal actions (every entry of the mask that is 1).

    ``act`` and ``act_batch`` draw the same way (one uniform number per decision), so a batch of one gives the
    same action as ``act`` with the same seed.  ``act_batch`` is vectorised: rows without a legal action get 0.
    """

    name = "random"

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """A uniformly random legal action."""
        _, _, legal = self._legal_actions(observation, action_mask)
        return int(legal[int(self.rng.random() * legal.size)])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """A uniformly random legal action per row of ``action_masks``."""
        masks = np.asarray(action_masks) != 0
        cum = np.cumsum(masks, axis=1, dtype=np.int16)  # A < 32768
        counts = cum[:, -1]
        pick = (self.rng.random(masks.shape[0]) * counts).astype(np.int16)  # index among the legal ones
        return np.argmax(cum > pick[:, None], axis=1).astype(np.int64)
