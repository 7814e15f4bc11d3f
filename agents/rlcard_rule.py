"""``rlcard-rule``: RLCard 1.2.0's ``uno-rule-v1`` (``rlcard/models/uno_rule_models.py``), ported to uno-env.

Published UNO results are often measured against this agent, so it is here to repeat those comparisons on
uno-env (under the ``rlcard`` rules preset, RLCard's own game).  Its rule, as RLCard writes it:

* draw when drawing is legal (in RLCard's game that means: no card can be played);
* else, if a Wild Draw Four can be played, play it and name the colour held most (wilds not counted);
* else play a random legal card, wild cards only when nothing else can be played.

Where uno-env's rules ask a decision RLCard's game does not have, the port does what RLCard does without one:

* drawing is also legal with a playable card under uno-env's other presets; the port draws only when no card
  can be played (RLCard's agent never declines a playable card in its own game);
* a plain Wild names a uniformly random colour (RLCard picks among its four ``<colour>-wild`` actions at random);
* a playable drawn card is played (RLCard plays it automatically); a play that leaves one card calls UNO (RLCard
  has no call, so no penalty either); a pending draw is accepted, never challenged; a jump-in is passed; Dip
  Into Deck gives, and seven_zero swaps with, a random legal choice; UNO Dice rerolls only when nothing else
  is legal.
* ties in the Wild Draw Four colour count go to a seeded random choice (RLCard: the colour seen first in hand).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.core.cards import WILD_DRAW_FOUR, WILD_DRAW_TWO

from .base import BaseAgent


class RLCardRuleAgent(BaseAgent):
    """RLCard's ``uno-rule-v1`` on uno-env observations (see the module docstring)."""

    name = "rlcard-rule"

    def __init__(self, game: Any = "classic", seed: int | None = None):
        super().__init__(game, seed)
        av = self.actions
        # Wild Draw Four, and Pocket's Wild Draw 2 in its place
        self._wild_draw = np.flatnonzero(np.isin(av.kind_symbol, (WILD_DRAW_FOUR, WILD_DRAW_TWO)))

    def _random(self, choices: np.ndarray) -> int:
        return int(choices[int(self.rng.integers(choices.size))])

    def _play(self, mask: np.ndarray, kind: int) -> int:
        """Play ``kind``, with the UNO call when that variant is the legal one or also legal."""
        av = self.actions
        return av.play_uno + kind if mask[av.play_uno + kind] else av.play + kind

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """RLCard's rule agent's choice for one seat's ``observation`` and legal ``action_mask``."""
        obs, mask, legal = self._legal_actions(observation, action_mask)
        self._check_mask(mask)
        mask, dice_plays = self.actions.dice_as_kinds(obs, mask)  # UNO Dice: by face, then the lowest die
        choice = self._choose(obs, mask, np.flatnonzero(mask))
        return dice_plays[choice][0] if choice in dice_plays else choice

    def _choose(self, obs: np.ndarray, mask: np.ndarray, legal: np.ndarray) -> int:
        av, k = self.actions, self.actions.k
        playable = np.flatnonzero(mask[av.play: av.play + k] | mask[av.play_uno: av.play_uno + k])
        if playable.size:
            wild_draw = np.intersect1d(playable, self._wild_draw)
            if wild_draw.size:
                return self._play(mask, int(wild_draw[0]))
            plain = playable[~av.is_wild[playable]]
            return self._play(mask, self._random(plain if plain.size else playable))
        colours = np.flatnonzero(mask[av.colour: av.colour + 4])
        if colours.size:
            top = int(np.argmax(obs[self.obs_view.top]))
            if top in self._wild_draw:
                held = np.asarray(obs[self.obs_view.hand], dtype=np.float32) @ av.colour_onehot
                held = held[colours]
                colours = colours[held == held.max()]
            return av.colour + self._random(colours)
        for preferred in (av.draw, av.accept, av.keep, av.pass_):
            if mask[preferred]:
                return preferred
        return self._random(legal[legal != av.reroll] if np.any(legal != av.reroll) else legal)
