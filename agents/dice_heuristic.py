"""The UNO Dice player behind ``heuristic`` (``HeuristicAgent`` hands every UNO Dice decision to it).

UNO Dice differs from the card games in what a player knows and what a turn can do: every hand is public, the
bag's dice are known, so only future rolls are random; a turn may reroll the whole hand, and a stuck player
rerolls (and then draws one die) rather than drawing a card.  So the player reasons with exact hands and with the
odds of a roll: ``q(top, colour)``, the chance that a freshly rolled die can follow the centre die, from the dice
set's faces.  A seat that holds no matching die follows after a reroll (h dice) or the extra draw with chance
``1 - (1 - q)^(h + 1)``.

Every legal action gets a score (the best wins; ties: lowest action id):

* **Playing** a die is always one die closer to winning, so plays differ only in what they do next.  A play
  scores ``deny`` times the chance that the player who faces the new centre die cannot follow it (exact for
  their public dice, the roll odds otherwise), ``draw`` per die it makes the victim draw (Draw Two, Wild Draw
  Four), ``skip`` for a turn taken from the next player (three or more players) and, with two players,
  ``extra_turn`` times the chance that we can follow our own Skip / Reverse / Draw Two / Wild Draw Four.
  (``lead`` > 0 weighs all of that by how close the victim is to going out; measured no better, so 0.)
* **Which dice to keep**: ``keep_wild`` per plain Wild kept (it always follows, so it is spent last),
  ``colour_kept`` per die that follows the colour left on top, and, for the last one or two dice, ``flex`` times
  the chance that they follow a random future centre die.  A Wild held makes a Wild Draw Four illegal (it is
  legal only when no other die follows), so with a Wild Draw Four in hand the Wild is not kept.
* **Wild Draw Four**: when it is legal it is the only play besides a reroll, and it is played: four dice for the
  victim outweigh anything a reroll could give.
* **Rerolls**: only a stuck hand is rerolled.  A reroll can still lead to a play (``1 - (1 - q)^h`` with h
  dice, then the draw), but with a play in hand it trades a sure die less for that chance and for faces that are
  no better on average than the ones kept: about 0.15 dice worse in expectation with five dice, more with fewer.
* **Colour**: after a Wild, the colour that most of our remaining dice follow, against the chance that the
  player facing it can follow.
* The drawn die is played when it matches; UNO is always called.
* **Which die**: when several dice show the chosen face, the one played is the die least worth keeping: the one
  whose six faces, rolled again by a later reroll, are least likely to follow a future centre die.

The player is compiled (:mod:`uno_env.players.dice_heuristic`, with the dice set's tables from
:func:`uno_env.players.parameters.dice_tables`): this agent, ``HeuristicAgent`` in UNO Dice, the batched
simulator's ``"heuristic"`` opponent and the batched trainer's advice all play that one code.

Measured with ``uno-env evaluate heuristic greedy --game dice`` (20,000 games, seed 0, seats rotated): see the
arena table in the docs; it beats ``greedy`` clearly with two players (the extra turns and the last dice),
while with four players, where a die's choice matters least, the gain is within a point.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.players.baselines import KIND_HEURISTIC
from uno_env.players.parameters import DICE_HEURISTIC_WEIGHTS, baseline_weight_array, dice_tables

from .base import BaseAgent
from .compiled import CompiledPlayer

#: the weights (``weights=`` overrides them by name); the compiled player reads them from its parameter array
DEFAULT_WEIGHTS: dict[str, float] = DICE_HEURISTIC_WEIGHTS


class DiceHeuristicAgent(BaseAgent):
    """A rule-based UNO Dice player (see the module docstring); ``weights`` overrides :data:`DEFAULT_WEIGHTS`."""

    name = "heuristic"

    def __init__(self, game: Any = "dice", seed: int | None = None, weights: dict[str, float] | None = None):
        super().__init__(game, seed)
        if self.game.name != "dice":
            raise ValueError(f"DiceHeuristicAgent plays UNO Dice only; got game {self.game.name!r}")
        params = baseline_weight_array(self.game, dice_weights=weights)  # refuses an unknown name
        self.weights = dict(DEFAULT_WEIGHTS, **(weights or {}))
        # per die: P(one of its faces follows a future centre die), what decides which of two dice showing the
        # chosen face is played
        self._die_keep_value = dice_tables(self.game.spec, self.game.dice, self.game.num_dice)["die_keep_value"]
        self._player = CompiledPlayer(self.game, KIND_HEURISTIC, params, self.name)

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The dice heuristic's choice for one seat's ``observation`` and legal ``action_mask``."""
        return self._player.choose_one(observation, action_mask)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The dice heuristic's choice for every row (compiled, one call for the batch)."""
        return self._player.choose(observations, action_masks)
