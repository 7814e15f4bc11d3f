"""``uno-env train-rllib``: multi-agent PPO with Ray RLlib (new API stack) on the same UNO environments.

    uno-env train-rllib                                   # the packaged config rllib_classic
    uno-env train-rllib --config rllib_classic --num-env-runners 8 --num-envs-per-env-runner 16
    RAY_ADDRESS=auto uno-env train-rllib --config ...            # or: ray job submit --working-dir . -- uno-env ...

Single-machine Stable-Baselines3 (``uno-env train``) is the default way to train; this is how the same training
scales from one machine to a Ray cluster.  The script reads top to bottom:

1. **Config**: a packaged config's name or a YAML path + ``--set section.key=value`` overrides into
   :class:`training.config.RllibTrainConfig` (the config system of ``uno-env train`` too), checked before Ray
   starts (unknown keys, types and ranges, the rules, ``runs_dir``).
2. **Ray**: ``ray.init()`` on this machine, or the cluster at ``ray.address`` / ``$RAY_ADDRESS`` (what
   ``ray job submit`` sets).
3. **Environment**: :class:`training.rllib_adapter.UnoMultiAgentEnv`, our AEC env through RLlib's PettingZoo
   wrapper, with the observation renamed for the masking module and ``render()`` fixed.
4. **Modules** (a ``MultiRLModule``): ``main``, the one learning policy (:class:`MaskedActorCriticModule`);
   ``snapshot_<k>``, frozen copies of ``main`` for self-play; ``baseline_<name>``, frozen baselines from
   ``agents/`` (:class:`BaselineRLModule`).  Only ``main`` is trained.
5. **Seats**: :class:`SeatMapping` maps each seat to a module per episode: one seat is always ``main``; every
   other seat is drawn from the opponent pool of ``uno-env train`` (:class:`training.pool.OpponentPool`): a
   snapshot (probability ``opponents.selfplay_prob``, once there is one), a baseline
   (``opponents.baseline_prob``) or ``main`` too.  ``baseline_prob: 0`` and ``selfplay_prob: 0`` is one shared
   policy for every seat; ``baseline_prob: 1`` is the learner against frozen baselines.
6. **Self-play**: :class:`SelfPlayCallback` copies ``main``'s weights into the next snapshot slot every
   ``opponents.snapshot_every`` iterations (from ``opponents.selfplay_start`` on) and logs ``main``'s win rate
   against each kind of opponent.
7. **Evaluation**: every ``evaluation.every`` iterations RLlib calls :func:`arena_evaluation`, which plays the
   arena (``training.arena.against_baselines``, as ``uno-env train`` does) with the current ``main`` against
   each baseline; the win rates land
   in the result under ``evaluation/arena`` and in ``progress.jsonl``.
8. **Checkpoints**: ``checkpoints/iter_<N>/`` every ``checkpoint_every`` iterations and ``final/`` at the end
   (RLlib algorithm checkpoints plus ``uno_env_rllib.json``); ``--restore PATH --trust-pickle`` continues from
   one (restoring unpickles the checkpoint, so it needs the opt-in), and
   ``uno-env evaluate runs/NAME/final random`` plays the trained policy from the pickle-free ``policy.npz``
   written into every checkpoint (:func:`export_policy`); the RLlib checkpoint itself loads only when trusted
   (``--trust-pickle``, :func:`uno_env.agents.rllib_policy.load_rllib_agent`).

Run directory ``runs/<name>/``: ``config.yaml`` (resolved), ``progress.jsonl`` (one line per iteration),
``checkpoints/``, ``final/``.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import shutil
import sys
import time
import zlib
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from ray.rllib.callbacks.callbacks import RLlibCallback

from .config import ConfigError, RllibTrainConfig, load_rllib_config
from .pool import SELF, OpponentPool
from .pool import SNAPSHOT_PREFIX as POOL_SNAPSHOT

__all__ = ["RllibTrainConfig", "load_rllib_config", "build_algorithm_config", "SeatMapping", "SelfPlayCallback",
           "arena_evaluation", "train", "add_arguments", "run", "MAIN", "SNAPSHOT_PREFIX", "BASELINE_PREFIX",
           "RestoreError", "check_restore", "restore_checkpoint"]

MAIN = "main"
SNAPSHOT_PREFIX = "snapshot_"
BASELINE_PREFIX = "baseline_"


# =============================================================================================
# 1. config: training.config.RllibTrainConfig (the one config system of both trainers)


def env_config(cfg: RllibTrainConfig) -> dict[str, Any]:
    """The ``env_config`` RLlib hands to :class:`UnoMultiAgentEnv`: game, number of players and rules."""
    return {"game": cfg.env.game, "num_players": cfg.env.num_players, "rules": cfg.env.rules}


# =============================================================================================
# 5. seats -> modules


class SeatMapping:
    """RLlib's ``policy_mapping_fn``: which module plays each seat (agent) of an episode.

    The anchor seat, drawn per episode from the episode id, is always ``main``, so every episode trains it from
    a seat that changes from game to game.  Every other seat is drawn from the opponent pool
    (:class:`training.pool.OpponentPool`, the same pool ``uno-env train`` uses): a snapshot with probability
    ``selfplay_prob`` (only once a snapshot has been taken), a baseline with probability ``baseline_prob``
    (weighted by ``baselines``), else ``main``.  The snapshots are ``pool_size`` module slots overwritten in
    turn; ``snapshots_taken`` is set by :class:`SelfPlayCallback` on every EnvRunner's copy of this object.  The
    draws are not seeded (RLlib's episode ids are random, so a multi-process RLlib run is not bit-reproducible
    anyway); the games themselves are seeded through ``seed``.
    """

    def __init__(self, num_players: int, baselines: dict[str, float], baseline_prob: float, selfplay_prob: float,
                 pool_size: int, latest_prob: float):
        self.num_players = num_players
        self.pool = OpponentPool(baselines, selfplay_prob=selfplay_prob, latest_prob=latest_prob,
                                 pool_size=pool_size, baseline_prob=baseline_prob)
        self.pool.rng = None  # each process draws from its own fresh generator
        self.pool.selfplay_active = True  # snapshots are drawn as soon as one exists
        self.baseline_ids = [BASELINE_PREFIX + n for n in self.pool.baseline_names]
        self._taken = 0

    @property
    def pool_size(self) -> int:
        """Number of self-play snapshot slots."""
        return self.pool.pool_size

    @property
    def selfplay_prob(self) -> float:
        """Probability that a non-learner seat plays a self-play snapshot."""
        return self.pool.selfplay_prob

    @property
    def baseline_prob(self) -> float:
        """Probability that a non-learner seat plays a baseline."""
        return float(self.pool.baseline_prob or 0.0)

    @property
    def snapshots_taken(self) -> int:
        """Snapshots of ``main`` taken so far; setting it lists the filled slots, oldest first."""
        return self._taken

    @snapshots_taken.setter
    def snapshots_taken(self, n: int) -> None:
        # slot k holds snapshot number k, k + pool_size, ...: list the filled slots oldest first
        self._taken = int(n)
        size = self.pool.pool_size
        filled = min(self._taken, size)
        slots = [(self._taken - filled + j) % size for j in range(filled)]
        self.pool.snapshots = [{"name": f"{SNAPSHOT_PREFIX}{k}", "path": f"{SNAPSHOT_PREFIX}{k}", "step": 0}
                               for k in slots]

    def module_ids(self) -> list[str]:
        """Every RLModule id this mapping can return: ``main``, the snapshot slots and the baselines in use."""
        ids = [MAIN]
        if self.selfplay_prob > 0:
            ids += [f"{SNAPSHOT_PREFIX}{k}" for k in range(self.pool_size)]
        if self.baseline_prob > 0:
            ids += list(self.baseline_ids)
        return ids

    def __getstate__(self):
        d = dict(self.__dict__)
        pool = d["pool"] = OpponentPool.__new__(OpponentPool)
        pool.__dict__.update(self.pool.__dict__, rng=None)  # each process draws from its own fresh generator
        return d

    def anchor_seat(self, episode_id: str) -> int:
        """The seat ``main`` plays in episode ``episode_id`` (the same in every process)."""
        return zlib.crc32(str(episode_id).encode()) % self.num_players

    def __call__(self, agent_id: Hashable, episode: Any = None, **kwargs: Any) -> str:
        seat = int(str(agent_id).rsplit("_", 1)[-1])
        if episode is None or seat == self.anchor_seat(getattr(episode, "id_", "")):
            return MAIN
        spec = self.pool.draw()
        if spec == SELF:
            return MAIN
        if spec.startswith(POOL_SNAPSHOT):
            return spec[len(POOL_SNAPSHOT):]
        return BASELINE_PREFIX + spec


# =============================================================================================
# 6. self-play snapshots and win-rate logging


def _opponent_kind(module_id: str) -> str:
    if module_id.startswith(SNAPSHOT_PREFIX):
        return "snapshot"
    if module_id.startswith(BASELINE_PREFIX):
        return module_id[len(BASELINE_PREFIX):]
    return module_id


def _set_snapshots_taken(env_runner, n: int) -> None:
    fn = env_runner.config.policy_mapping_fn
    if isinstance(fn, SeatMapping):
        fn.snapshots_taken = n


class SelfPlayCallback(RLlibCallback):
    """Every ``snapshot_every`` iterations (from ``selfplay_start`` on) copy ``main``'s weights into the next
    snapshot slot, on the Learner (so checkpoints hold it) and on every EnvRunner, and tell the EnvRunners'
    :class:`SeatMapping` how many snapshots exist.  At each episode end, log ``main``'s win rate against the
    kind of opponent it met (``win_rate_vs_<kind>``: ``snapshot``, a baseline name, or ``mixed``; episodes
    with ``main`` in every seat are not counted).  RLlib reduces it per iteration: with a few dozen games per
    iteration it is noisy; the arena evaluation is the measurement to trust."""

    def __init__(self, selfplay_start: int = 10, snapshot_every: int = 10, pool_size: int = 4,
                 enabled: bool = True):
        super().__init__()
        self.selfplay_start = selfplay_start
        self.snapshot_every = snapshot_every
        self.pool_size = pool_size
        self.enabled = enabled

    # -- EnvRunner side ---------------------------------------------------------------------------
    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        """Log ``main``'s win against each kind of opponent it met in the episode."""
        if metrics_logger is None or not episode.is_terminated:
            return
        try:
            mains, others, won = [], set(), False
            for aid, sa in episode.agent_episodes.items():
                mid = episode.module_for(aid)
                if mid == MAIN:
                    mains.append(aid)
                    if len(sa) and float(sa.get_rewards(-1)) > 0:
                        won = True
                else:
                    others.add(_opponent_kind(mid))
        except Exception:  # pragma: no cover - logging must never break sampling
            return
        if not mains or not others:  # pure self-play: main wins every game, nothing to log
            return
        kind = "mixed" if len(others) > 1 else others.pop()
        metrics_logger.log_value(f"win_rate_vs_{kind}", float(won), reduce="mean", window=200)

    # -- driver side ------------------------------------------------------------------------------
    def on_train_result(self, *, algorithm, metrics_logger=None, result, **kwargs) -> None:
        """Take a self-play snapshot of ``main`` when it is due and report the pool in ``result``."""
        mapping = algorithm.config.policy_mapping_fn
        if not self.enabled or not isinstance(mapping, SeatMapping):
            return
        it = algorithm.iteration
        if it >= self.selfplay_start and (it - self.selfplay_start) % self.snapshot_every == 0:
            take_snapshot(algorithm)
        result["selfplay"] = {"snapshots_taken": mapping.snapshots_taken,
                              "pool_filled": min(mapping.snapshots_taken, mapping.pool_size)}


