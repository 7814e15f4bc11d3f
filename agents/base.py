"""The :class:`Agent` protocol every shell uses, and the helpers agents share.

An agent acts on what one seat may know: the float32 ``observation`` vector and the int8 ``action_mask`` of the
acting seat (exactly the two arrays of the environments' observation dict).  It is built for one configured
game (:class:`uno_env.core.game.Game`), from which it decodes the observation (:class:`ObsView`) and the action
table (:class:`ActionView`).

Contract of every agent in this package:

* ``act(observation, action_mask) -> int``: one legal action id (the observation may also be the dict
  ``{"observation": ..., "action_mask": ...}``, then ``action_mask`` may be omitted);
* ``act_batch(observations (B, D) float32, masks (B, A) int8) -> int64 (B,)``: the same for a batch of games;
* ``reset(seed=None)``: reseed the agent's own random stream (call it once per game for reproducible runs);
  given the same seed and the same inputs an agent makes the same choices;
* agents are picklable (the arena ships them to worker processes).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from uno_env.config import GAMES, RuleConfig
from uno_env.core import observe as O
from uno_env.core.actions import offsets as action_offsets
from uno_env.core.cards import COL_COLOUR, COL_POINTS, COL_SYMBOL, NO_COLOUR
from uno_env.core.game import Game
from uno_env.core.queries import RulesQuery

__all__ = ["Agent", "BaseAgent", "ObsView", "ActionView", "resolve_game", "split_observation", "NoLegalActionError",
           "UnknownAgentError"]


class NoLegalActionError(ValueError):
    """An agent was asked to act with an all-zero action mask (the seat is not acting or the game is over)."""


class UnknownAgentError(ValueError):
    """The agent spec is neither a known name nor the path of a saved policy (raised by the registry, and by an
    agent such as ``ppo`` that has nothing to play for the table asked)."""


@runtime_checkable
class Agent(Protocol):
    """What the environments, the arena and the batched simulator need from a policy."""

    name: str

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """One legal action id for the acting seat."""
        ...

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One legal action id per row (int64, shape (B,))."""
        ...


def resolve_game(game: Any):
    """A :class:`~uno_env.core.game.Game` from a Game, a game name, a RuleConfig or an environment."""
    if isinstance(game, Game):
        return game
    if isinstance(game, RuleConfig):
        return Game(game)
    if isinstance(game, str):
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
        return Game(RuleConfig.make(game))
    inner = getattr(game, "unwrapped", game)
    if isinstance(getattr(inner, "game", None), Game):
        return inner.game
    raise TypeError(
        f"game must be a uno_env Game, a game name, a RuleConfig or an environment; got {type(game).__name__}"
    )


def split_observation(observation: Any, action_mask: Any) -> tuple[np.ndarray, np.ndarray]:
    """Accept ``(vector, mask)`` or ``({"observation", "action_mask"}, None)``; return the two arrays."""
    if isinstance(observation, Mapping):
        if action_mask is None:
            action_mask = observation["action_mask"]
        observation = observation["observation"]
    if action_mask is None:
        raise TypeError("act() needs an action_mask (or an observation dict holding one)")
    return np.asarray(observation), np.asarray(action_mask)


class ObsView:
    """Where each block of a game's observation vector lives (slices into the vector, or into rows of a batch).

    Attributes are slices named after the observation layout (docs: Observations): ``hand``, ``other_hands``, ``top``,
    ``colour``, ``phase``, ``direction``, ``hand_sizes``, ``called_uno``, ``draw_size``, ``discarded``, ``bag``,
    ``pending``, ``drawn``, ``scores``, ``acting``, ``shown_hand``, ``shown_from``, ``die_place``, ``die_face``.
    Seat-indexed blocks start with the viewer.
    """

    _NAMES = ("hand", "other_hands", "top", "colour", "phase", "direction", "hand_sizes", "called_uno",
              "draw_size", "discarded", "bag", "pending", "drawn", "scores", "acting", "shown_hand", "shown_from",
              "die_place", "die_face")

    def __init__(self, game):
        offs = [int(x) for x in game.obs_offsets]
        assert len(self._NAMES) == O.NUM_BLOCKS
        for i, name in enumerate(self._NAMES):
            setattr(self, name, slice(offs[i], offs[i + 1]))
        self.dim = offs[-1]

    if TYPE_CHECKING:  # every block named in _NAMES is a slice set in __init__
        def __getattr__(self, name: str) -> slice: ...


