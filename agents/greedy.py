"""``greedy``: sheds the highest-value legal card, calls UNO, never challenges."""
from __future__ import annotations

from typing import Any

import numpy as np

from .base import BaseAgent


class GreedyAgent(BaseAgent):
    """A one-rule player, vectorised over a batch.

    Every legal action gets a score and the best one is taken: a play scores 1000 + the card's points (so the
    highest-value card goes first, wilds before action cards before high numbers), with the UNO call preferred
    to the same play without it; drawing, rerolling, accepting a penalty or declining a jump-in score 0;
    keeping a drawn card 10 (playing it scores more); challenging is never chosen.  A colour is named after the
    colour the hand holds most of; Wild Dip Into Deck gives away the highest-value card; seven_zero swaps with
    the smallest other hand.  Ties are broken by a seeded random rotation of the action order.  In UNO Dice the
    face is chosen so, then the lowest-id die showing it.
    """

    name = "greedy"

    def __init__(self, game: Any = "classic", seed: int | None = None):
        super().__init__(game, seed)
        av = self.actions
        a = self.num_actions
        k = av.k
        base = np.zeros(a, dtype=np.float64)
        pts = av.kind_points.astype(np.float64)
        base[av.play: av.play + k] = 1000.0 + pts
        base[av.play_uno: av.play_uno + k] = 1000.5 + pts
        base[av.colour: av.colour + 4] = 100.0
        base[av.keep] = 10.0
        base[av.challenge] = -1e9
        base[av.give: av.give + k] = 500.0 + pts
        base[av.swap:] = 500.0
        # integer priority: the rank of the score, times A, leaves room for a tie-break in 0..A-1
        ranks = np.unique(base, return_inverse=True)[1].astype(np.int64)
        self._key = ranks * a
        self._key32 = self._key.astype(np.int32)
        n = self.game.num_players
        self._n_swap = min(n - 1, a - av.swap)

    def _rotation(self, b: int) -> np.ndarray:
        """Per-row tie-break shifts: one seeded draw per row (B numbers, not B x A)."""
        return self.rng.integers(0, self.num_actions, size=b)

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The highest-value legal play (with the UNO call when it applies); never challenges."""
        obs, mask, legal = self._legal_actions(observation, action_mask)
        av, a = self.actions, self.num_actions
        dice_plays: dict[int, list[int]] = {}
        if av.num_dice:  # UNO Dice: choose the face as in the card games, then the lowest die showing it
            mask, dice_plays = av.dice_as_kinds(obs, mask)
            legal = np.flatnonzero(mask)
        shift = int(self._rotation(1)[0])
        rot = (legal - shift) % a
        first = int(legal[0])
        if av.colour <= first < av.colour + 4:  # naming a colour: the one held most of
            counts = np.asarray(obs[self.obs_view.hand], dtype=np.float32) @ av.colour_onehot
            score = counts[legal - av.colour].astype(np.int64) * a + rot
        elif first >= av.swap:  # seven_zero: swap with the smallest other hand
            sizes = np.asarray(obs[self.obs_view.hand_sizes])
            score = -sizes[legal - av.swap + 1].astype(np.int64) * a + rot
        else:
            score = self._key[legal] + rot
        best = int(legal[int(np.argmax(score))])
        return dice_plays[best][0] if best in dice_plays else best

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``act`` for a batch, vectorised over the rows with numpy (UNO Dice: row by row, as a play's value
        depends on the face its die shows)."""
        if self.actions.num_dice:
            return super().act_batch(observations, action_masks)
        masks = np.asarray(action_masks) != 0
        b, a = masks.shape
        av = self.actions
        rot = np.arange(a, dtype=np.int32)[None, :] - self._rotation(b).astype(np.int32)[:, None]
        np.remainder(rot, a, out=rot)  # tie-break rotation, 0..A-1
        score = rot + self._key32[None, :]
        np.putmask(score, ~masks, -1)
        out = np.argmax(score, axis=1)
        # the two phases whose choice depends on the observation (they offer nothing else)
        col = masks[:, av.colour: av.colour + 4]
        rows = np.flatnonzero(col.any(axis=1))
        if rows.size:
            obs = np.asarray(observations)[rows][:, self.obs_view.hand].astype(np.float32)
            counts = (obs @ av.colour_onehot).astype(np.int64)
            s = np.where(col[rows], counts * a + rot[rows, av.colour: av.colour + 4].astype(np.int64), -(2**62))
            out[rows] = av.colour + np.argmax(s, axis=1)
        if self._n_swap > 0:
            sw = masks[:, av.swap: av.swap + self._n_swap]
            rows = np.flatnonzero(sw.any(axis=1))
            if rows.size:
                sizes = np.asarray(observations)[rows][:, self.obs_view.hand_sizes][:, 1: 1 + self._n_swap]
                tie_break = rot[rows, av.swap: av.swap + self._n_swap].astype(np.int64)
                s = np.where(sw[rows], -sizes.astype(np.int64) * a + tie_break,
                             -(2**62))
                out[rows] = av.swap + np.argmax(s, axis=1)
        return out.astype(np.int64)