def take_snapshot(algorithm) -> str:
    """Copy ``main``'s weights into the next snapshot slot (Learner and EnvRunners); returns the slot's id."""
    mapping: SeatMapping = algorithm.config.policy_mapping_fn
    slot = f"{SNAPSHOT_PREFIX}{mapping.snapshots_taken % mapping.pool_size}"
    weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    algorithm.learner_group.set_state({"learner": {"rl_module": {slot: weights}}})
    algorithm.env_runner_group.sync_weights(from_worker_or_learner_group=algorithm.learner_group, policies=[slot],
                                            inference_only=True)
    set_snapshots_taken(algorithm, mapping.snapshots_taken + 1)
    return slot


def set_snapshots_taken(algorithm, n: int) -> None:
    """Set the snapshot count on the driver's SeatMapping and on every EnvRunner's copy."""
    mapping = algorithm.config.policy_mapping_fn
    if isinstance(mapping, SeatMapping):
        mapping.snapshots_taken = n
    algorithm.env_runner_group.foreach_env_runner(functools.partial(_set_snapshots_taken, n=n))


# =============================================================================================
# 7. arena evaluation


def main_agent(algorithm, env_cfg: dict, model_config: dict, deterministic: bool = True):
    """The current ``main`` policy (weights from the Learner) as an arena agent."""
    from .rllib_adapter import UnoMultiAgentEnv
    from .rllib_module import MaskedActorCriticModule, RllibPolicyAgent

    cache = algorithm.__dict__.setdefault("_uno_eval_module", {})
    module = cache.get(MAIN)
    if module is None:
        probe = UnoMultiAgentEnv(env_cfg)
        module = cache[MAIN] = MaskedActorCriticModule(observation_space=probe.seat_observation_space,
                                                       action_space=probe.seat_action_space,
                                                       model_config=dict(model_config))
        module.eval()
    module.set_state(algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN])
    return RllibPolicyAgent(probe_game(env_cfg), path=None, module=module, deterministic=deterministic)


