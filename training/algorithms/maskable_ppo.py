"""``algorithm: maskable_ppo``: sb3-contrib's MaskablePPO (the mask comes from the env's ``action_masks()``).

The policy is an MLP actor-critic over :class:`training.selfplay.UnoFeatures` (``symlog`` of the observation,
optionally followed by the mask); hyperparameters come from the config's ``ppo`` section (SB3's names).
"""
from __future__ import annotations

import os
import pickle
import zipfile

import torch.nn as nn
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import LinearSchedule

from ..checkpoints import TrainError, load_checkpoint_state
from ..config import TrainConfig
from ..envs import make_vec_env
from ..selfplay import UnoFeatures, export_policy

__all__ = ["LABEL", "make_env", "build", "load", "learn", "num_steps", "save", "export"]

LABEL = "sb3_contrib.MaskablePPO"

make_env = make_vec_env


def build(cfg: TrainConfig, venv, run_dir: str):
    """A new sb3-contrib MaskablePPO model for ``cfg`` on the vectorised env ``venv`` (TensorBoard logs in ``run_dir``).
    """
    p = cfg.ppo
    policy_kwargs = {
        "features_extractor_class": UnoFeatures,
        "features_extractor_kwargs": {"obs_transform": cfg.policy.obs_transform,
                                      "include_mask": cfg.policy.include_mask},
        "net_arch": {"pi": list(cfg.policy.net_arch), "vf": list(cfg.policy.net_arch)},
        "activation_fn": nn.Tanh if cfg.policy.activation == "tanh" else nn.ReLU,
    }
    # SB3's schedule classes pickle by name into the saved zip (a local function would not load elsewhere)
    lr = LinearSchedule(p.learning_rate, 0.0, 1.0) if p.lr_schedule == "linear" else p.learning_rate
    return MaskablePPO(
        MaskableMultiInputActorCriticPolicy, venv, learning_rate=lr, n_steps=p.n_steps, batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range, ent_coef=p.ent_coef,
        vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, target_kl=p.target_kl,
        normalize_advantage=p.normalize_advantage, policy_kwargs=policy_kwargs,
        tensorboard_log=_tb(cfg, run_dir), seed=cfg.seed, device=cfg.device, verbose=0)


def load(path: str, cfg: TrainConfig, venv, run_dir: str):
    """The model of the checkpoint whose ``model.zip`` is ``path``, read without unpickling anything.

    ``MaskablePPO.load`` would unpickle the zip's ``data`` entries (cloudpickle: a crafted run directory runs code),
    so the model is built from the config, as a fresh run builds it, and only the tensors are read:
    ``set_parameters`` opens the zip with ``load_data=False`` and loads the policy's and the optimizer's state
    dicts with ``torch.load(weights_only=True)``.  The step count, the one other thing a resume needs from the
    model, comes from the checkpoint's ``state.json``.
    """
    model = build(cfg, venv, run_dir)
    try:
        model.set_parameters(path, exact_match=True, device=model.device)
    except (OSError, ValueError, RuntimeError, KeyError, zipfile.BadZipFile, pickle.UnpicklingError) as e:
        # RuntimeError: tensors of other shapes; UnpicklingError: a .pth that weights_only refuses
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise TrainError(f"cannot load the checkpoint's model {path}: {reason}") from None
    model.num_timesteps = int(load_checkpoint_state(os.path.dirname(path))["step"])
    return model


def _tb(cfg: TrainConfig, run_dir: str) -> str | None:
    return os.path.join(run_dir, "tb") if cfg.tensorboard else None


class RunCallback(BaseCallback):
    """Hands the rollout boundaries (the model is then consistent) and the step count to the run."""

    def __init__(self, run):
        super().__init__(verbose=0)
        self.run = run

    def _on_rollout_start(self) -> None:
        self.run.between_rollouts(self.model, int(self.model.num_timesteps), self.logger.record)

    def _on_step(self) -> bool:
        self.run.advance(self.training_env.num_envs)
        return True


def learn(model, steps: int, run) -> None:
    """Train ``model`` for ``steps`` more environment steps, reporting to the run state ``run`` between rollouts."""
    model.learn(total_timesteps=steps, callback=RunCallback(run), reset_num_timesteps=False, tb_log_name="ppo",
                progress_bar=False)


def num_steps(model) -> int:
    """Environment steps ``model`` has trained on so far."""
    return int(model.num_timesteps)


def save(model, path: str) -> None:
    """Save ``model`` to ``path`` (SB3's zip)."""
    model.save(path)


def export(model):
    """The model's actor as numpy weights (:class:`~uno_env.agents.policy.PolicyWeights`), pickle-free."""
    return export_policy(model.policy)
