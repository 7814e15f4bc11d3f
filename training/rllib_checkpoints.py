"""RLlib checkpoints of ``uno-env train-rllib``: ``checkpoints/iter_<N>/`` and ``final/`` (an RLlib algorithm
checkpoint, ``uno_env_rllib.json`` and the pickle-free ``policy.npz`` of ``main``), and ``--restore``, which
unpickles a checkpoint and so needs ``--trust-pickle``.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from uno_env.agents.policy import PolicyWeights, save_policy_files

from .config import RllibTrainConfig
from .rllib_adapter import env_config, probe_game
from .rllib_module import METADATA_FILE
from .rllib_selfplay import MAIN, set_snapshots_taken

__all__ = ["save_checkpoint", "export_policy", "RestoreError", "checkpoint_dir", "check_restore",
           "restore_checkpoint", "prune_checkpoints"]


def _write_metadata(path: Path, cfg: RllibTrainConfig, algorithm) -> None:
    g = probe_game(env_config(cfg))
    mapping = algorithm.config.policy_mapping_fn
    meta = {
        "format": "uno-env rllib checkpoint 1",
        "module_id": MAIN,
        "game": cfg.env.game,
        "num_players": cfg.env.num_players,
        "rules": g.rules.to_dict(),
        "obs_dim": int(g.obs_dim),
        "num_actions": int(g.num_actions),
        "iteration": int(algorithm.iteration),
        "snapshots_taken": int(getattr(mapping, "snapshots_taken", 0)),
        "name": cfg.name,
    }
    with open(path / METADATA_FILE, "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=2)
        fh.write("\n")


def save_checkpoint(algorithm, cfg: RllibTrainConfig, path: Path) -> Path:
    """An RLlib algorithm checkpoint plus ``uno_env_rllib.json``, written to a temp dir and renamed."""
    tmp = path.with_name(path.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    algorithm.save_to_path(str(tmp.resolve()))
    _write_metadata(tmp, cfg, algorithm)
    export_policy(algorithm, cfg, tmp / "policy.npz")
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    return path


def export_policy(algorithm, cfg: RllibTrainConfig, path: Path) -> Path:
    """``main``'s actor as the pickle-free ``policy.npz`` + ``policy.json`` (``uno_env.agents.policy``), which
    ``uno-env evaluate`` and ``play`` load by default and play with numpy."""
    state = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    # MaskedActorCriticModule.pi is Sequential(Linear, act, ..., Linear): its Linear layers are pi.<i>.weight/bias
    idx = sorted({int(k.split(".")[1]) for k in state if k.startswith("pi.") and k.endswith(".weight")})
    ws = [np.asarray(_to_numpy(state[f"pi.{i}.weight"]), dtype=np.float32) for i in idx]
    bs = [np.asarray(_to_numpy(state[f"pi.{i}.bias"]), dtype=np.float32) for i in idx]
    m = cfg.module
    g = probe_game(env_config(cfg))
    meta = {"algorithm": "ray.rllib PPO (uno_env MaskedActorCriticModule)", "game": cfg.env.game,
            "num_players": cfg.env.num_players, "rules": g.rules.to_dict(), "obs_dim": int(g.obs_dim),
            "num_actions": int(g.num_actions), "iteration": int(algorithm.iteration), "name": cfg.name,
            "seed": cfg.seed}
    save_policy_files(PolicyWeights(ws, bs, m.activation, m.obs_transform, m.include_mask), str(path), meta)
    return path


def _to_numpy(x):
    return x.detach().cpu().numpy() if hasattr(x, "detach") else x


class RestoreError(ValueError):
    """``--restore`` of an RLlib checkpoint without ``--trust-pickle``, or of a path that is not one."""


def checkpoint_dir(path: str | os.PathLike) -> Path:
    """The RLlib algorithm checkpoint ``path`` names (itself, or a run directory's ``final/``); RestoreError (a
    ValueError) naming ``--restore`` if there is none."""
    text = os.fspath(path)
    if "\0" in text:
        raise RestoreError(f"--restore {text!r}: a path cannot hold a NUL character")
    p = Path(text)
    if not p.exists():
        raise RestoreError(f"--restore {text!r}: no such file or directory")
    if (p / "final").is_dir() and not (p / "rllib_checkpoint.json").is_file():
        p = p / "final"
    if not (p / "rllib_checkpoint.json").is_file():
        raise RestoreError(f"--restore {text!r}: not an RLlib algorithm checkpoint (no rllib_checkpoint.json in it "
                           f"or in its final/); give a run's checkpoints/iter_N or final directory")
    return p


def check_restore(path: str | os.PathLike, trust_pickle: bool) -> Path:
    """The checkpoint to restore from, once the caller has opted in: restoring an RLlib checkpoint unpickles its
    files, so a crafted one runs code, and only ``--trust-pickle`` (``trust_pickle=True``) says the file is
    trusted.  Checked before Ray starts."""
    p = checkpoint_dir(path)
    if not trust_pickle:
        raise RestoreError(
            f"--restore {os.fspath(path)!r}: restoring an RLlib checkpoint unpickles Python objects, so a crafted "
            f"checkpoint can run any code; if you trust where it came from (e.g. your own run), pass --trust-pickle")
    return p


def restore_checkpoint(algorithm, path: str | os.PathLike) -> None:
    """Continue from a checkpoint of this script (weights, optimizer, iteration, snapshot count).

    This unpickles the checkpoint (RLlib's ``restore_from_path``): call it only with a checkpoint you trust
    (:func:`check_restore` is the command line's check).
    """
    p = checkpoint_dir(path)
    algorithm.restore_from_path(str(p.resolve()))
    meta_file = p / METADATA_FILE
    if meta_file.is_file():
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        set_snapshots_taken(algorithm, int(meta.get("snapshots_taken", 0)))
        # every module (snapshots included) is restored on the Learner; push all of them to the EnvRunners
        algorithm.env_runner_group.sync_weights(from_worker_or_learner_group=algorithm.learner_group,
                                                inference_only=True)


def prune_checkpoints(ckpt_dir: Path, keep: int) -> None:
    """Remove all but the ``keep`` newest ``iter_<N>`` checkpoints of ``ckpt_dir``."""
    old = sorted(q for q in ckpt_dir.iterdir() if q.is_dir() and q.name.startswith("iter_")
                 and not q.name.endswith(".tmp"))
    for q in old[:-keep]:
        shutil.rmtree(q, ignore_errors=True)