def play_arena(agent, opponents: list[str], env_cfg: dict, games: int, seed: int, workers: int = 1,
               confidence: float = 0.95, duplicate: bool = False) -> dict[str, Any]:
    """``agent`` against each baseline in the arena (``training.arena.against_baselines``, the evaluation
    ``uno-env train`` runs too): ``{"win_rate_vs_<name>": x, "win_rate_vs_<name>_ci95": [lo, hi], ...}``."""
    from .evaluate import against_baselines

    rows = against_baselines(agent, opponents, env_cfg["game"], env_cfg["num_players"], env_cfg["rules"], games,
                             seed, workers=workers, confidence=confidence, duplicate=duplicate)
    out: dict[str, Any] = {}
    steps = 0
    for r in rows:
        out[f"win_rate_vs_{r['opponent']}"] = r["win_rate"]
        out[f"win_rate_vs_{r['opponent']}_ci95"] = [r["ci_low"], r["ci_high"]]
        steps += int(r["mean_length"] * r["games"])
    out["games_per_opponent"] = games
    out["decisions"] = steps
    return out


def arena_evaluation(algorithm, eval_env_runner_group=None, *, settings: dict) -> tuple[dict, int, int]:
    """RLlib's ``custom_evaluation_function``: the arena's win rates of ``main`` against the baselines.

    On the new API stack RLlib reads evaluation results from the Algorithm's MetricsLogger, so they are logged
    there, under ``evaluation/env_runners/arena/`` (scalars: ``win_rate_vs_<name>``, ``..._ci95_low/high``,
    ``games_per_opponent``, ``seconds``, ``iteration``).
    """
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, EVALUATION_RESULTS
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    agent = main_agent(algorithm, settings["env"], settings["model_config"], settings["deterministic"])
    t = time.time()
    res = play_arena(agent, settings["opponents"], settings["env"], settings["games"],
                     settings["seed"] + int(algorithm.iteration), workers=settings["workers"],
                     confidence=settings["confidence"], duplicate=settings["duplicate"])
    steps = int(res.pop("decisions"))
    flat: dict[str, float] = {"seconds": time.time() - t, "iteration": float(algorithm.iteration + 1)}
    for k, v in res.items():
        if isinstance(v, (list, tuple)):
            flat[k + "_low"], flat[k + "_high"] = float(v[0]), float(v[1])
        else:
            flat[k] = float(v)
    # log as an EnvRunner would, then merge into the Algorithm's logger where RLlib collects evaluation results
    ml = MetricsLogger()
    for k, v in flat.items():
        ml.log_value(("arena", k), v, reduce="mean", window=1)
    algorithm.metrics.aggregate([ml.reduce()], key=(EVALUATION_RESULTS, ENV_RUNNER_RESULTS))
    return {"arena": flat}, steps, steps


