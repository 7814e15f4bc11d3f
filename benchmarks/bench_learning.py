"""Speed of learning: the batched PPO trainer beside sb3-contrib's MaskablePPO, the same task, alternating, one run.

Both learn from scratch (no heuristic advice, no imitation) with the same network (separate actor and critic MLPs,
``--net`` widths, tanh, symlog input + mask), the same PPO settings (``--envs`` games x ``--steps`` per rollout,
minibatch ``--batch``, ``--epochs``, constant learning rate ``--lr``) and the same seed, on the same simulator
(``uno_env.vector``, the opponent ``--opponent`` played inside the kernel), in this process, on ``--threads``
torch threads and one simulator thread. They take turns: each trains ``--chunk`` steps, then its policy (most
likely action) plays ``--eval-games`` games of the duplicate arena against ``--reference`` (the same deals every
time and for both), untimed. Taking turns gives both the same machine: a shared machine's speed drifts by a third
within minutes. One pair of runs per seed (``--seeds``): when a run's policy leaves its start (an untrained
policy's most likely action wins almost no game) varies more between seeds than between the trainers.

Printed per seed: each evaluation's training seconds so far (the evaluations left out), steps and win rate with
its interval, and each trainer's win rate at an eighth, a quarter, half and all of the budget. Then, per seed, the
training time each first reached ``--target``, their ratio and the training steps per second, and the medians over
the seeds.

    python benchmarks/bench_learning.py [--quick] [--game classic] [--opponent greedy] [--reference greedy]
        [--budget 45] [--chunk 32768] [--eval-games 2000] [--target 0.45] [--seeds 0 1 2]

Writes ``benchmarks/results/bench_learning.json`` (``--json`` elsewhere).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _baselines  # noqa: E402

KERNEL_BASELINES = ("random", "greedy", "heuristic")  # the opponents the simulator plays inside its kernel
TRAINERS = {"batched_ppo": "batched_ppo (plain PyTorch)", "maskable_ppo": "MaskablePPO (sb3-contrib)"}


class NoRun:
    """The run-state hooks the trainers call (no snapshots, evaluations or checkpoints in a benchmark)."""

    def between_rollouts(self, model, step, record):
        pass

    def advance(self, n):
        pass


def trainer_config(args, algorithm: str, *, seed: int = 0, learner_seat: int | str = 0,
                   learning_rate: float = 3e-4):
    """The config both trainers get: the same network, PPO settings and simulator,
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


@dataclass
class Learner:
    """One trainer's model and its learning curve: (training seconds, steps, evaluation row) per evaluation."""

    name: str
    algo: Any
    model: Any
    tmp: tempfile.TemporaryDirectory
    seconds: float = 0.0
    curve: list[dict] = field(default_factory=list)


def make_learner(args: argparse.Namespace, algorithm: str) -> Learner:
    from uno_env.training.algorithms import get_algorithm
    from uno_env.training.pool import OpponentPool

    algo = get_algorithm(algorithm)
    cfg = trainer_config(args, algorithm, seed=args.seed, learner_seat="random", learning_rate=args.lr)
    torch.manual_seed(args.seed)
    pool = OpponentPool(cfg.opponents.baselines, 0.0, seed=args.seed)
    tmp = tempfile.TemporaryDirectory()
    env = algo.make_env(cfg, pool, args.seed)
    return Learner(algorithm, algo, algo.build(cfg, env, tmp.name), tmp)


def evaluate(args: argparse.Namespace, learner: Learner) -> dict:
    from uno_env.agents.policy import NumpyPolicyAgent
    from uno_env.config import make_rules
    from uno_env.training.evaluate import against_baselines

    agent = NumpyPolicyAgent(learner.algo.export(learner.model), name=learner.name, deterministic=True,
                             game=make_rules(args.game, 2, None))
    (row,) = against_baselines(agent, [args.reference], args.game, 2, None, args.eval_games, args.eval_seed,
                               workers=1, duplicate=True)
    return {"seconds": learner.seconds, "steps": learner.algo.num_steps(learner.model),
            "win_rate": row["win_rate"], "ci_low": row["ci_low"], "ci_high": row["ci_high"]}


def first_reaching(curve: list[dict], target: float) -> dict | None:
    return next((p for p in curve if p["win_rate"] >= target), None)


