"""Self-play: the policy network's input layer, frozen snapshots of the learner, and the opponent pool.

* :class:`UnoFeatures` is the network's input (an SB3 features extractor over the Dict observation): the
  observation vector through ``symlog`` (counts of up to ~100 cards become 0..5), optionally followed by the
  legal-action mask.  The action distribution is always masked by MaskablePPO whatever the input.
* :func:`export_policy` turns a (Maskable) actor-critic policy into plain numpy weights, and
  :class:`SnapshotAgent` plays them with numpy alone (no torch): a frozen copy of the learner that an
  environment can hold as an opponent, that pickles into worker processes, and that acts in a few microseconds.
  It follows the :class:`agents.base.Agent` contract (``act``, ``act_batch``, ``reset``).
* :func:`make_opponent` turns an opponent spec drawn from the pool (:mod:`training.pool`) into an agent.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from uno_env.agents.policy import NumpyPolicyAgent, PolicyWeights, load_weights, save_weights
from uno_env.agents.registry import load_agent

from .pool import SNAPSHOT_PREFIX, OpponentPool  # noqa: F401  (re-exported: the pool lives in training.pool)

__all__ = ["UnoFeatures", "PolicyWeights", "export_policy", "save_weights", "load_weights", "SnapshotAgent",
           "OpponentPool",
           "make_baseline", "make_opponent"]



# ---------------------------------------------------------------------------------------------
# the network's input layer (torch; only defined where torch and stable-baselines3 are installed)

try:  # pragma: no branch
    import torch as th
    from gymnasium import spaces as _spaces
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class UnoFeatures(BaseFeaturesExtractor):
        """``symlog(observation)`` (or the raw vector) followed by the action mask (if ``include_mask``)."""

        def __init__(self, observation_space: _spaces.Dict, obs_transform: str = "symlog",
                     include_mask: bool = True):
            obs_dim = _spaces.flatdim(observation_space["observation"])
            mask_dim = _spaces.flatdim(observation_space["action_mask"]) if include_mask else 0
            super().__init__(observation_space, features_dim=obs_dim + mask_dim)
            if obs_transform not in ("symlog", "none"):
                raise ValueError(f"obs_transform must be 'symlog' or 'none', got {obs_transform!r}")
            self.obs_transform = obs_transform
            self.include_mask = include_mask

        def forward(self, observations: dict[str, th.Tensor]) -> th.Tensor:
            x = observations["observation"].float()
            if self.obs_transform == "symlog":
                x = th.sign(x) * th.log1p(th.abs(x))
            if self.include_mask:
                x = th.cat([x, observations["action_mask"].float()], dim=1)
            return x
except ImportError:  # numpy-only installs can still play snapshots
    UnoFeatures = None  # type: ignore[assignment,misc]


# ---------------------------------------------------------------------------------------------
# numpy weights of a policy (the format and the numpy player live in uno_env.agents.policy)


def export_policy(policy: Any) -> PolicyWeights:
    """The numpy actor of an SB3 (Maskable)ActorCriticPolicy built with :class:`UnoFeatures` (or a flatten)."""
    import torch.nn as nn  # torch (the train extra): only an SB3 policy, which brings it, is exported here

    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    acts = {type(m).__name__ for m in policy.mlp_extractor.policy_net if not isinstance(m, nn.Linear)}
    if acts - {"Tanh", "ReLU"} or len(acts) > 1:
        raise ValueError(f"export_policy supports Tanh or ReLU MLPs, got {sorted(acts)}")
    activation = "relu" if acts == {"ReLU"} else "tanh"
    fe = policy.features_extractor
    obs_transform = getattr(fe, "obs_transform", "none")
    include_mask = bool(getattr(fe, "include_mask", False))
    with th.no_grad():
        ws = [m.weight.detach().cpu().numpy().astype(np.float32).copy() for m in layers + [policy.action_net]]
        bs = [m.bias.detach().cpu().numpy().astype(np.float32).copy() for m in layers + [policy.action_net]]
    return PolicyWeights(ws, bs, activation, obs_transform, include_mask)


#: a frozen snapshot of the learner is the numpy policy agent of ``uno_env.agents.policy``
SnapshotAgent = NumpyPolicyAgent


# ---------------------------------------------------------------------------------------------
# opponents


def make_baseline(name: str, game: Any, seed: int | None = None) -> Any:
    """A baseline agent by name (``agents.registry.load_agent``)."""
    return load_agent(name, game, seed)


def make_opponent(spec: str, game: Any, seed: int | None = None, deterministic: bool = False) -> Any:
    """An agent for an opponent spec: a baseline name or ``snapshot:<path to .npz>``."""
    if spec.startswith(SNAPSHOT_PREFIX):
        path = spec[len(SNAPSHOT_PREFIX):]
        return SnapshotAgent.load(path, name=os.path.splitext(os.path.basename(path))[0],
                                  deterministic=deterministic, seed=seed)
    return make_baseline(spec, game, seed)