def probe_game(env_cfg: dict):
    """The compiled game that ``env_cfg`` describes (for its observation and action sizes)."""
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    return Game(make_rules(env_cfg["game"], env_cfg["num_players"], env_cfg["rules"]))


# =============================================================================================
# 3.-7. the RLlib config


def build_algorithm_config(cfg: RllibTrainConfig):
    """The ``PPOConfig`` of a run (new API stack)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib_adapter import UnoMultiAgentEnv
    from .rllib_module import BaselineRLModule, MaskedActorCriticModule

    envc = env_config(cfg)
    probe = UnoMultiAgentEnv(envc)
    obs_space, act_space = probe.seat_observation_space, probe.seat_action_space
    probe.close()
    opp = cfg.opponents
    mapping = SeatMapping(cfg.env.num_players, opp.baselines, opp.baseline_prob, opp.selfplay_prob, opp.pool_size,
                          opp.latest_prob)
    model_config = dataclasses.asdict(cfg.module)
    specs = {}
    for mid in mapping.module_ids():
        if mid.startswith(BASELINE_PREFIX):
            specs[mid] = RLModuleSpec(module_class=BaselineRLModule, observation_space=obs_space,
                                      action_space=act_space,
                                      model_config=dict(envc, agent=mid[len(BASELINE_PREFIX):], seed=None))
        else:
            specs[mid] = RLModuleSpec(module_class=MaskedActorCriticModule, observation_space=obs_space,
                                      action_space=act_space, model_config=model_config)
    res = cfg.resources
    ev = cfg.evaluation
    settings = {"env": envc, "model_config": model_config, "opponents": list(ev.opponents), "games": ev.games,
                "seed": ev.seed, "deterministic": ev.deterministic, "workers": ev.workers,
                "confidence": ev.confidence, "duplicate": ev.duplicate}
    config = (
        PPOConfig()
        .environment(UnoMultiAgentEnv, env_config=envc, disable_env_checking=True)
        .env_runners(
            num_env_runners=res.num_env_runners,
            num_envs_per_env_runner=res.num_envs_per_env_runner,
            # RLlib annotates an int, but Ray schedules fractional CPUs, which the config allows (e.g. 0.5)
            num_cpus_per_env_runner=res.num_cpus_per_env_runner,  # type: ignore[arg-type]
            rollout_fragment_length=res.rollout_fragment_length,
        )
        .learners(
            num_learners=res.num_learners,
            num_cpus_per_learner=res.num_cpus_per_learner if res.num_learners else 1,
            num_gpus_per_learner=res.num_gpus_per_learner,
        )
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            lr=cfg.ppo.lr,
            gamma=cfg.ppo.gamma,
            lambda_=cfg.ppo.lambda_,
            train_batch_size_per_learner=cfg.ppo.train_batch_size_per_learner,
            minibatch_size=cfg.ppo.minibatch_size,
            num_epochs=cfg.ppo.num_epochs,
            clip_param=cfg.ppo.clip_param,
            vf_clip_param=cfg.ppo.vf_clip_param,
            entropy_coeff=cfg.ppo.entropy_coeff,
            vf_loss_coeff=cfg.ppo.vf_loss_coeff,
            use_kl_loss=cfg.ppo.use_kl_loss,
            grad_clip=cfg.ppo.grad_clip,
        )
        # RLlib annotates a class but calls any callable that builds the callback (it checks callable()): a
        # partial binds the self-play settings
        .callbacks(functools.partial(SelfPlayCallback, selfplay_start=opp.selfplay_start,  # type: ignore[arg-type]
                                     snapshot_every=opp.snapshot_every, pool_size=opp.pool_size,
                                     enabled=opp.selfplay_prob > 0))
        .evaluation(
            evaluation_interval=ev.every or None,
            custom_evaluation_function=functools.partial(arena_evaluation, settings=settings),
        )
        .debugging(seed=cfg.seed)
    )
    return config


# =============================================================================================
# 8. checkpoints


def _write_metadata(path: Path, cfg: RllibTrainConfig, algorithm) -> None:
    from .rllib_module import METADATA_FILE

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
    from uno_env.agents.policy import PolicyWeights, save_policy_files

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
    from .rllib_module import METADATA_FILE

    p = checkpoint_dir(path)
    algorithm.restore_from_path(str(p.resolve()))
    meta_file = p / METADATA_FILE
    if meta_file.is_file():
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        set_snapshots_taken(algorithm, int(meta.get("snapshots_taken", 0)))
        # every module (snapshots included) is restored on the Learner; push all of them to the EnvRunners
        algorithm.env_runner_group.sync_weights(from_worker_or_learner_group=algorithm.learner_group,
                                                inference_only=True)


def _prune(ckpt_dir: Path, keep: int) -> None:
    old = sorted(q for q in ckpt_dir.iterdir() if q.is_dir() and q.name.startswith("iter_")
                 and not q.name.endswith(".tmp"))
    for q in old[:-keep]:
        shutil.rmtree(q, ignore_errors=True)


# =============================================================================================
# the loop


def _get(d: dict, *keys: str, default: Any = None) -> Any:
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d


def summarize(result: dict) -> dict[str, Any]:
    """The numbers worth a line per iteration (plain floats; None when RLlib did not report them)."""
    er = result.get("env_runners", {}) or {}
    sampled = _get(er, "num_env_steps_sampled")
    sample_s = _get(result, "timers", "env_runner_sampling_timer")
    learn_s = _get(result, "timers", "learner_update_timer")
    out = {
        "iteration": result.get("training_iteration"),
        "env_steps": sampled,
        "env_steps_lifetime": _get(er, "num_env_steps_sampled_lifetime"),
        "episodes": _get(er, "num_episodes"),
        "episode_len_mean": _get(er, "episode_len_mean"),
        "sample_s": sample_s,
        "learn_s": learn_s,
        "sample_steps_per_s": (sampled / sample_s) if sampled and sample_s else None,
        "win_rates": {k[len("win_rate_vs_"):]: v for k, v in er.items() if k.startswith("win_rate_vs_")},
        "policy_loss": _get(result, "learners", MAIN, "policy_loss"),
        "vf_loss": _get(result, "learners", MAIN, "vf_loss"),
        "entropy": _get(result, "learners", MAIN, "entropy"),
        "selfplay": result.get("selfplay"),
        "arena": _get(result, "evaluation", "env_runners", "arena"),
    }
    return {k: (float(v) if isinstance(v, (np.floating, np.integer)) else v) for k, v in out.items()}


def _fmt_line(s: dict) -> str:
    def f(x, spec=".3g"):
        return "-" if x is None else format(x, spec)

    parts = [f"iter {s['iteration']}", f"steps {f(s['env_steps'], '.0f')} ({f(s['env_steps_lifetime'], '.0f')})",
             f"sample {f(s['sample_steps_per_s'], '.0f')} steps/s", f"learn {f(s['learn_s'], '.2f')}s",
             f"ep_len {f(s['episode_len_mean'], '.0f')}"]
    if s["win_rates"]:
        shown = {k: v for k, v in s["win_rates"].items() if v == v}  # NaN: no such episode in the window
        if shown:
            parts.append("train win vs " + " ".join(f"{k}={v:.2f}" for k, v in sorted(shown.items())))
    if s["arena"] and s["arena"].get("iteration") == s["iteration"]:
        parts.append("ARENA " + " ".join(f"{k[len('win_rate_vs_'):]}={v:.3f}" for k, v in s["arena"].items()
                                         if k.startswith("win_rate_vs_") and "_ci95" not in k))
    return " | ".join(parts)


def _init_ray(cfg: RllibTrainConfig) -> None:
    import ray

    if ray.is_initialized():
        return
    address = cfg.ray.address or os.environ.get("RAY_ADDRESS") or None
    kwargs: dict[str, Any] = {"log_to_driver": cfg.ray.log_to_driver, "ignore_reinit_error": True}
    if address is None:
        kwargs["include_dashboard"] = False
    ray.init(address=address, **kwargs)


def train(cfg: RllibTrainConfig, run_dir: Path, restore: str | None = None, log=print,
          trust_pickle: bool = False) -> dict[str, Any]:
    """Train until a stop limit; returns the last summary plus the final checkpoint path and final arena.

    ``restore``: a checkpoint to continue from, which is unpickled: it needs ``trust_pickle=True``.
    """
    import torch

    if restore:
        check_restore(restore, trust_pickle)
    if cfg.resources.torch_threads:
        torch.set_num_threads(cfg.resources.torch_threads)
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / "config.yaml", "w", encoding="utf-8") as fh:
        yaml.safe_dump(dataclasses.asdict(cfg), fh, sort_keys=False)
    algo = build_algorithm_config(cfg).build_algo()
    try:
        if restore:
            restore_checkpoint(algo, restore)
            log(f"restored {restore} at iteration {algo.iteration}")
        ckpt_dir = run_dir / "checkpoints"
        t0 = time.time()
        summary: dict[str, Any] = {}
        with open(run_dir / "progress.jsonl", "a", encoding="utf-8") as progress:
            while True:
                result = algo.train()
                summary = summarize(result)
                summary["time_s"] = time.time() - t0
                progress.write(json.dumps(summary, default=float) + "\n")
                progress.flush()
                log(_fmt_line(summary))
                it = int(algo.iteration)
                if cfg.checkpoint_every and it % cfg.checkpoint_every == 0:
                    save_checkpoint(algo, cfg, ckpt_dir / f"iter_{it:06d}")
                    _prune(ckpt_dir, cfg.keep_checkpoints)
                st = cfg.stop
                if ((st.iterations and it >= st.iterations)
                        or (st.env_steps and (summary["env_steps_lifetime"] or 0) >= st.env_steps)
                        or (st.time_s and time.time() - t0 >= st.time_s)):
                    break
        final = save_checkpoint(algo, cfg, run_dir / "final")
        log(f"final checkpoint: {final}")
        ev = cfg.evaluation
        envc = env_config(cfg)
        agent = main_agent(algo, envc, dataclasses.asdict(cfg.module), ev.deterministic)
        arena = play_arena(agent, list(ev.opponents), envc, ev.final_games, ev.seed, workers=ev.final_workers,
                           confidence=ev.confidence, duplicate=ev.duplicate)
        arena.pop("decisions", None)
        with open(run_dir / "final_arena.json", "w", encoding="utf-8") as fh:
            json.dump(arena, fh, indent=2)
        log("final arena: " + " ".join(f"{k[len('win_rate_vs_'):]}={v:.3f}" for k, v in arena.items()
                                       if k.startswith("win_rate_vs_") and not k.endswith("_ci95")))
        summary.update(final_checkpoint=str(final), final_arena=arena)
        return summary
    finally:
        algo.stop()


def _sample_steps(env_runner, num_timesteps: int) -> int:
    return int(sum(e.env_steps() for e in env_runner.sample(num_timesteps=num_timesteps)))


def measure_sampling(cfg: RllibTrainConfig, env_steps: int, log=print) -> dict[str, Any]:
    """Sampling throughput (env steps/s, wall clock) of the configured EnvRunners: each samples
    ``env_steps / runners`` steps with the exploring policy, after a warm-up call; no learning."""
    import torch

    if cfg.resources.torch_threads:
        torch.set_num_threads(cfg.resources.torch_threads)
    algo = build_algorithm_config(cfg).build_algo()
    try:
        group = algo.env_runner_group
        remote = group.num_remote_env_runners() > 0
        runners = max(group.num_remote_env_runners(), 1)
        per = max(1, env_steps // runners)

        def once(k: int) -> int:
            return sum(group.foreach_env_runner(functools.partial(_sample_steps, num_timesteps=k),
                                                local_env_runner=not remote))

        once(min(per, 1000))  # warm-up: actors up, first episodes and compiled paths done
        t = time.perf_counter()
        steps = once(per)
        dt = time.perf_counter() - t
    finally:
        algo.stop()
    out = {"env_runners": cfg.resources.num_env_runners, "envs_per_env_runner": cfg.resources.num_envs_per_env_runner,
           "env_steps": steps, "seconds": dt, "env_steps_per_s": steps / dt}
    log(f"sampling: {steps} env steps in {dt:.2f}s = {steps / dt:.0f} env steps/s with "
        f"{cfg.resources.num_env_runners} env runner(s) x {cfg.resources.num_envs_per_env_runner} envs")
    return out


# =============================================================================================
# command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env train-rllib``."""
    parser.add_argument("--config", default="rllib_classic", metavar="NAME_OR_YAML",
                        help="training config: a packaged config's name or a YAML path (default: rllib_classic)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config key, e.g. --set ppo.lr=1e-4 (repeatable)")
    parser.add_argument("--name", default=None, help="run name (directory under runs_dir)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--iterations", type=int, default=None, help="stop after this many iterations")
    parser.add_argument("--num-env-runners", type=int, default=None, help="EnvRunner actors (0 = in the driver)")
    parser.add_argument("--num-envs-per-env-runner", type=int, default=None, help="environments per EnvRunner")
    parser.add_argument("--num-learners", type=int, default=None, help="Learner actors (0 = in the driver)")
    parser.add_argument("--address", default=None, help="Ray cluster address ('auto' = the running cluster)")
    parser.add_argument("--restore", default=None, metavar="CHECKPOINT",
                        help="continue from a checkpoint (an iter_N or final directory, or a run directory); needs "
                             "--trust-pickle")
    parser.add_argument("--trust-pickle", action="store_true",
                        help="allow --restore: restoring an RLlib checkpoint unpickles it, so a crafted checkpoint "
                             "runs code; use only for checkpoints you trust")
    parser.add_argument("--measure-sampling", type=int, default=None, metavar="ENV_STEPS",
                        help="only measure the EnvRunners' sampling throughput over this many env steps, then exit")


