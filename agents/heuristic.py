"""``heuristic``: a rule-based player for every game and option.

Measured with ``uno-env evaluate`` (2-player classic, 5,000 games, seed 0; the docs' arena table): 98.1% against
``random`` and 54.5% against ``greedy`` under the standard rules; 59.3% against ``random`` under the ``rlcard``
preset (RLCard 1.2.0's game, where published heuristic bots reach about 66%).  The weights were tuned (under the
earlier defaults) with such runs.

It acts on the observation alone (no memory), so one object can play many games, seats or batch rows.  Each
legal action gets a score built from a few rules; the best score wins (ties: lowest action id).  The rules are
compiled (:mod:`uno_env.players.card_heuristic`; in UNO Dice :mod:`uno_env.players.dice_heuristic`, see
:mod:`uno_env.agents.dice_heuristic`): this agent, the batched simulator's ``"heuristic"`` opponent, the advice
input of the shipped policies and the search's rollouts all play that one code.

* **Playing**: never draws while it can play; prefers the play after which the player who faces the new top
  is least likely to follow it (estimated from the unseen cards, deck - own hand - discard pile, and that
  player's hand size; in UNO Dice from its public hand), then the play that keeps the colour it holds most of;
  sheds high-value cards first when otherwise equal; always calls UNO.
* **Wilds** are kept for when they are needed (no other card playable, or two cards left); a Wild Draw Four /
  Wild Draw 2 is played only when legal (never a bluff), and then gladly (the challenger would draw 6).
* **Colour**: names the colour it holds most of, weighed against the chance that the player who faces it can
  follow (from the unseen cards; in UNO Dice, where hands are public, from that player's dice).
* **Action cards** are aimed: Skip / Reverse / Draw cards are favoured when the player they hit is close to
  going out (or, with two players, when they give a free extra turn), and avoided when they would hand the
  turn to a player close to going out.
* **Challenges** a Wild Draw Four / Wild Draw 2 when the public information (the player's hand size and the
  unseen cards) makes a bluff likely: P(guilty) is estimated as the chance that a hand of that size holds a
  card of the old colour (or any playable card, under the ``any_playable`` legality), times a prior that the
  opponent plays such a card regardless of legality.
* **Drawn card**: plays it when it is playable (unless it would be a bluffed Wild Draw Four).
* House rules: stacks a draw card when it can, jumps in when it can, swaps hands with the smallest hand.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.players.baselines import KIND_HEURISTIC
from uno_env.players.card_heuristic import guilty_probability
from uno_env.players.parameters import HEURISTIC_WEIGHTS, baseline_weight_array
from uno_env.players.workspace import baseline_scratch

from .base import BaseAgent
from .compiled import CompiledPlayer

#: the weights (with what each one scores) live beside the compiled player that reads them
DEFAULT_WEIGHTS: dict[str, float] = HEURISTIC_WEIGHTS


class HeuristicAgent(BaseAgent):
    """A strong rule-based player (see the module docstring); ``weights`` overrides :data:`DEFAULT_WEIGHTS`."""

    name = "heuristic"

    def __init__(self, game: Any = "classic", seed: int | None = None, weights: dict[str, float] | None = None):
        super().__init__(game, seed)
        # UNO Dice: the card weights are unused and the dice player plays with its default weights
        params = baseline_weight_array(self.game, weights)  # refuses an unknown name, naming the known ones
        self.weights = dict(DEFAULT_WEIGHTS, **(weights or {}))
        self._player = CompiledPlayer(self.game, KIND_HEURISTIC, params, self.name)

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The heuristic's choice for one seat's ``observation`` and legal ``action_mask``."""
        return self._player.choose_one(observation, action_mask)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The heuristic's choice for every row (compiled, one call for the batch)."""
        return self._player.choose(observations, action_masks)

    def _guilty_probability(self, observation: np.ndarray) -> float:
        """P(the Wild Draw card just played was a bluff) that a challenge is weighed on (card games), from one
        seat's observation."""
        g = self.game
        obs, _ = self._player.prepare_one(observation, np.ones(g.num_actions, dtype=np.int8))
        fw, iw, _ = baseline_scratch(g.num_actions)
        return float(guilty_probability(obs[0], g.cfg, g.spec, g.obs_offsets, self._player.weights, fw, iw))
