"""A policy trained with Ray RLlib (``uno-env train-rllib``), played from its checkpoint as an agent.

This is the inference side of the RLlib integration, so that loading a checkpoint needs nothing from
``uno_env.training`` (imports run one way: core <- shells <- agents <- training):

* :class:`MaskedActorCriticModule`: the action-masking actor-critic (a ``TorchRLModule`` implementing
  ``ValueFunctionAPI``) that ``uno-env train-rllib`` trains.  It reads the RLlib adapter's observation
  ``{"observations": float32 (D,), "action_mask": float32 (A,)}``, applies ``symlog`` to the counts,
  optionally feeds the mask to the network, and pushes illegal actions' logits to ``FLOAT_MIN`` so they are
  never sampled.  The policy and value networks are separate MLPs; the value network is dropped from the
  inference-only copies that the EnvRunners hold.
* :func:`load_rllib_agent`: a checkpoint as an agent (``act`` / ``act_batch``).  RLlib checkpoints unpickle
  Python objects, so :func:`uno_env.agents.registry.load_agent` loads one only with ``allow_pickle=True``;
  ``uno-env train-rllib`` also writes the pickle-free ``policy.npz`` that loads by default.

Importing this module imports torch and ray (the ``rllib`` extra).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from .base import BaseAgent, NoLegalActionError, split_observation

__all__ = ["MaskedActorCriticModule", "RllibPolicyAgent", "load_rllib_agent", "is_rllib_checkpoint",
           "find_module_dir", "METADATA_FILE", "DEFAULT_MODEL_CONFIG"]

#: written by ``training.rllib_train`` into each algorithm checkpoint: game, players, rules, module ids
METADATA_FILE = "uno_env_rllib.json"

DEFAULT_MODEL_CONFIG: dict[str, Any] = {
    "hiddens": [256, 256],
    "activation": "tanh",  # tanh | relu
    "obs_transform": "symlog",  # symlog | none
    "include_mask": True,  # also feed the legal-action mask to the networks
}

_ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def _mlp(in_dim: int, hiddens: list[int], out_dim: int, activation: str, out_gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    d = in_dim
    for h in hiddens:
        lin = nn.Linear(d, h)
        nn.init.orthogonal_(lin.weight, gain=float(np.sqrt(2.0)))
        nn.init.zeros_(lin.bias)
        layers += [lin, _ACTIVATIONS[activation]()]
        d = h
    out = nn.Linear(d, out_dim)
    nn.init.orthogonal_(out.weight, gain=out_gain)
    nn.init.zeros_(out.bias)
    layers.append(out)
    return nn.Sequential(*layers)


def _split_obs_space(space: gym.Space | None) -> tuple[int, int]:
    obs_shape = mask_shape = None
    if isinstance(space, gym.spaces.Dict) and "observations" in space.spaces and "action_mask" in space.spaces:
        obs_shape, mask_shape = space["observations"].shape, space["action_mask"].shape
    if not obs_shape or not mask_shape:
        raise ValueError(
            "the uno-env RLModules need the adapter's observation space "
            "Dict({'observations': Box(D,), 'action_mask': Box(A,)}) (training.rllib_adapter.UnoMultiAgentEnv); "
            f"got {space}"
        )
    return int(obs_shape[0]), int(mask_shape[0])


class MaskedActorCriticModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """Actor-critic with action masking for PPO on the adapter's ``{"observations", "action_mask"}`` dict.

    ``model_config`` keys (defaults in :data:`DEFAULT_MODEL_CONFIG`): ``hiddens`` (layer widths of both MLPs),
    ``activation`` (``tanh`` | ``relu``), ``obs_transform`` (``symlog`` | ``none``), ``include_mask`` (bool).
    """

    def setup(self):
        """Build the policy and value networks from ``model_config`` (invalid keys are a ValueError)."""
        cfg = dict(DEFAULT_MODEL_CONFIG)
        cfg.update({k: v for k, v in (self.model_config or {}).items() if k in DEFAULT_MODEL_CONFIG})
        # (RLlib merges its own DefaultModelConfig keys, e.g. fcnet_hiddens, into model_config: they are ignored)
        if cfg["activation"] not in _ACTIVATIONS:
            raise ValueError(
                f"model_config activation must be one of {sorted(_ACTIVATIONS)}, got {cfg['activation']!r}")
        if cfg["obs_transform"] not in ("symlog", "none"):
            raise ValueError(f"model_config obs_transform must be 'symlog' or 'none', got {cfg['obs_transform']!r}")
        self.obs_dim, self.num_actions = _split_obs_space(self.observation_space)
        if int(self.action_space.n) != self.num_actions:
            raise ValueError(f"action space has {self.action_space.n} actions but the mask has {self.num_actions}")
        self._symlog = cfg["obs_transform"] == "symlog"
        self._include_mask = bool(cfg["include_mask"])
        in_dim = self.obs_dim + (self.num_actions if self._include_mask else 0)
        hiddens = [int(h) for h in cfg["hiddens"]]
        self.pi = _mlp(in_dim, hiddens, self.num_actions, cfg["activation"], out_gain=0.01)
        if not self.inference_only:
            self.vf = _mlp(in_dim, hiddens, 1, cfg["activation"], out_gain=1.0)

    # -- helpers ---------------------------------------------------------------------------------------
    def _features(self, obs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        x = obs["observations"].float()
        mask = obs["action_mask"].float()
        if self._symlog:
            x = torch.sign(x) * torch.log1p(torch.abs(x))
        if self._include_mask:
            x = torch.cat([x, mask], dim=-1)
        return x, mask

    @staticmethod
    def _mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # illegal actions get FLOAT_MIN (finite: a row with no legal action, e.g. a terminal observation, gives a
        # uniform distribution instead of NaNs; such rows are never acted on)
        return torch.where(mask > 0.5, logits, torch.full_like(logits, FLOAT_MIN))

    # -- RLModule API ----------------------------------------------------------------------------------
    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        x, mask = self._features(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: self._mask_logits(self.pi(x), mask)}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        x, mask = self._features(batch[Columns.OBS])
        # the features double as "embeddings", so compute_values needs no second pass over the input transform
        return {Columns.ACTION_DIST_INPUTS: self._mask_logits(self.pi(x), mask), Columns.EMBEDDINGS: x}

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> torch.Tensor:
        """The value estimate of every observation in ``batch``."""
        if embeddings is None:
            embeddings, _ = self._features(batch[Columns.OBS])
        return self.vf(embeddings).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        """The value network, which EnvRunners' inference-only copies leave out."""
        return ["vf"]