def run(args: argparse.Namespace) -> int:
    """``uno-env train-rllib``: build the RLlib algorithm from the config and train it; returns the exit status."""
    try:
        cfg = load_rllib_config(args.config, args.overrides, **{
            "name": args.name, "seed": args.seed, "stop.iterations": args.iterations,
            "resources.num_env_runners": args.num_env_runners,
            "resources.num_envs_per_env_runner": args.num_envs_per_env_runner,
            "resources.num_learners": args.num_learners, "ray.address": args.address,
        })
    except ConfigError as exc:
        print(f"uno-env train-rllib: config error: {exc}", file=sys.stderr)
        return 2
    if args.restore is not None:
        try:
            check_restore(args.restore, args.trust_pickle)
        except RestoreError as exc:
            print(f"uno-env train-rllib: error: {exc}", file=sys.stderr)
            return 2
    _init_ray(cfg)
    if args.measure_sampling:
        print(json.dumps(measure_sampling(cfg, args.measure_sampling)))
        return 0
    run_dir = Path(cfg.runs_dir) / cfg.name
    summary = train(cfg, run_dir, restore=args.restore, trust_pickle=args.trust_pickle)
    print(json.dumps({k: summary.get(k) for k in ("iteration", "env_steps_lifetime", "final_checkpoint")}))
    return 0
