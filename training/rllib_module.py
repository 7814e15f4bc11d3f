"""RLlib RLModules used while training with ``uno-env train-rllib``.

* :class:`~uno_env.agents.rllib_policy.MaskedActorCriticModule` (the learner's module) lives with the agent that
  plays trained checkpoints, in :mod:`uno_env.agents.rllib_policy`, so loading a policy never imports
  training code; it is re-exported here, and checkpoints written before the move still load through this name.
* :class:`BaselineRLModule`: a frozen, parameter-free RLModule that plays one of ``agents/``' baselines
  (``random``, ``greedy``, ``heuristic``) on the EnvRunners, so "learners against frozen baselines" is only a
  question of which ModuleID a seat maps to.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule

from uno_env.agents.registry import load_agent
from uno_env.agents.rllib_policy import (  # noqa: F401  (re-exported)
    DEFAULT_MODEL_CONFIG,
    METADATA_FILE,
    MaskedActorCriticModule,
    RllibPolicyAgent,
    _split_obs_space,
    find_module_dir,
    is_rllib_checkpoint,
    load_rllib_agent,
)
from uno_env.config import make_rules
from uno_env.core.game import Game

__all__ = ["MaskedActorCriticModule", "BaselineRLModule", "RllibPolicyAgent", "load_rllib_agent",
           "is_rllib_checkpoint", "find_module_dir", "METADATA_FILE", "DEFAULT_MODEL_CONFIG"]

class BaselineRLModule(RLModule):
    """A frozen RLModule that plays a baseline from ``agents/`` (never trained: keep it out of
    ``policies_to_train``).  It is a plain ``RLModule`` (no torch parameters), so the Learner builds no optimizer
    for it and computes no values for it.

    ``model_config``: ``agent`` (a name ``agents.registry.load_agent`` knows), ``game``, ``num_players``,
    ``rules`` (as for ``uno_env.env``), ``seed`` (optional).
    """

    framework = "torch"

    def setup(self):
        """Load the baseline agent named in ``model_config`` for the game it describes."""
        cfg = dict(self.model_config or {})
        self.obs_dim, self.num_actions = _split_obs_space(self.observation_space)
        game = Game(make_rules(cfg.get("game", "classic"), cfg.get("num_players"), cfg.get("rules")))
        if game.obs_dim != self.obs_dim or game.num_actions != self.num_actions:
            raise ValueError(f"baseline module: game {game.name!r} gives ({game.obs_dim},) observations and "
                             f"{game.num_actions} actions, the space says ({self.obs_dim},) and {self.num_actions}")
        seed = cfg.get("seed")
        self.agent = load_agent(cfg["agent"], game, seed=None if seed is None else int(seed))

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        x = obs["observations"]
        m = obs["action_mask"]
        x = x.detach().cpu().numpy() if torch.is_tensor(x) else np.asarray(x)
        m = m.detach().cpu().numpy() if torch.is_tensor(m) else np.asarray(m)
        m = (m > 0.5).astype(np.int8)
        actions = np.zeros(x.shape[0], dtype=np.int64)
        live = m.any(axis=1)
        if live.any():
            actions[live] = self.agent.act_batch(x[live].astype(np.float32), m[live])
        return {Columns.ACTIONS: torch.from_numpy(actions)}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        raise NotImplementedError("BaselineRLModule is frozen: leave it out of policies_to_train")

    def compile(self, *args, **kwargs):  # called on TorchRLModules by some code paths; nothing to compile
        """Nothing to compile: the module has no parameters."""
        pass