# --------------------------------------------------------------------------------------------------------
# checkpoints as arena agents


def is_rllib_checkpoint(path: str | os.PathLike) -> bool:
    """True if ``path`` is a directory that :func:`load_rllib_agent` can load (an algorithm checkpoint written
    by ``uno-env train-rllib``, a run directory holding one under ``final/``, or a single RLModule directory)."""
    try:
        find_module_dir(path)
        return True
    except (FileNotFoundError, ValueError):
        return False


def _read_metadata(d: Path) -> dict:
    f = d / METADATA_FILE
    if f.is_file():
        with open(f, encoding="utf-8") as fh:
            return json.load(fh)
    return {}


def find_module_dir(path: str | os.PathLike, module_id: str | None = None) -> tuple[Path, dict]:
    """The RLModule directory inside an RLlib checkpoint, and the uno-env metadata found next to it.

    ``path`` may be an algorithm checkpoint (``rllib_checkpoint.json`` + ``learner_group/``), a run directory
    of ``uno-env train-rllib`` (its ``final/`` checkpoint, else the newest under ``checkpoints/``), or the
    directory of one RLModule (``class_and_ctor_args.pkl``).
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such RLlib checkpoint: {str(p)!r}")
    if not p.is_dir():
        raise ValueError(f"{str(p)!r} is a file; an RLlib checkpoint is a directory")
    if not (p / "rllib_checkpoint.json").is_file() and not (p / "module_state.pkl").is_file():
        if (p / "final" / "rllib_checkpoint.json").is_file():
            p = p / "final"
        elif (p / "checkpoints").is_dir():
            cands = sorted(q for q in (p / "checkpoints").iterdir() if (q / "rllib_checkpoint.json").is_file())
            if cands:
                p = cands[-1]
    if (p / "rllib_checkpoint.json").is_file():  # an algorithm checkpoint
        meta = _read_metadata(p)
        root = p / "learner_group" / "learner" / "rl_module"
    elif (p / "module_state.pkl").is_file() and (p / "class_and_ctor_args.pkl").is_file():
        meta = {}
        # <ckpt>/learner_group/learner/rl_module[/<id>]: metadata lives in <ckpt>
        for up in p.parents:
            meta = _read_metadata(up)
            if meta or (up / "rllib_checkpoint.json").is_file():
                break
        mid = module_id or meta.get("module_id", "main")
        if not (p / mid / "module_state.pkl").is_file():  # one RLModule's directory
            return p, meta
        root = p  # a MultiRLModule's directory
    else:
        raise ValueError(f"{str(p)!r} is not an RLlib checkpoint (no rllib_checkpoint.json, no RLModule state)")
    mid = module_id or meta.get("module_id", "main")
    mdir = root / mid
    if not (mdir / "class_and_ctor_args.pkl").is_file():
        have = sorted(q.name for q in root.iterdir() if q.is_dir()) if root.is_dir() else []
        raise ValueError(f"RLlib checkpoint {str(p)!r} has no RLModule {mid!r}" + (f" (it has {have})" if have else ""))
    return mdir, meta


class RllibPolicyAgent(BaseAgent):
    """A trained :class:`MaskedActorCriticModule` playing as an :class:`~agents.base.Agent`.

    Deterministic (the most likely legal action) by default; ``deterministic=False`` samples from the masked
    policy with the agent's own seeded generator.  Built from a checkpoint path it pickles as that path (the
    module is reloaded lazily in the process that uses it), so the arena can ship it to worker processes.
    """

    name = "rllib"

    def __init__(self, game: Any, seed: int | None = None, *, path: str | None = None,
                 module: RLModule | None = None, module_id: str | None = None, deterministic: bool = True):
        super().__init__(game, seed)
        if (path is None) == (module is None):
            raise TypeError("RllibPolicyAgent needs exactly one of path= or module=")
        self.path = None if path is None else str(path)
        self.module_id = module_id
        self.deterministic = deterministic
        self._module = module
        self._pid = os.getpid()
        if path is not None:
            self.name = f"rllib:{Path(path).name}"
            self._load()
        else:
            self._check_spaces(self.module)

    def _check_spaces(self, module: RLModule) -> None:
        d, a = _split_obs_space(module.observation_space)
        if d != self.game.obs_dim or a != self.num_actions:
            raise ValueError(
                f"RLlib policy {self.path or '(in memory)'} expects ({d},) observations and {a} actions, but game "
                f"{self.game.name!r} with {self.game.num_players} players gives ({self.game.obs_dim},) and "
                f"{self.num_actions}"
            )

    def _forked_guard(self) -> None:
        # In a process forked from the one that built this agent (the arena's workers), torch's thread pool,
        # if the parent used one, deadlocks the first parallel op: act single-threaded there (one game per
        # worker process is the arena's parallelism anyway).
        if os.getpid() != self._pid:
            torch.set_num_threads(1)
            self._pid = os.getpid()

    def _load(self) -> RLModule:
        if self.path is None:  # only an agent built from a checkpoint drops its module (when pickled)
            raise RuntimeError("RllibPolicyAgent: no checkpoint path to load the RLModule from")
        self._forked_guard()
        mdir, _ = find_module_dir(self.path, self.module_id)
        module = RLModule.from_checkpoint(str(mdir.resolve()))  # RLlib wants an absolute path (or a URI)
        if isinstance(module, nn.Module):
            module.eval()
        self._check_spaces(module)
        self._module = module
        return module

    def __getstate__(self):
        d = dict(self.__dict__)
        if self.path is not None:
            d["_module"] = None
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)

    @property
    def module(self) -> RLModule:
        """The policy's RLModule (loaded from the checkpoint on first use)."""
        return self._module if self._module is not None else self._load()

    def action_logits(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Masked logits, float32 (B, A)."""
        self._forked_guard()
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        mask = torch.as_tensor(np.asarray(action_masks, dtype=np.float32))
        with torch.no_grad():
            out = self.module.forward_inference({Columns.OBS: {"observations": obs, "action_mask": mask}})
        return out[Columns.ACTION_DIST_INPUTS].cpu().numpy()

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The policy's actions for a batch, illegal actions masked out."""
        masks = np.asarray(action_masks) != 0
        logits = self.action_logits(observations, masks)
        logits = np.where(masks, logits, -np.inf)
        if self.deterministic:
            out = np.argmax(logits, axis=1)
        else:
            z = logits - logits.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            u = self.rng.random(p.shape[0])[:, None]
            out = np.minimum((np.cumsum(p, axis=1) < u).sum(axis=1), p.shape[1] - 1)
        out = np.asarray(out, dtype=np.int64)
        out[~masks.any(axis=1)] = 0
        return out

    def act(self, observation: Any, action_mask: np.ndarray | None = None) -> int:
        """The policy's action for one seat's ``observation`` and legal ``action_mask``."""
        obs, mask = split_observation(observation, action_mask)
        self._check_mask(mask)
        if not np.any(mask):
            raise NoLegalActionError(f"{self.name}: no legal action (all-zero mask)")
        return int(self.act_batch(obs[None, :], mask[None, :])[0])


def load_rllib_agent(checkpoint_path: str | os.PathLike, game: Any, seed: int | None = None, *,
                     module_id: str | None = None, deterministic: bool = True) -> RllibPolicyAgent:
    """A trained RLlib policy as an arena agent.

    ``checkpoint_path``: an algorithm checkpoint of ``uno-env train-rllib`` (``runs/NAME/final`` or
    ``runs/NAME/checkpoints/iter_000010``), the run directory itself, or one RLModule's directory.
    ``game``: a Game, game name, RuleConfig or environment (as for ``agents.registry.load_agent``); its
    observation size and action count must match the policy's.  ``module_id``: default the trained one
    (``main``).
    """
    return RllibPolicyAgent(game, seed, path=os.fspath(checkpoint_path), module_id=module_id,
                            deterministic=deterministic)
