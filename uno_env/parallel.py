"""The PettingZoo Parallel environment: ``uno_env.parallel_env("classic", num_players=4)``.

UNO is turn-based, so each ``step(actions)`` is one decision: the action of the agent to act (the only one whose
``action_mask`` is not all zeros) is played; the waiting agents' entries may be left out or be ``None``.  By
default (``inactive_actions="ignore"``) a waiting agent may also be given an action id, which is checked (an int in
``[0, A)``, else :class:`uno_env.ActionOutOfRangeError`) and then ignored: PettingZoo's ``parallel_api_test`` and
most Parallel training loops give every live agent an action, and ``action_space(agent).sample(mask=...)`` returns
0 for an all-zero mask.  ``inactive_actions="require_none"`` refuses any value but ``None`` for a waiting agent
with :class:`uno_env.OrderError` (acting out of turn), for code that means to send actions only to the agent to
act.

Everything else is the AEC environment's (``self.aec``, a :class:`uno_env.raw_env`), stepped through its public
API: observations (``flat_obs=True``: the float32 vector alone, the mask in ``infos[agent]["action_mask"]``),
rewards (each step's reward of every agent; +1 / -1/(n-1) at the end with the default rewards), ``infos`` (empty
while the game runs, :meth:`uno_env.raw_env.episode_info` once it is over), ``state()``, rendering, seeding
(``reset(seed=s)`` deals what the AEC environment deals for ``s``).  The action of the agent to act is required:
missing, ``None``, not an integer or out of range raises :class:`uno_env.ActionOutOfRangeError`; an illegal one
raises :class:`uno_env.IllegalActionError` with ``illegal_action="raise"``, and with ``"terminate"`` (the
default, as ``uno_env.env()``) ends the game with -1 for the offender and a warning.  Errors leave the state as it
was.  When the game ends every agent is terminated (truncated at ``max_turns``) in that step and ``agents``
becomes empty; ``step()`` then raises :class:`uno_env.OrderError` until ``reset()``.

PettingZoo's converters do not fit: ``aec_to_parallel`` needs every agent to act once per cycle in a fixed order
(a reverse or a skip breaks it), and ``turn_based_aec_to_parallel`` ignores the waiting agents' actions unchecked,
returns four values instead of five once the game is over and writes ``"active_agent"`` into the AEC environment's
own info dicts.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import ParallelEnv

from ._exact_copy import ExactCopy
from .aec import ActionOutOfRangeError, OrderError, raw_env
from .core.game import GameMetadata
from .yaml_io import short_repr

__all__ = ["UnoParallelEnv", "parallel_env"]

INACTIVE_ACTIONS = ("ignore", "require_none")


class UnoParallelEnv(ExactCopy, GameMetadata, ParallelEnv, EzPickle):
    """UNO as a PettingZoo Parallel environment (see the module docstring)."""

    def __init__(self, game: str = "classic", num_players: int | None = None, rules: Any = None,
                 render_mode: str | None = None, illegal_action: str = "terminate", flat_obs: bool = False,
                 inactive_actions: str = "ignore"):
        EzPickle.__init__(self, game, num_players, rules, render_mode, illegal_action, flat_obs, inactive_actions)
        if inactive_actions not in INACTIVE_ACTIONS:
            raise ValueError(f"inactive_actions must be 'ignore' or 'require_none'; got {short_repr(inactive_actions)}")
        self.inactive_actions = inactive_actions
        self.aec = raw_env(game, num_players=num_players, rules=rules, render_mode=render_mode,
                           illegal_action=illegal_action, flat_obs=flat_obs)
        self.flat_obs = bool(flat_obs)  # checked by the AEC environment
        self.game, self.rules, self.render_mode = self.aec.game, self.aec.rules, render_mode
        self.metadata = dict(self.aec.metadata, is_parallelizable=True)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = dict(self.aec.observation_spaces)
        self.action_spaces = dict(self.aec.action_spaces)
        self.state_space = self.aec.state_space
        self._has_reset = False

    # -- copies (``_exact_copy.ExactCopy``): the constructor again, then the AEC environment's state dict -----
    def _copy_init(self) -> dict[str, Any]:
        return {"game": self.game.name, "rules": self.rules.to_dict(), "render_mode": self.render_mode,
                "illegal_action": self.aec.illegal_action, "flat_obs": self.flat_obs,
                "inactive_actions": self.inactive_actions}

    def _copy_state(self) -> dict[str, Any] | None:
        return self.aec.state_dict() if self._has_reset else None

    def _load_copy_state(self, state: Any) -> None:
        if state is not None:
            if not isinstance(state, Mapping) or "format" not in state:
                raise ValueError(f"a copy of a Parallel env: expected its state dict, got {short_repr(state)}")
            self.aec.load_state_dict(state)
            self.agents, self._has_reset = list(self.aec.agents), True

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The AEC environment's observation space of ``agent`` (the same object at every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """``Discrete(A)``, the same object at every call."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal a new game (``seed`` as in the AEC environment); returns ``(observations, infos)`` of every agent."""
        self.aec.reset(seed=seed, options=options)
        self._has_reset = True
        self.agents = list(self.aec.agents)
        return ({agent: self.aec.observe(agent) for agent in self.agents},
                {agent: dict(self.aec.infos[agent]) for agent in self.agents})

    def step(self, actions: Mapping[str, Any]):
        """Play the action of the agent to act; returns ``(observations, rewards, terminations, truncations,
        infos)`` of every agent that was live before the step (see the module docstring for what the waiting agents'
        entries may be and what raises)."""
        action = self._checked_action(actions)
        aec = self.aec
        aec.step(action)
        live = self.agents
        rewards = {agent: float(aec.rewards[agent]) for agent in live}
        terminations = {agent: bool(aec.terminations[agent]) for agent in live}
        truncations = {agent: bool(aec.truncations[agent]) for agent in live}
        infos = {agent: dict(aec.infos[agent]) for agent in live}
        observations = {agent: aec.observe(agent) for agent in live}
        while aec.agents:  # the game is over: the AEC environment removes its agents one None step at a time
            agent = aec.agent_selection
            if not (aec.terminations[agent] or aec.truncations[agent]):
                break
            aec.step(None)
        self.agents = list(aec.agents)
        return observations, rewards, terminations, truncations, infos

    def _checked_action(self, actions: Any) -> int:
        """The action of the agent to act, after checking every entry of ``actions`` (nothing is played yet)."""
        if not self._has_reset:
            raise OrderError("reset() needs to be called before step()")
        if not self.agents:
            raise OrderError("the game is over and every agent has been removed; call reset()")
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict of agent -> action; got {type(actions).__name__}")
        acting = self.aec.agent_selection
        for agent, value in actions.items():
            if agent not in self.agents:
                raise KeyError(f"actions: unknown agent {short_repr(agent)}; the agents are {', '.join(self.agents)}")
            if agent == acting or value is None:
                continue
            if self.inactive_actions == "require_none":
                raise OrderError(f"actions: {agent} is not to act ({acting} is), so its action must be None or left "
                                 f"out (inactive_actions='require_none'); got {short_repr(value)}")
            self._in_range(agent, value)
        if actions.get(acting) is None:
            raise ActionOutOfRangeError(f"actions: {acting} is to act and needs an action in [0, "
                                        f"{self.game.num_actions}); got {short_repr(actions.get(acting))}")
        return self._in_range(acting, actions[acting])

    def _in_range(self, agent: str, value: Any) -> int:
        try:
            return self.aec.check_action(value)
        except ActionOutOfRangeError as exc:
            raise ActionOutOfRangeError(f"actions[{agent!r}]: {exc}") from None

    def action_mask(self, agent: str) -> np.ndarray:
        """The legal-action mask of ``agent`` now (int8, A; all zeros unless ``agent`` is to act)."""
        return self.aec.action_mask(agent)

    def state(self) -> np.ndarray:
        """The full state as a float32 vector (hidden cards included), for centralised critics: the AEC env's."""
        return self.aec.state()

    def render(self) -> str | np.ndarray | None:
        """As the AEC environment's ``render()``."""
        return self.aec.render()

    def close(self) -> None:
        """Nothing to release; here for the PettingZoo API."""
        self.aec.close()


def parallel_env(game: str = "classic", num_players: int | None = None, rules: Any = None,
                 render_mode: str | None = None, illegal_action: str = "terminate", flat_obs: bool = False,
                 inactive_actions: str = "ignore") -> UnoParallelEnv:
    """UNO as a PettingZoo Parallel environment (see :mod:`uno_env.parallel`)."""
    return UnoParallelEnv(game, num_players=num_players, rules=rules, render_mode=render_mode,
                          illegal_action=illegal_action, flat_obs=flat_obs, inactive_actions=inactive_actions)