class ActionView:
    """The start of each section of a game's action table (attributes named after the sections of
    ``uno_env.core.actions.SECTIONS``: ``play``, ``play_uno``, ``colour``, ``draw``, ``keep``, ``challenge``,
    ``accept``, ``pass_``, ``reroll``, ``give``, ``swap``) plus per-kind data as arrays."""

    play: int
    play_uno: int
    colour: int
    draw: int
    keep: int
    challenge: int
    accept: int
    pass_: int
    reroll: int
    give: int
    swap: int
    play_die: int
    play_die_uno: int

    def __init__(self, game):
        k = game.num_kinds
        self.k = k
        self.num_actions = game.num_actions
        self.num_dice = game.num_dice  # 0 in the card games
        #: (D, 6) kind shown by each face of each die (UNO Dice)
        self.dice = np.asarray(game.dice, dtype=np.int64)[: self.num_dice]
        self._die_face = slice(int(game.obs_offsets[O.B_DIE_FACE]), int(game.obs_offsets[O.B_DIE_FACE + 1]))
        for section, start in action_offsets(k, self.num_dice).items():
            if section != "num_actions":
                setattr(self, "pass_" if section == "pass" else section, start)
        spec = np.asarray(game.spec)
        self.kind_colour = spec[:, COL_COLOUR].astype(np.int64)
        self.kind_symbol = spec[:, COL_SYMBOL].astype(np.int64)
        self.kind_points = spec[:, COL_POINTS].astype(np.int64)
        self.is_wild = self.kind_colour == NO_COLOUR
        # (K, 4) one-hot colour of each kind (wilds: all zero)
        self.colour_onehot = np.zeros((k, 4), dtype=np.float32)
        coloured = ~self.is_wild
        self.colour_onehot[np.flatnonzero(coloured), self.kind_colour[coloured]] = 1.0

    def play_kind(self, action: int, observation: np.ndarray | None = None) -> int:
        """The kind played by a play action (with or without UNO), else -1.  A ``play die`` action plays the face
        its die shows, read from the ``observation``."""
        if action < self.colour:
            return action % self.k
        if self.num_dice and action >= self.play_die:
            if observation is None:
                raise ValueError("a play die action's kind depends on the die's face: pass the observation")
            return int(self.die_kinds(observation)[(action - self.play_die) % self.num_dice])
        return -1

    def die_kinds(self, observation: np.ndarray) -> np.ndarray:
        """UNO Dice: (D,) the kind each die shows now, from the observation's ``die_face`` block."""
        faces = np.asarray(observation[self._die_face]).reshape(self.num_dice, 6).argmax(axis=1)
        return self.dice[np.arange(self.num_dice), faces]

    def dice_as_kinds(self, observation: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, dict[int, list[int]]]:
        """UNO Dice, for agents that reason by kind: a copy of ``mask`` where each legal ``play die i`` (``+ UNO``)
        is shown as the ``play``/``play_uno`` action of the kind die i shows, and, for each such kind action, the
        legal die actions that play it (lowest die first).  Card games: the mask unchanged and ``{}``."""
        m = np.array(mask, copy=True)
        if not self.num_dice:
            return m, {}
        kinds = None
        by_kind: dict[int, list[int]] = {}
        for a in np.flatnonzero(m[self.play_die:]) + self.play_die:
            if kinds is None:
                kinds = self.die_kinds(observation)
            i = int(a) - self.play_die
            kind_action = (self.play_uno if i >= self.num_dice else self.play) + int(kinds[i % self.num_dice])
            m[kind_action] = 1
            m[a] = 0
            by_kind.setdefault(kind_action, []).append(int(a))
        return m, by_kind


class BaseAgent:
    """Shared plumbing: the game, a name, a seeded ``numpy`` generator, and ``act_batch`` as a loop of ``act``."""

    name = "agent"

    def __init__(self, game: Any = "classic", seed: int | None = None):
        self.game = resolve_game(game)
        self.num_actions = self.game.num_actions
        self.obs_view = ObsView(self.game)
        self.actions = ActionView(self.game)
        self.rules_query = RulesQuery(self.game)  # ask the engine's rules, never derive them again
        self._seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's random stream (``None``: fresh entropy)."""
        self._seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:  # pragma: no cover - abstract
        """The action id to play given one seat's ``observation`` (a flat array or the env's dict) and legal
        ``action_mask``.
        """
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One action per row of ``observations`` (B, D) and ``action_masks`` (B, A).

        This default calls ``act`` row by row; agents override it with a vectorised version.
        """
        observations = np.asarray(observations)
        action_masks = np.asarray(action_masks)
        out = np.empty(observations.shape[0], dtype=np.int64)
        for b in range(observations.shape[0]):
            out[b] = self.act(observations[b], action_masks[b])
        return out

    def _legal_actions(self, observation: Any, action_mask: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(observation, mask, legal action ids) of one decision; an all-zero mask raises NoLegalActionError."""
        obs, mask = split_observation(observation, action_mask)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise NoLegalActionError(f"{self.name}: no legal action (all-zero mask)")
        return obs, mask, legal

    def _check_mask(self, mask: np.ndarray) -> None:
        if mask.shape != (self.num_actions,):
            raise ValueError(
                f"{self.name}: action mask has shape {mask.shape}, expected ({self.num_actions},) for game "
                f"{self.game.name!r}"
            )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game.name!r}, num_players={self.game.num_players}, seed={self._seed})"
