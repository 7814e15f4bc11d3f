"""``uno-env train``: PPO with action masks against the baselines, then against a self-play pool, with an honest
report.

    uno-env train --config classic_ppo                       # a packaged config, by name; run in runs/classic_ppo/
    uno-env train --config classic_ppo --resume              # continue it after a stop or a crash
    uno-env train --config my_run.yaml --set ppo.learning_rate=1e-4 --total-steps 20000

:func:`train` reads top to bottom like CleanRL's ``ppo.py``: the typed config, an explicit seeding block, the
environments, the learning loop, the finish.  The parts live in their own modules:

* ``training/config.py``: the config (YAML or a packaged name, ``--set`` overrides), every key checked before
  anything starts;
* ``training/algorithms/``: the trainer named by the config's ``algorithm`` key (``maskable_ppo``: sb3-contrib
  MaskablePPO, the mask coming from the env's ``action_masks()``);
* ``training/envs.py`` and ``training/pool.py``: the environments, whose other seats are drawn from the opponent
  pool (baselines, then frozen snapshots of the learner) at every episode;
* ``training/run_state.py``: between rollouts, snapshots join the pool, the arena runs against every baseline
  (win rate and interval to TensorBoard and the eval history) and resumable checkpoints are written
  (``training/checkpoints.py``, which also decides what ``--resume`` continues);
* ``training/arena.py`` (the arena) and ``training/report.py`` (``report.md``/``.json``, learning curve).

Run directory ``runs/<name>/``::

    config.yaml            the resolved config
    command.json           the command that makes the run in one go (--config and every --set, a resume's too)
    checkpoints/step_<N>/  model.zip (weights + optimizer), state.json (step, pool, eval history, RNG states),
                           torch_rng.pt; written to a temp dir and renamed, so a checkpoint is whole or absent
    pool/                  frozen snapshots (numpy .npz) the opponent pool draws from
    tb/                    TensorBoard logs
    policy.npz policy.json the final policy, pickle-free: what `uno-env evaluate` / `play` load by default
    policy.zip             the same policy as a MaskablePPO zip (loads only with --trust-pickle)
    report.md report.json learning_curve.png
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import time

import numpy as np
import yaml

from uno_env.agents.policy import save_policy_files
from uno_env.agents.registry import load_agent
from uno_env.config import make_rules
from uno_env.core.game import Game

from .algorithms import get_algorithm
from .checkpoints import (
    STATE_FILE,
    TrainError,
    add_run_arguments,
    load_checkpoint_state,
    prepare_run,
    restore_rng_states,
    run_command,
    save_command,
)
from .config import ConfigError, TrainConfig, config_to_dict, packaged_configs
from .report import write_report

POLICY_FILE = "policy.zip"
POLICY_NPZ = "policy.npz"


def _train_configs() -> list[str]:
    """The packaged configs ``uno-env train`` runs (the ``rllib_*`` ones beside them are ``train-rllib``'s)."""
    return [name for name in packaged_configs("train") if not name.startswith("rllib_")]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env train``."""
    add_run_arguments(
        parser,
        config_help=f"training config: a packaged config's name ({', '.join(_train_configs())}) or a YAML path; "
                    "without it the defaults of training/config.py",
        resume_help="continue the run from its latest complete checkpoint (the config saved with the run is used; "
                    "--set and --total-steps still apply)",
        set_example="--set ppo.learning_rate=1e-4 --set env.n_envs=8")
    parser.add_argument("--total-steps", type=int, metavar="N", help="override total_steps")


def run(args: argparse.Namespace) -> int:
    """``uno-env train``: prepare the run directory, train and write the report; returns the exit status."""
    try:
        cfg, run_dir, checkpoint = prepare_run(args)
    except (ConfigError, TrainError) as e:
        print(f"uno-env train: error: {e}", file=sys.stderr)
        return 2
    try:
        summary = train(cfg, run_dir, checkpoint, command=run_command(args, run_dir, "train"))
    except (TrainError, ImportError) as e:
        print(f"uno-env train: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted; continue with: uno-env train --run-dir {run_dir} --resume", file=sys.stderr)
        return 130
    print(f"\nreport: {os.path.join(run_dir, 'report.md')}")
    print(f"policy: {summary['policy']}  (uno-env evaluate / uno-env play load it by path)")
    return 0


def train(cfg: TrainConfig, run_dir: str, checkpoint: str | None = None, command: str | None = None) -> dict:
    """Run (or continue) training, then save the policy, evaluate it and write the report.  ``command`` (the
    command line :func:`~uno_env.training.checkpoints.run_command` gives) is what the report names as the run's;
    without it, ``--config`` and the run's name."""
    # torch, and the run's state (whose environments bring Stable-Baselines3 and torch), are imported once a run
    # starts: a config error is reported without loading them
    from .run_state import RunState, next_multiple, show_path

    algo = get_algorithm(cfg.algorithm)
    import torch

    if cfg.device != "cpu" and cfg.device != "auto" and not _device_available(torch, cfg.device):
        raise TrainError(f"config key 'device': {cfg.device!r} is not available on this machine")
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)
    # a fresh run whose setup fails leaves no directory behind, so the same command can simply be run again
    made_dir = checkpoint is None and not os.path.exists(run_dir)

    # --- seeding: Python, numpy and torch here; the environments and the pool from cfg.seed below ---------------
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    run = RunState(cfg, run_dir, algo)
    start_step, saved_rng = 0, {}  # saved_rng: the checkpoint's PRNG states when resuming
    if checkpoint is not None:
        state = load_checkpoint_state(checkpoint)
        run.load_state(state, os.path.join(checkpoint, STATE_FILE))
        start_step, saved_rng = int(state["step"]), state["rng"]
    # environments draw fresh games after a resume (seeded by the step they resume at)
    env_seed = cfg.seed * 1_000_003 + start_step
    print(f"run: {run_dir}\n  {cfg.env.game}, {cfg.env.num_players} players, {cfg.total_steps:,} steps, "
          f"{cfg.env.n_envs} envs ({cfg.env.vec_env}), {cfg.algorithm}, seed {cfg.seed}"
          + (f"; resuming at step {start_step:,} from {show_path(checkpoint)}" if checkpoint else ""), flush=True)

    # --- environments and model -----------------------------------------------------------------------------
    venv = None
    try:
        venv = run.venv = algo.make_env(cfg, run.pool, env_seed)
        if checkpoint is not None:
            model = algo.load(os.path.join(checkpoint, "model.zip"), cfg, venv, run_dir)
            restore_rng_states(saved_rng, checkpoint)
        else:
            model = algo.build(cfg, venv, run_dir)
        venv.seed(env_seed)
    except (TrainError, ValueError, OSError) as e:
        # UnknownAgentError is a ValueError: an opponent that cannot be built for this table
        if venv is not None:
            venv.close()
        if made_dir:
            shutil.rmtree(run_dir, ignore_errors=True)
        raise e if isinstance(e, TrainError) else TrainError(f"cannot set up the run: {e}") from None
    os.makedirs(run_dir, exist_ok=True)
    _write_config(cfg, run_dir)
    if command is not None:
        save_command(run_dir, command)

    # --- learning loop (the algorithm's; run_state's hooks run between rollouts) ------------------------------
    remaining = cfg.total_steps - algo.num_steps(model)
    if remaining > 0:
        run.start_progress(algo.num_steps(model))
        try:
            algo.learn(model, remaining, run)
        finally:
            run.stop_progress()
        step = algo.num_steps(model)
        # the final checkpoint: a resume after this point only redoes the final evaluation
        run.next_checkpoint = next_multiple(step, cfg.checkpoint_every)
        run.checkpoint(model, step)
    step = algo.num_steps(model)
    train_time, train_cpu = run.wall_time(), run.cpu_time()
    venv.close()

    # --- finish: the policy, a large final arena, the report --------------------------------------------------
    policy_path = save_policy(algo, model, cfg, run_dir, step)
    ev = cfg.evaluation
    print(f"final evaluation: {ev.final_games:,} games against each of {', '.join(ev.opponents)} ...", flush=True)
    t0 = time.time()
    table = run.arena(_final_agent(policy_path, cfg), ev.final_games, ev.seed, ev.final_workers,
                      progress=cfg.progress_bar)
    eval_time = time.time() - t0
    for r in table:
        print(f"  vs {r['opponent']:<10} {100 * r['win_rate']:5.1f}%  [{100 * r['ci_low']:.1f}, "
              f"{100 * r['ci_high']:.1f}]  ({r['games']:,} games, {r['seconds']:.0f} s)", flush=True)
    summary = {
        "name": cfg.name,
        "command": command or f"uno-env train --config {cfg.name}",
        "run_dir": run_dir,
        "config": config_to_dict(cfg),
        "seed": cfg.seed,
        "steps": step,
        "wall_time_seconds": round(run.wall_time(), 1),
        "train_time_seconds": round(train_time, 1),
        "train_cpu_seconds": round(train_cpu, 1),
        "final_eval_seconds": round(eval_time, 1),
        "sessions": run.sessions,
        "policy": policy_path,
        "arena": table,
        "eval_history": run.eval_history,
        "pool": [dict(s) for s in run.pool.snapshots],
        "versions": _versions(),
    }
    write_report(run_dir, summary)
    return summary


