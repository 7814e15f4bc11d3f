"""Our AEC environment as an RLlib ``MultiAgentEnv``: RLlib's PettingZoo wrapper plus the fixes it needs.

``UnoMultiAgentEnv(config)`` builds ``uno_env.env(game, num_players, rules)`` (the PettingZoo AEC env with the
standard illegal-move handling) and drives it through RLlib's own ``PettingZooEnv`` wrapper, which turns the AEC
turn order into multi-agent steps: ``reset()`` and ``step({acting_agent: action})`` return the observation of
the agent whose turn it is next, only; when the game ends every seat gets its last observation, its reward and
``terminated`` (or ``truncated``) in one step, and ``"__all__"`` becomes true.  Rewards come only at the end of a
game (the AEC env's cumulative reward of each seat), so nothing is lost between a seat's turns.

On top of that wrapper this adapter

* renames and retypes the observation for RLlib's action-masking convention:
  ``{"observation": float32 (D,), "action_mask": int8 (A,)}`` -> ``{"observations": float32 (D,),
  "action_mask": float32 (A,)}`` (the mask is all zero for seats that are not acting, e.g. at the end);
* declares the per-agent spaces accordingly (``observation_spaces`` / ``action_spaces``, what the new API
  stack's ``MultiAgentEnvRunner`` reads); ``agents`` is every seat (nobody leaves a game of UNO early);
* fixes ``render()``: the wrapper calls ``env.render(render_mode)``, but an AEC env's ``render()`` takes no
  argument; here it returns the AEC env's text (``render_mode="ansi"``) or prints it (``"human"``).

``config`` (RLlib's ``env_config``) keys: ``game`` ("classic" | "pocket" | "dice"), ``num_players``, ``rules``
(None, a preset name, a dict of options or a YAML path), ``render_mode`` (None | "ansi" | "human").
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.utils.typing import MultiAgentDict

import uno_env
from uno_env.config import make_rules
from uno_env.core.game import Game

from .config import RllibTrainConfig

__all__ = ["UnoMultiAgentEnv", "convert_obs", "ENV_CONFIG_KEYS", "env_config", "probe_game"]

ENV_CONFIG_KEYS = ("game", "num_players", "rules", "render_mode")


def convert_obs(obs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """AEC observation dict -> the masking module's ``{"observations", "action_mask"}`` (both float32)."""
    return {"observations": np.asarray(obs["observation"], dtype=np.float32),
            "action_mask": np.asarray(obs["action_mask"], dtype=np.float32)}


class UnoMultiAgentEnv(MultiAgentEnv):
    """UNO (classic, pocket or dice) for RLlib's new API stack; see the module docstring.

    Every seat has the same spaces, ``seat_observation_space`` (the ``{"observations", "action_mask"}`` dict) and
    ``seat_action_space``: what an RLModule spec for any seat takes.
    """

    def __init__(self, config: Mapping[str, Any] | None = None):
        super().__init__()
        cfg = dict(config or {})
        unknown = set(cfg) - set(ENV_CONFIG_KEYS)
        if unknown:
            raise ValueError(f"unknown env_config keys {sorted(unknown)}; known: {', '.join(ENV_CONFIG_KEYS)}")
        self.aec = uno_env.env(cfg.get("game", "classic"), num_players=cfg.get("num_players"),
                               rules=cfg.get("rules"), render_mode=cfg.get("render_mode"))
        self.render_mode = cfg.get("render_mode")
        # RLlib's PettingZoo wrapper (it resets the AEC env once to read the agents)
        self.pz = PettingZooEnv(self.aec)
        self.game = self.aec.unwrapped.game
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        inner = self.aec.observation_space(self.possible_agents[0])["observation"]
        n = self.game.num_actions
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(inner.low, inner.high, inner.shape, np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32),
        })
        action: gym.spaces.Discrete = gym.spaces.Discrete(n)
        self.seat_observation_space, self.seat_action_space = space, action
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: action for a in self.possible_agents}
        self.observation_space = gym.spaces.Dict({a: space for a in self.aec.possible_agents})
        self.action_space = gym.spaces.Dict({a: action for a in self.aec.possible_agents})

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Reset the game; returns the first seat's observation and the infos (RLlib's ``MultiAgentEnv.reset``)."""
        obs, infos = self.pz.reset(seed=seed, options=options)
        return {a: convert_obs(o) for a, o in obs.items()}, dict(infos or {})

    def step(self, action_dict: MultiAgentDict):
        """Step the seat to act with its entry of ``action_dict`` (RLlib's ``MultiAgentEnv.step``)."""
        acting = self.aec.agent_selection
        if acting not in action_dict:
            raise ValueError(f"it is {acting}'s turn, but the actions given are for {sorted(map(str, action_dict))}")
        obs, rew, terminated, truncated, infos = self.pz.step({acting: int(action_dict[acting])})
        return ({a: convert_obs(o) for a, o in obs.items()}, {a: float(r) for a, r in rew.items()},
                terminated, truncated, infos)

    def render(self):
        """The table as text (``render_mode="ansi"``), printed for ``"human"``; the wrapper's own is broken."""
        if self.render_mode is None:
            return None
        return self.aec.render()

    def close(self):
        """Close the wrapped PettingZoo env."""
        self.pz.close()

    @property
    def unwrapped_aec(self):
        """The underlying PettingZoo AEC env (``uno_env.aec.raw_env``)."""
        return self.aec.unwrapped


def env_config(cfg: RllibTrainConfig) -> dict[str, Any]:
    """The ``env_config`` RLlib hands to :class:`UnoMultiAgentEnv`: game, number of players and rules."""
    return {"game": cfg.env.game, "num_players": cfg.env.num_players, "rules": cfg.env.rules}


def probe_game(env_cfg: dict) -> Game:
    """The compiled game that ``env_cfg`` describes (for its observation and action sizes)."""
    return Game(make_rules(env_cfg["game"], env_cfg["num_players"], env_cfg["rules"]))
