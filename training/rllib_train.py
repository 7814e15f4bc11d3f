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
5. **Seats** (``training.rllib_selfplay``): :class:`SeatMapping` maps each seat to a module per episode: one
   seat is always ``main``; every other seat is drawn from the opponent pool of ``uno-env train``
   (:class:`training.pool.OpponentPool`): a snapshot (probability ``opponents.selfplay_prob``, once there is one),
   a baseline (``opponents.baseline_prob``) or ``main`` too.  ``baseline_prob: 0`` and ``selfplay_prob: 0`` is one
   shared policy for every seat; ``baseline_prob: 1`` is the learner against frozen baselines.
6. **Self-play**: :class:`SelfPlayCallback` copies ``main``'s weights into the next snapshot slot every
   ``opponents.snapshot_every`` iterations (from ``opponents.selfplay_start`` on) and logs ``main``'s win rate
   against each kind of opponent.
7. **Evaluation**: every ``evaluation.every`` iterations RLlib calls :func:`arena_evaluation`, which plays the
   arena (``training.arena.against_baselines``, as ``uno-env train`` does) with the current ``main`` against
   each baseline; the win rates land
   in the result under ``evaluation/arena`` and in ``progress.jsonl``.
8. **Checkpoints** (``training.rllib_checkpoints``): ``checkpoints/iter_<N>/`` every ``checkpoint_every``
   iterations and ``final/`` at the end (RLlib algorithm checkpoints plus ``uno_env_rllib.json``); ``--restore PATH
   --trust-pickle`` continues from one (restoring unpickles the checkpoint, so it needs the opt-in), and
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
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch
import yaml
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, EVALUATION_RESULTS
from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

from .arena import against_baselines
from .config import ConfigError, RllibTrainConfig, load_rllib_config
from .rllib_adapter import UnoMultiAgentEnv, env_config, probe_game
from .rllib_checkpoints import (
    RestoreError,
    check_restore,
    checkpoint_dir,
    export_policy,
    prune_checkpoints,
    restore_checkpoint,
    save_checkpoint,
)
from .rllib_module import BaselineRLModule, MaskedActorCriticModule, RllibPolicyAgent
from .rllib_selfplay import (
    BASELINE_PREFIX,
    MAIN,
    SNAPSHOT_PREFIX,
    SeatMapping,
    SelfPlayCallback,
    set_snapshots_taken,
    take_snapshot,
)

# ray.rllib is imported at the top (RLlib's callbacks and config classes): it brings torch with it, so nothing here is
# imported lazily; the module is loaded only for ``uno-env train-rllib`` (the cli imports the chosen subcommand)

__all__ = ["RllibTrainConfig", "load_rllib_config", "build_algorithm_config", "SeatMapping", "SelfPlayCallback",
           "arena_evaluation", "train", "add_arguments", "run", "MAIN", "SNAPSHOT_PREFIX", "BASELINE_PREFIX",
           "RestoreError", "check_restore", "restore_checkpoint", "save_checkpoint", "export_policy",
           "checkpoint_dir", "take_snapshot", "set_snapshots_taken", "env_config", "probe_game"]


# =============================================================================================
# 7. arena evaluation


def main_agent(algorithm, env_cfg: dict, model_config: dict, deterministic: bool = True):
    """The current ``main`` policy (weights from the Learner) as an arena agent."""
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



# =============================================================================================
# 3.-7. the RLlib config


def build_algorithm_config(cfg: RllibTrainConfig):
    """The ``PPOConfig`` of a run (new API stack)."""
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
        summary = _iterate(algo, cfg, run_dir, log)
        final = save_checkpoint(algo, cfg, run_dir / "final")
        log(f"final checkpoint: {final}")
        arena = _final_arena(algo, cfg, run_dir, log)
        summary.update(final_checkpoint=str(final), final_arena=arena)
        return summary
    finally:
        algo.stop()


def _iterate(algo, cfg: RllibTrainConfig, run_dir: Path, log) -> dict[str, Any]:
    """Train iteration after iteration, a line of ``progress.jsonl`` and a checkpoint when due each, until a stop
    limit; returns the last iteration's summary."""
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
                prune_checkpoints(ckpt_dir, cfg.keep_checkpoints)
            if _stop_reached(cfg, it, summary, time.time() - t0):
                return summary


def _stop_reached(cfg: RllibTrainConfig, iteration: int, summary: dict[str, Any], seconds: float) -> bool:
    st = cfg.stop
    return bool((st.iterations and iteration >= st.iterations)
                or (st.env_steps and (summary["env_steps_lifetime"] or 0) >= st.env_steps)
                or (st.time_s and seconds >= st.time_s))


def _final_arena(algo, cfg: RllibTrainConfig, run_dir: Path, log) -> dict[str, Any]:
    """The final arena of ``main`` against each baseline, written to ``final_arena.json``."""
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
    return arena


def _sample_steps(env_runner, num_timesteps: int) -> int:
    return int(sum(e.env_steps() for e in env_runner.sample(num_timesteps=num_timesteps)))


def measure_sampling(cfg: RllibTrainConfig, env_steps: int, log=print) -> dict[str, Any]:
    """Sampling throughput (env steps/s, wall clock) of the configured EnvRunners: each samples
    ``env_steps / runners`` steps with the exploring policy, after a warm-up call; no learning."""
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