def _device_available(torch, device: str) -> bool:
    if device.startswith("cuda"):
        return bool(torch.cuda.is_available()) and (":" not in device
                                                    or int(device.split(":")[1]) < torch.cuda.device_count())
    if device == "mps":
        return bool(getattr(torch.backends, "mps", None) and torch.backends.mps.is_available())
    return True


def _write_config(cfg: TrainConfig, run_dir: str) -> None:
    with open(os.path.join(run_dir, "config.yaml"), "w", encoding="utf-8") as f:
        yaml.safe_dump(config_to_dict(cfg), f, sort_keys=False)


def _final_agent(policy_path: str, cfg: TrainConfig):
    """The saved policy as the arena plays it: loaded back by path through ``agents.registry`` (the check that
    ``uno-env evaluate`` can load it)."""
    game = Game(make_rules(cfg.env.game, cfg.env.num_players, cfg.env.rules))
    agent = load_agent(policy_path, game, seed=cfg.evaluation.seed)
    agent.deterministic = cfg.evaluation.deterministic
    agent.name = cfg.name
    return agent


def save_policy(algo, model, cfg: TrainConfig, run_dir: str, step: int) -> str:
    """``policy.npz`` + ``policy.json`` (pickle-free: the actor's weights and what it was trained for, what
    ``agents.registry.load_agent(path)`` reads by default) and ``policy.zip`` (the trainer's own format)."""
    tmp = os.path.join(run_dir, ".policy.tmp.zip")
    algo.save(model, tmp)
    os.replace(tmp, os.path.join(run_dir, POLICY_FILE))
    rules = make_rules(cfg.env.game, cfg.env.num_players, cfg.env.rules)
    game = Game(rules)
    meta = {
        "algorithm": algo.LABEL,
        "game": cfg.env.game,
        "num_players": cfg.env.num_players,
        "rules": rules.to_dict(),
        "obs_dim": game.obs_dim,
        "num_actions": game.num_actions,
        "observation": "dict {observation (obs_dim,), action_mask (num_actions,)}",
        "policy": {"net_arch": list(cfg.policy.net_arch), "activation": cfg.policy.activation,
                   "obs_transform": cfg.policy.obs_transform, "include_mask": cfg.policy.include_mask,
                   "advice": cfg.policy.advice, "advice_gain": cfg.policy.advice_gain},
        "steps": step,
        "name": cfg.name,
        "seed": cfg.seed,
    }
    return save_policy_files(algo.export(model), os.path.join(run_dir, POLICY_NPZ), meta)


def _versions() -> dict:
    out = {"python": sys.version.split()[0]}
    for mod in ("numpy", "torch", "stable_baselines3", "sb3_contrib", "gymnasium", "numba"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:
            pass
    return out


def main(argv: list[str] | None = None) -> int:
    """Run ``uno-env train`` with ``argv`` (default: the command line)."""
    parser = argparse.ArgumentParser(prog="uno-env train", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
