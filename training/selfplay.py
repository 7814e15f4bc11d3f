"""Self-play: the policy network's input layer, frozen snapshots of the learner, and the opponent pool.

* :class:`UnoFeatures` is the network's input (an SB3 features extractor over the Dict observation): the
  observation vector through ``symlog`` (counts of up to ~100 cards become 0..5), optionally followed by the
  legal-action mask.  The action distribution is always masked by MaskablePPO whatever the input.
* :func:`export_policy` turns a (Maskable) actor-critic policy into plain numpy weights, and
  :class:`SnapshotAgent` plays them with numpy alone (no torch): a frozen copy of the learner that an
  environment can hold as an opponent, that pickles into worker processes, and that acts in a few microseconds.
  It follows the :class:`agents.base.Agent` contract (``act``, ``act_batch``, ``reset``).
* :class:`OpponentPool` draws, for each episode and each other seat, a baseline or a snapshot with the
  configured probabilities; its state (snapshot list, random stream) is saved in checkpoints.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from uno_env.agents.base import split_observation
from uno_env.agents.registry import load_agent

__all__ = ["UnoFeatures", "PolicyWeights", "export_policy", "save_weights", "load_weights", "SnapshotAgent", "OpponentPool",
           "make_baseline", "make_opponent"]

SNAPSHOT_PREFIX = "snapshot:"


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
            obs_dim = int(np.prod(observation_space["observation"].shape))
            mask_dim = int(np.prod(observation_space["action_mask"].shape)) if include_mask else 0
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
# numpy weights of a policy


@dataclass
class PolicyWeights:
    """The actor of an MLP policy as numpy arrays: input transform, hidden layers, logits layer."""

    weights: list[np.ndarray]  # (out, in) per layer, the last one gives the logits
    biases: list[np.ndarray]
    activation: str  # "tanh" | "relu"
    obs_transform: str  # "symlog" | "none"
    include_mask: bool

    @property
    def obs_dim(self) -> int:
        """The observation length the network takes (the mask excluded)."""
        return self.weights[0].shape[1] - (self.num_actions if self.include_mask else 0)

    @property
    def num_actions(self) -> int:
        """The number of logits, A."""
        return self.weights[-1].shape[0]

    def logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The action logits (B, A) of observations (B, D) with legal masks (B, A), in numpy."""
        x = np.asarray(obs, dtype=np.float32)
        if self.obs_transform == "symlog":
            x = np.sign(x) * np.log1p(np.abs(x))
        if self.include_mask:
            x = np.concatenate([x, np.asarray(masks, dtype=np.float32)], axis=1)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w.T + b
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0, out=x)
        return x


def export_policy(policy: Any) -> PolicyWeights:
    """The numpy actor of an SB3 (Maskable)ActorCriticPolicy built with :class:`UnoFeatures` (or a flatten)."""
    import torch.nn as nn

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


def save_weights(pw: PolicyWeights, path: str, meta: Mapping[str, Any] | None = None) -> None:
    """Write ``pw`` as an ``.npz`` (``W0, b0, ... W{n}, b{n}`` and a JSON ``meta`` string)."""
    arrays = {}
    for i, (w, b) in enumerate(zip(pw.weights, pw.biases)):
        arrays[f"W{i}"] = w
        arrays[f"b{i}"] = b
    info = {"activation": pw.activation, "obs_transform": pw.obs_transform, "include_mask": pw.include_mask,
            "layers": len(pw.weights), **(meta or {})}
    tmp = path + ".tmp.npz"
    np.savez(tmp, meta=np.array(json.dumps(info)), **arrays)
    os.replace(tmp, path)


def load_weights(path: str) -> tuple[PolicyWeights, dict[str, Any]]:
    """Read a snapshot written by :func:`save_weights` (no pickle): the weights and their metadata."""
    with np.load(path, allow_pickle=False) as z:
        info = json.loads(str(z["meta"]))
        n = int(info["layers"])
        ws = [z[f"W{i}"].astype(np.float32) for i in range(n)]
        bs = [z[f"b{i}"].astype(np.float32) for i in range(n)]
    return PolicyWeights(ws, bs, info["activation"], info["obs_transform"], bool(info["include_mask"])), info


# ---------------------------------------------------------------------------------------------
# a frozen policy as an agent


