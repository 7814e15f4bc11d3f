"""Training throughput: the batched PPO trainer beside sb3-contrib's MaskablePPO on the batched VecEnv, one run.

Both train the same network (separate actor and critic MLPs, ``--net`` widths, tanh, symlog input + mask) with the
same PPO settings (``--envs`` games x ``--steps`` per rollout, minibatch ``--batch``, ``--epochs``) on the same
simulator (``uno_env.vector``; opponents in the kernel) in this process, one after the other, for ``--rollouts``
rollouts each after one warm-up rollout.  Printed: env steps/s (learner decisions per second of wall time,
update included) and the ratio.  torch runs on ``--threads`` threads for both.

    python benchmarks/bench_trainer.py [--game classic] [--envs 256] [--steps 64] [--batch 4096] [--epochs 4]
                                       [--net 128 128] [--rollouts 4] [--threads 1] [--opponent random]
                                       [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np
import torch


class NoRun:
    """The run-state hooks the trainers call (no snapshots, evaluations or checkpoints in a benchmark)."""

    def between_rollouts(self, model, step, record):
        pass

    def advance(self, n):
        pass


def trainer_config(args, algorithm: str, *, seed: int = 0, learner_seat: int | str = 0,
                   learning_rate: float = 3e-4):
    """The config both trainers get (``bench_learning.py`` too): the same network, PPO settings and simulator,
    one baseline in the kernel, no self-play, evaluations or checkpoints."""
    from uno_env.training.config import config_from_dict

    return config_from_dict({
        "name": "bench", "algorithm": algorithm, "seed": seed, "total_steps": 10**9, "torch_threads": args.threads,
        "tensorboard": False, "progress_bar": False,
        "env": {"game": args.game, "num_players": 2, "vec_env": "batched", "n_envs": args.envs,
                "learner_seat": learner_seat, "num_threads": 1},
        "policy": {"net_arch": list(args.net), "activation": "tanh", "obs_transform": "symlog", "include_mask": True},
        "ppo": {"n_steps": args.steps, "batch_size": args.batch, "n_epochs": args.epochs,
                "learning_rate": learning_rate},
        "opponents": {"baselines": {args.opponent: 1.0}, "selfplay_start": 1.0},
        "evaluation": {"every": 0},
    })


def batched_ppo_rate(args) -> float:
    from uno_env.training.algorithms import batched_ppo as algo
    from uno_env.training.pool import OpponentPool

    cfg = trainer_config(args, "batched_ppo")
    pool = OpponentPool(cfg.opponents.baselines, 0.0, seed=0)
    with tempfile.TemporaryDirectory() as d:
        env = algo.make_env(cfg, pool, 0)
        model = algo.build(cfg, env, d)
        rollout = args.envs * args.steps
        algo.learn(model, rollout, NoRun())  # warm-up (compiles, allocates)
        t0 = time.perf_counter()
        algo.learn(model, rollout * args.rollouts, NoRun())
        return rollout * args.rollouts / (time.perf_counter() - t0)


def maskable_ppo_rate(args) -> float:
    from uno_env.training.algorithms import maskable_ppo as algo
    from uno_env.training.pool import OpponentPool

    cfg = trainer_config(args, "maskable_ppo")
    pool = OpponentPool(cfg.opponents.baselines, 0.0, seed=0)
    with tempfile.TemporaryDirectory() as d:
        venv = algo.make_env(cfg, pool, 0)
        model = algo.build(cfg, venv, d)
        rollout = args.envs * args.steps
        model.learn(total_timesteps=rollout, reset_num_timesteps=False)  # warm-up
        t0 = time.perf_counter()
        model.learn(total_timesteps=rollout * args.rollouts, reset_num_timesteps=False)
        return rollout * args.rollouts / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="classic")
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--net", type=int, nargs="+", default=[128, 128])
    ap.add_argument("--rollouts", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--json")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    load0 = os.getloadavg()
    ours = batched_ppo_rate(args)
    sb3 = maskable_ppo_rate(args)
    load1 = os.getloadavg()
    print(f"load average before {load0[0]:.2f}, after {load1[0]:.2f} (1 min); {args.game}, {args.envs} games x "
          f"{args.steps} steps, minibatch {args.batch}, {args.epochs} epochs, net {args.net} tanh (actor + critic), "
          f"torch threads {args.threads}, opponent {args.opponent}")
    print(f"{'trainer':<40} {'env steps/s':>12}")
    print(f"{'batched_ppo (plain PyTorch)':<40} {ours:>12,.0f}")
    print(f"{'MaskablePPO (sb3-contrib, batched VecEnv)':<40} {sb3:>12,.0f}")
    print(f"ratio: {ours / sb3:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "loadavg_before": load0, "loadavg_after": load1,
                       "batched_ppo_steps_per_s": ours, "maskable_ppo_steps_per_s": sb3,
                       "ratio": ours / sb3, "numpy": np.__version__, "torch": torch.__version__}, f, indent=2)


if __name__ == "__main__":
    main()
