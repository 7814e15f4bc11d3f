"""Uniformly random legal play for a batch, drawn in the compiled core: the batched simulator's default opponent and
a batched policy of its own (``act_batch``)."""
from __future__ import annotations

import numpy as np

from .. import seeding
from ..core import batch as K


class RandomLegalPolicy:
    """Uniformly random legal actions for a batch, drawn in the compiled core (no per-game Python).

    Row ``i`` of a call uses its own splitmix64 stream seeded with ``seed + i``, so a call's result depends only
    on the seed, the row and how many calls came before.  Implements the batched policy protocol
    ``act_batch(observations, masks) -> actions`` and the single-game ``act(observation, action_mask)``.
    """

    def __init__(self, seed: int | None = None):
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(2))
        # row i's stream is seeded with seed + i in compiled int64 arithmetic
        if seeding.check_seed(seed, "RandomLegalPolicy seed") >= 2**62:
            raise ValueError(f"RandomLegalPolicy seed must be in [0, 2**62), got {int(seed)}")
        self.seed = int(seed)
        self._rngs = np.zeros((0, 1), dtype=np.uint64)

    def _words(self, n: int) -> np.ndarray:
        if self._rngs.shape[0] < n:
            old = self._rngs
            new = np.zeros((max(n, 2 * old.shape[0]), 1), dtype=np.uint64)
            new[: old.shape[0]] = old
            fresh = new[old.shape[0]:]
            K.seed_words(fresh, self.seed + old.shape[0])
            self._rngs = new
        return self._rngs[:n]

    def act_batch(self, observations: np.ndarray | None, masks: np.ndarray) -> np.ndarray:
        """One uniformly random legal action per row of ``masks`` (B, A); ``observations`` is ignored."""
        masks = np.ascontiguousarray(masks)
        if masks.dtype == np.bool_:
            masks = masks.view(np.int8)
        elif masks.dtype != np.int8:
            if masks.dtype.kind not in "iuf" or ((masks != 0) & (masks != 1)).any():
                raise ValueError(f"masks must hold 0 and 1 (legal) only, got a {masks.dtype} array with other values")
            masks = masks.astype(np.int8)
        if masks.ndim != 2:
            raise ValueError(f"masks must be 2-D (batch, num_actions), got shape {masks.shape}")
        out = np.empty(masks.shape[0], dtype=np.int64)
        bad = K.random_actions(masks, self._words(masks.shape[0]), out)
        if bad >= 0:  # found in the kernel: a numpy reduction here cost 10% of a one-game step
            raise ValueError(f"row {bad} of the masks has no legal action")
        return out

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray) -> int:
        """One uniformly random legal action of ``action_mask``."""
        return int(self.act_batch(None, np.asarray(action_mask)[None, :])[0])