class SnapshotAgent:
    """A frozen policy played with numpy: ``act``/``act_batch``/``reset`` like the agents in ``agents``.

    ``deterministic`` takes the most likely legal action; otherwise it samples from the masked softmax (Gumbel
    trick, one seeded stream).  Build it from :class:`PolicyWeights` or load one with :meth:`load` (an ``.npz``
    written by :func:`save_weights`).
    """

    def __init__(self, weights: PolicyWeights, name: str = "snapshot", deterministic: bool = False,
                 seed: int | None = None):
        self.weights = weights
        self.name = name
        self.deterministic = deterministic
        self.num_actions = weights.num_actions
        self._seed = seed
        self.rng = np.random.default_rng(seed)

    @classmethod
    def load(cls, path: str, name: str | None = None, deterministic: bool = False,
             seed: int | None = None) -> "SnapshotAgent":
        """An agent from a snapshot file written by :func:`save_weights`."""
        pw, info = load_weights(path)
        return cls(pw, name=name or info.get("name") or os.path.basename(path), deterministic=deterministic,
                   seed=seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's sampling stream (``None``: fresh entropy)."""
        self._seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The policy's action for one seat's ``observation`` and legal ``action_mask``."""
        observation, action_mask = split_observation(observation, action_mask)
        obs = np.asarray(observation, dtype=np.float32)[None, :]
        mask = action_mask[None, :]
        if not mask.any():
            raise ValueError(f"{self.name}: no legal action (all-zero mask)")
        return int(self.act_batch(obs, mask)[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The policy's actions for a batch: sampled (Gumbel-max) or, if deterministic, the argmax of the legal logits.
        """
        masks = np.asarray(action_masks) != 0
        logits = self.weights.logits(observations, masks)
        if not self.deterministic:
            u = self.rng.random(logits.shape, dtype=np.float32)
            logits = logits - np.log(-np.log(np.clip(u, 1e-12, 1.0 - 1e-7)))
        logits[~masks] = -np.inf
        return np.argmax(logits, axis=1).astype(np.int64)

    def __repr__(self) -> str:
        return f"SnapshotAgent(name={self.name!r}, deterministic={self.deterministic})"


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


class OpponentPool:
    """Baselines plus frozen snapshots of the learner; draws an opponent spec per seat per episode.

    Before self-play starts (or while no snapshot exists) every draw is a baseline, by ``baselines`` weights.
    After that a draw is a snapshot with probability ``selfplay_prob`` (the newest with ``latest_prob``, else
    uniform over the pool) and a baseline otherwise, so the baselines stay in the mix.
    """

    def __init__(self, baselines: Mapping[str, float], selfplay_prob: float = 0.5, latest_prob: float = 0.5,
                 pool_size: int = 8, seed: int | None = None):
        names = [n for n, w in baselines.items() if w > 0]
        if not names:
            raise ValueError("the opponent pool needs at least one baseline with a positive weight")
        self.baseline_names = names
        w = np.array([baselines[n] for n in names], dtype=np.float64)
        self.baseline_probs = w / w.sum()
        self.selfplay_prob = float(selfplay_prob)
        self.latest_prob = float(latest_prob)
        self.pool_size = int(pool_size)
        self.snapshots: list[dict[str, Any]] = []  # {"name", "path", "step"}, oldest first
        self.selfplay_active = False
        self.rng = np.random.default_rng(seed)

    # -- pool -----------------------------------------------------------------------------------
    def add_snapshot(self, path: str, step: int, name: str | None = None) -> list[str]:
        """Add a snapshot file; returns the paths that left the pool (the caller may delete them)."""
        self.snapshots.append({"name": name or f"snapshot_{step}", "path": os.path.abspath(path), "step": int(step)})
        dropped = []
        while len(self.snapshots) > self.pool_size:
            dropped.append(self.snapshots.pop(0)["path"])
        return dropped

    def specs(self) -> list[str]:
        """Agent specs of every pool member: baseline names and ``snapshot:`` paths."""
        return list(self.baseline_names) + [SNAPSHOT_PREFIX + s["path"] for s in self.snapshots]

    # -- drawing --------------------------------------------------------------------------------
    def sample(self, n: int = 1) -> list[str]:
        """``n`` opponent specs (one per other seat)."""
        out = []
        for _ in range(n):
            if self.selfplay_active and self.snapshots and self.rng.random() < self.selfplay_prob:
                if self.rng.random() < self.latest_prob:
                    snap = self.snapshots[-1]
                else:
                    snap = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
                out.append(SNAPSHOT_PREFIX + snap["path"])
            else:
                out.append(self.baseline_names[int(self.rng.choice(len(self.baseline_names), p=self.baseline_probs))])
        return out

    def probabilities(self) -> dict[str, float]:
        """The chance of each opponent for one seat now (for logs and the report)."""
        probs: dict[str, float] = {}
        p_snap = self.selfplay_prob if (self.selfplay_active and self.snapshots) else 0.0
        for name, p in zip(self.baseline_names, self.baseline_probs):
            probs[name] = (1.0 - p_snap) * float(p)
        if p_snap:
            k = len(self.snapshots)
            for i, s in enumerate(self.snapshots):
                p = (1.0 - self.latest_prob) / k + (self.latest_prob if i == k - 1 else 0.0)
                probs[s["name"]] = p_snap * p
        return probs

    # -- checkpointing --------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The pool as plain data (snapshots, self-play flag, PRNG state) for a checkpoint."""
        return {"snapshots": [dict(s) for s in self.snapshots], "selfplay_active": self.selfplay_active,
                "rng": self.rng.bit_generator.state}

    def load_state_dict(self, d: Mapping[str, Any]) -> None:
        """Restore the pool from :meth:`state_dict` output."""
        self.snapshots = [dict(s) for s in d["snapshots"]]
        self.selfplay_active = bool(d["selfplay_active"])
        self.rng.bit_generator.state = d["rng"]
