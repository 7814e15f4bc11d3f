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

The same player is compiled in ``uno_env.players.dice_heuristic`` (the batched simulator's ``"heuristic"`` opponent
and the batched trainer's advice); its tables come from the same code (``dice_tables``) and a test holds its
choices equal to this agent's.

Measured with ``uno-env evaluate heuristic greedy --game dice`` (20,000 games, seed 0, seats rotated): see the
arena table in the README; it beats ``greedy`` clearly with two players (the extra turns and the last dice),
while with four players, where a die's choice matters least, the gain is within a point.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.core import engine as E
from uno_env.core.cards import DRAW_TWO, REVERSE, SKIP, WILD_DRAW_FOUR
from uno_env.players.parameters import DICE_HEURISTIC_WEIGHTS, dice_tables

from .base import BaseAgent

#: the weights (``weights=`` overrides them by name); the compiled player (``uno_env.players.dice_heuristic``) reads
#: the same table
DEFAULT_WEIGHTS: dict[str, float] = DICE_HEURISTIC_WEIGHTS

_SKIPS = (SKIP, DRAW_TWO, WILD_DRAW_FOUR)
_DRAWS = {DRAW_TWO: 2, WILD_DRAW_FOUR: 4}


class DiceHeuristicAgent(BaseAgent):
    """A rule-based UNO Dice player (see the module docstring); ``weights`` overrides :data:`DEFAULT_WEIGHTS`."""

    name = "heuristic"

    def __init__(self, game: Any = "dice", seed: int | None = None, weights: dict[str, float] | None = None):
        super().__init__(game, seed)
        if self.game.name != "dice":
            raise ValueError(f"DiceHeuristicAgent plays UNO Dice only; got game {self.game.name!r}")
        unknown = set(weights or {}) - set(DEFAULT_WEIGHTS)
        if unknown:
            raise ValueError(f"unknown dice heuristic weights {sorted(unknown)}; known: {', '.join(DEFAULT_WEIGHTS)}")
        self.weights = dict(DEFAULT_WEIGHTS, **(weights or {}))
        av = self.actions
        self.n = self.game.num_players
        self.k = av.k
        self._colour = av.kind_colour
        self._symbol = av.kind_symbol
        self._points = av.kind_points
        self._wild = av.is_wild
        self._wd4 = self._symbol == WILD_DRAW_FOUR
        # the odds of a roll, computed once per game by the code the compiled player's tables come from
        tables = dice_tables(self.game.spec, self.game.dice, self.game.num_dice)
        self._face_p = tables["face_p"]  # P(a rolled die shows each kind)
        self._matches = tables["matches"]  # [t, c]: (K,) bool, the kinds that follow centre t in colour c
        self._q = tables["q"]  # (K, 4): P(a rolled die follows)
        self._top_p = tables["top_p"]  # (K, 4): P(a future centre die is t in colour c)
        self._die_keep_value = tables["die_keep_value"]  # per die: P(one of its faces follows a future centre)

    # ------------------------------------------------------------------------------------------ reading
    def _other_hand(self, obs: np.ndarray, rel: int) -> np.ndarray:
        start = self.obs_view.other_hands.start + (rel - 1) * self.k
        return obs[start: start + self.k]

    def _follow_chance(self, hand: np.ndarray) -> float:
        """P(``hand`` holds a die that follows a random future centre die)."""
        held = hand > 0
        return float(self._top_p[(self._matches & held).any(axis=2)].sum())

    def _threat(self, sizes: np.ndarray, rel: int) -> float:
        """How much hurting seat ``rel`` is worth: more when it is close to going out."""
        return 1.0 + self.weights["lead"] * max(0, 3 - int(sizes[rel]))

    def _p_stuck(self, hand: np.ndarray, size: int, top: int, colour: int) -> float:
        """P(a seat holding ``hand`` cannot play on ``top`` in ``colour`` this turn, reroll and draw included)."""
        if size <= 0:
            return 0.0
        if (hand[self._matches[top, colour]] > 0).any():
            return 0.0
        return float((1.0 - self._q[top, colour]) ** (size + 1))

    def _best_colour(self, rest: np.ndarray, top: int, facing: int, obs: np.ndarray, sizes: np.ndarray
                     ) -> tuple[int, float]:
        """The colour to name after Wild ``top`` (leaving ``rest`` in hand) and its score."""
        w = self.weights
        best, best_score = 0, -np.inf
        for c in range(4):
            follow = float(rest[self._matches[top, c]].sum())
            s = w["colour_kept"] * follow + 0.01 * float(rest[self._colour == c].sum())
            if facing:
                s += w["deny"] * self._threat(sizes, facing) * self._p_stuck(
                    self._other_hand(obs, facing), int(sizes[facing]), top, c)
            if s > best_score:
                best, best_score = c, s
        return best, best_score

    # ------------------------------------------------------------------------------------------ acting
    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The dice heuristic's choice for one seat's ``observation`` and legal ``action_mask``."""
        obs, mask, legal = self._legal_actions(observation, action_mask)
        if legal.size == 1:
            return int(legal[0])
        # choose the face by the rules of thumb below, then which die showing it (_die_to_play)
        mask, dice_plays = self.actions.dice_as_kinds(obs, mask)
        legal = np.flatnonzero(mask)
        choice = self._choose(obs, legal)
        return self._die_to_play(dice_plays[choice]) if choice in dice_plays else choice

    def _die_to_play(self, candidates: list[int]) -> int:
        """Of the dice showing the chosen face, play the one least worth keeping: the die whose faces, rolled
        again (a reroll), are least likely to follow a future centre die (the other stays for later rolls)."""
        av = self.actions
        dice = [(a - av.play_die) % av.num_dice for a in candidates]
        return candidates[int(np.argmin(self._die_keep_value[dice]))]

    def _choose(self, obs: np.ndarray, legal: np.ndarray) -> int:
        """The action (plays as per-kind ``play`` ids) the heuristic's scores prefer."""
        ov, av, w = self.obs_view, self.actions, self.weights
        phase = int(np.argmax(obs[ov.phase]))
        hand = np.asarray(obs[ov.hand], dtype=np.float64)
        sizes = np.asarray(obs[ov.hand_sizes])
        n = self.n
        direction = 1 if obs[ov.direction.start] >= 0 else -1
        rel_next = 1 % n if direction > 0 else n - 1
        if phase == E.PH_COLOUR:
            top = int(np.argmax(obs[ov.top]))
            facing = 0 if (n == 2 and self._symbol[top] == WILD_DRAW_FOUR) else (
                (2 * direction) % n if self._symbol[top] == WILD_DRAW_FOUR else rel_next)
            return av.colour + self._best_colour(hand, top, facing, obs, sizes)[0]
        legal_set = set(legal.tolist())
        if phase == E.PH_PENDING:  # only with dice_wd4_bluff: a bluff is never worth a 4-die penalty to check
            return av.accept if av.accept in legal_set else int(legal[0])
        plays = [int(a) for a in legal if a < av.colour]
        if not plays:
            for a in (av.reroll, av.draw, av.keep, av.pass_):
                if a in legal_set:
                    return a
            return int(legal[0])
        uno = {a % self.k for a in plays if a >= av.play_uno}
        kinds = sorted({a % self.k for a in plays})
        size = int(hand.sum())
        rel_after = (2 * direction) % n
        rel_prev = (-direction) % n
        best_kind, best_score = kinds[0], -np.inf
        for kind in kinds:
            if size == 1:
                best_kind, best_score = kind, np.inf
                break
            rest = hand.copy()
            rest[kind] -= 1
            sym = int(self._symbol[kind])
            skips = sym in _SKIPS or (sym == REVERSE and n == 2)
            if skips:
                facing = 0 if n == 2 else rel_after
            elif sym == REVERSE:
                facing = rel_prev
            else:
                facing = rel_next
            if self._wild[kind]:
                colour, s = self._best_colour(rest, kind, facing, obs, sizes)
            else:
                colour = int(self._colour[kind])
                s = w["colour_kept"] * float(rest[self._matches[kind, colour]].sum())
                if facing:
                    s += w["deny"] * self._threat(sizes, facing) * self._p_stuck(
                        self._other_hand(obs, facing), int(sizes[facing]), kind, colour)
            if facing == 0:  # our own extra turn: can we follow it?
                s += w["extra_turn"] * (1.0 - self._p_stuck(rest, size - 1, kind, colour))
            if sym in _DRAWS:
                s += w["draw"] * _DRAWS[sym] * self._threat(sizes, rel_next)
            if skips and n > 2:
                s += w["skip"] * self._threat(sizes, rel_next)
            if not (rest[self._wd4] > 0).any():  # a Wild held makes a Wild Draw Four illegal: spend it first
                s += w["keep_wild"] * float(rest[self._wild & ~self._wd4].sum())
            if size <= 3:  # the dice we will have to go out with
                s += w["flex"] * self._follow_chance(rest)
            s += 0.001 * float(self._points[kind])
            if s > best_score:
                best_kind, best_score = kind, s
        return best_kind + (av.play_uno if best_kind in uno else 0)