def at_seconds(curve: list[dict], seconds: float) -> dict:
    """The last evaluation taken at or before ``seconds`` of training."""
    return [p for p in curve if p["seconds"] <= seconds + 1e-9][-1]


def one_seed(args: argparse.Namespace, seed: int) -> dict[str, Learner]:
    """Both trainers from ``seed``, taking turns until both have trained ``--budget`` seconds."""
    args = argparse.Namespace(**{**vars(args), "seed": seed})
    learners = {name: make_learner(args, name) for name in TRAINERS}
    for learner in learners.values():
        learner.curve.append(evaluate(args, learner))
    while any(learner.seconds < args.budget for learner in learners.values()):
        for learner in learners.values():
            if learner.seconds >= args.budget:
                continue
            t0 = time.perf_counter()
            learner.algo.learn(learner.model, args.chunk, NoRun())
            learner.seconds += time.perf_counter() - t0
            learner.curve.append(evaluate(args, learner))
    for learner in learners.values():
        learner.tmp.cleanup()
    return learners


def print_seed(args: argparse.Namespace, seed: int, learners: dict[str, Learner]) -> None:
    print(f"\nseed {seed}")
    for name, learner in learners.items():
        print(f"{TRAINERS[name]}")
        print(f"{'train s':>8}{'steps':>11}  {'vs ' + args.reference + ' [95% CI]':>24}")
        for p in learner.curve:
            print(f"{p['seconds']:>8.1f}{p['steps']:>11,}  {100 * p['win_rate']:>8.1f}% "
                  f"[{100 * p['ci_low']:.1f}, {100 * p['ci_high']:.1f}]")
    print(f"{'train s':>8}  {'batched_ppo':>22}  {'MaskablePPO':>22}   (the last evaluation by then)")
    for share in (1 / 8, 1 / 4, 1 / 2, 1):
        when = share * args.budget
        a, b = (at_seconds(learners[name].curve, when) for name in TRAINERS)
        print(f"{when:>8.0f}  {100 * a['win_rate']:>6.1f}% {a['steps']:>10,} st  "
              f"{100 * b['win_rate']:>6.1f}% {b['steps']:>10,} st")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="classic", choices=("classic", "pocket", "dice"))
    ap.add_argument("--opponent", default="greedy", choices=KERNEL_BASELINES,
                    help="the baseline both learn against (default greedy)")
    ap.add_argument("--reference", default="greedy", choices=KERNEL_BASELINES,
                    help="the baseline both are evaluated against (default greedy)")
    ap.add_argument("--quick", action="store_true", help="one seed, 12 s each, 400 evaluation games (about 1 min)")
    ap.add_argument("--budget", type=float, default=None,
                    help="training seconds per trainer and seed (default 45; --quick 12)")
    ap.add_argument("--chunk", type=int, default=32_768, help="steps between evaluations (default 32,768)")
    ap.add_argument("--eval-games", type=int, default=None,
                    help="duplicate-arena games per evaluation (default 2000; --quick 400)")
    ap.add_argument("--eval-seed", type=int, default=7)
    ap.add_argument("--target", type=float, default=None,
                    help="the win rate whose first reaching is timed (default 0.45; --quick 0.3)")
    ap.add_argument("--envs", type=int, default=256)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--net", type=int, nargs="+", default=[128, 128])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seeds", type=int, nargs="+", default=None,
                    help="one pair of runs per seed (default 0 1 2; --quick 0): when a run leaves its first policies "
                         "varies more between seeds than between the trainers")
    ap.add_argument("--json", type=Path, default=None, help="write here instead of benchmarks/results/")
    args = ap.parse_args(argv)
    for name, full, quick in (("budget", 45.0, 12.0), ("eval_games", 2000, 400), ("target", 0.45, 0.3),
                              ("seeds", [0, 1, 2], [0])):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    for name in ("budget", "chunk", "eval_games", "envs", "steps", "batch", "epochs", "threads"):
        if getattr(args, name) <= 0:
            ap.error(f"--{name.replace('_', '-')} must be positive")
    if not 0.0 < args.target < 1.0:
        ap.error("--target must be between 0 and 1")
    if args.eval_games % 2:
        ap.error("--eval-games must be even (the duplicate arena plays every deal twice)")
    if any(seed < 0 for seed in args.seeds):
        ap.error("--seeds must be non-negative")
    torch.set_num_threads(args.threads)
    run = _baselines.Run("bench_learning", argv, args.quick)
    load0 = os.getloadavg()
    for name in TRAINERS:  # a throwaway rollout each first: loading compiled code and torch's first calls
        warm = make_learner(argparse.Namespace(**{**vars(args), "seed": 0}), name)
        warm.algo.learn(warm.model, args.envs * args.steps, NoRun())
        warm.tmp.cleanup()
    print(f"{args.game}, 2 players, learning from scratch against {args.opponent}; evaluated against "
          f"{args.reference} ({args.eval_games:,} games of the duplicate arena, the same deals every time); "
          f"{args.envs} games x {args.steps} steps a rollout, minibatch {args.batch}, {args.epochs} epochs, lr "
          f"{args.lr:g}, net {args.net} tanh (actor + critic), torch threads {args.threads}; "
          f"load average {load0[0]:.2f} at the start", flush=True)
    runs = {}
    for seed in args.seeds:
        runs[seed] = one_seed(args, seed)
        print_seed(args, seed, runs[seed])
    load1 = os.getloadavg()

    print(f"\nfirst at {100 * args.target:.0f}% or more against {args.reference}: training seconds (steps); "
          f"training steps per second over the budget")
    print(f"{'seed':>4}  {'batched_ppo':>22}  {'MaskablePPO':>22}  {'ratio':>6}  {'steps/s':>15}")
    summary = []
    for seed, learners in runs.items():
        hit = {name: first_reaching(learners[name].curve, args.target) for name in TRAINERS}
        rate = {name: learners[name].curve[-1]["steps"] / learners[name].curve[-1]["seconds"] for name in TRAINERS}
        ratio = (hit["maskable_ppo"]["seconds"] / hit["batched_ppo"]["seconds"]
                 if hit["batched_ppo"] and hit["maskable_ppo"] else None)
        summary.append({"seed": seed, "reached": hit, "steps_per_s": rate, "time_ratio": ratio})
        cells = ["not reached" if h is None else f"{h['seconds']:.1f} s ({h['steps']:,})" for h in hit.values()]
        print(f"{seed:>4}  {cells[0]:>22}  {cells[1]:>22}  "
              f"{'n/a' if ratio is None else f'{ratio:.2f}x':>6}  "
              f"{rate['batched_ppo']:>7,.0f} {rate['maskable_ppo']:>7,.0f}")
    ratios = [r["time_ratio"] for r in summary if r["time_ratio"] is not None]
    median_ratio = statistics.median(ratios) if ratios else None
    speed = statistics.median(r["steps_per_s"]["batched_ppo"] / r["steps_per_s"]["maskable_ppo"] for r in summary)
    print(f"median over seeds: time to reach it, MaskablePPO / batched_ppo "
          f"{'n/a' if median_ratio is None else f'{median_ratio:.2f}x'} ({len(ratios)} of {len(summary)} seeds "
          f"reached by both); training steps per second, batched_ppo / MaskablePPO {speed:.2f}x; load average "
          f"{load1[0]:.2f} at the end")
    reached = [r for r in summary if r["time_ratio"] is not None]
    if reached:
        run.headline("learning/time_to_target",
                     f"learning: training seconds to {100 * args.target:.0f}% against {args.reference} "
                     f"(median of {len(reached)} seeds)",
                     statistics.median(r["reached"]["batched_ppo"]["seconds"] for r in reached),
                     statistics.median(r["reached"]["maskable_ppo"]["seconds"] for r in reached),
                     "MaskablePPO (sb3-contrib)", "s", better="lower",
                     spread=_baselines.quartiles([1 / r["time_ratio"] for r in reached]))
    run.headline("learning/steps_per_s", "learning: training steps per second, batched PPO (median of seeds)",
                 statistics.median(r["steps_per_s"]["batched_ppo"] for r in summary),
                 statistics.median(r["steps_per_s"]["maskable_ppo"] for r in summary), "MaskablePPO (sb3-contrib)",
                 "steps/s", spread=_baselines.quartiles(
                     [r["steps_per_s"]["batched_ppo"] / r["steps_per_s"]["maskable_ppo"] for r in summary]))
    run.details = {"args": {k: v for k, v in vars(args).items() if k != "json"},
                   "curves": {seed: {name: ls[name].curve for name in TRAINERS} for seed, ls in runs.items()},
                   "summary": summary, "median_time_ratio": median_ratio, "median_speed_ratio": speed,
                   "seeds_reached_by_both": len(reached)}
    run.write(args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
