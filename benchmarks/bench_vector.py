"""Batched-simulator speed: steps/s for B games per call, beside RLCard UNO and OpenSpiel crazy_eights.

A "step" is one decision of one game: a call of ``UnoVectorEnv.step`` over B games is B steps.  Every call
produces the observation of the seat to act and its legal mask for every game (preallocated arrays), resets
finished games, and the actions come from :class:`uno_env.vector.RandomLegalPolicy` (uniformly random legal
actions, drawn in the compiled core): the full loop a self-play or data-collection user runs.  The single-agent
rows count learner steps of ``UnoSingleAgentVectorEnv`` (random opponents played inside the kernel) and, in
brackets, every seat's decisions.  All engines run in this process one after the other, ``--repeats`` times
each for ``--seconds``; the tables show medians and the ratio to RLCard (2 players).

    python benchmarks/bench_vector.py [--seconds 1] [--repeats 3] [--games classic pocket dice] [--players 2 4]
                                      [--batches 1 64 1024 8192] [--no-competitors] [--train] [--json out.json]

``--train`` adds MaskablePPO training throughput (sb3-contrib; slow): the batched SB3 VecEnv against
``SubprocVecEnv`` of ``UnoGymEnv`` on the same config (same envs, policy, n_steps, batch size, epochs).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uno_env  # noqa: E402
from uno_env.vector import RandomLegalPolicy, UnoSingleAgentVectorEnv, UnoVectorEnv  # noqa: E402

import _baselines  # noqa: E402


def vector_steps_per_sec(game: str, num_players: int, batch: int, seconds: float, repeats: int, seed: int = 0,
                         cpu: list | None = None):
    """Multi-agent face: random legal actions for every game, every call; steps = games x calls.

    ``cpu``, if given, receives the CPU time this process used per second of each run (2.0 = both cores).
    """
    env = UnoVectorEnv(game, batch, num_players=num_players, seed=seed)
    policy = RandomLegalPolicy(seed)
    obs, masks, _ = env.reset()
    for _ in range(3):  # compile/warm up outside the timed runs
        obs, masks, *_ = env.step(policy.act_batch(obs, masks))
    results = []
    for _ in range(repeats):
        calls = 0
        cpu0 = time.process_time()
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            obs, masks, *_ = env.step(policy.act_batch(obs, masks))
            calls += 1
            if time.perf_counter() >= deadline:
                break
        elapsed = time.perf_counter() - start
        results.append(calls * batch / elapsed)
        if cpu is not None:
            cpu.append((time.process_time() - cpu0) / elapsed)
    return results


def single_agent_steps_per_sec(game: str, num_players: int, batch: int, seconds: float, repeats: int,
                               seed: int = 0):
    """Single-agent face: (learner steps/s, all-seat decisions/s) per run, random opponents in the kernel."""
    env = UnoSingleAgentVectorEnv(game, batch, num_players=num_players, learner_seat="rotate", seed=seed)
    policy = RandomLegalPolicy(seed)
    obs, masks = env.reset()
    for _ in range(3):
        obs, masks, *_ = env.step(policy.act_batch(obs, masks))
    results = []
    for _ in range(repeats):
        calls = 0
        turns0 = int(env.state_view.turns.sum())
        finished_turns = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            obs, masks, _, term, trunc, info = env.step(policy.act_batch(obs, masks))
            calls += 1
            done = term | trunc
            if done.any():
                finished_turns += int(info["episode_turns"][done].sum())
            if time.perf_counter() >= deadline:
                break
        elapsed = time.perf_counter() - start
        decisions = int(env.state_view.turns.sum()) - turns0 + finished_turns
        results.append((calls * batch / elapsed, decisions / elapsed))
    return results


# ---------------------------------------------------------------------------------------------- training
class _GymEnvFactory:
    """Picklable factory of one ``UnoGymEnv`` for SubprocVecEnv workers."""

    def __init__(self, game: str, num_players: int, rank: int):
        self.args = (game, num_players, rank)

    def __call__(self):
        import gymnasium

        game, num_players, rank = self.args
        env = gymnasium.make(f"uno_env/{game.capitalize()}-v0", num_players=num_players, opponents="random",
                             learner_seat=rank % num_players)
        return env


def train_steps_per_sec(kind: str, game: str, num_players: int, n_envs: int, total: int, seed: int = 0) -> float:
    """MaskablePPO ``learn(total)`` environment steps per second of wall time (env creation excluded)."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    if kind == "batched":
        from uno_env.vector import make_sb3_vec_env

        venv = make_sb3_vec_env(game, n_envs, num_players=num_players, learner_seat="rotate", seed=seed)
    else:
        from stable_baselines3.common.vec_env import SubprocVecEnv

        venv = SubprocVecEnv([_GymEnvFactory(game, num_players, i) for i in range(n_envs)], start_method="fork")
        venv.seed(seed)
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=128, batch_size=512, n_epochs=2, seed=seed, verbose=0,
                        policy_kwargs={"net_arch": [64, 64]})
    model.learn(n_envs * 128)  # warm-up: compile, fork, first rollout
    start = time.perf_counter()
    model.learn(total, reset_num_timesteps=False)
    rate = total / (time.perf_counter() - start)
    venv.close()
    return rate


# ---------------------------------------------------------------------------------------------- report
def _fmt(x: float) -> str:
    return f"{x:,.0f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", nargs="+", default=list(uno_env.GAMES), choices=uno_env.GAMES)
    parser.add_argument("--players", nargs="+", type=int, default=[2, 4])
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 64, 1024, 8192])
    parser.add_argument("--single-batch", type=int, default=1024, help="B of the single-agent rows")
    parser.add_argument("--no-competitors", action="store_true", help="skip RLCard and OpenSpiel")
    parser.add_argument("--train", action="store_true", help="also measure MaskablePPO training throughput")
    parser.add_argument("--train-envs", nargs="+", type=int, default=[8],
                        help="n_envs of the training runs (SubprocVecEnv only up to 16 processes)")
    parser.add_argument("--train-steps", type=int, default=8192)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    out: dict = {"seconds": args.seconds, "repeats": args.repeats, "cpus": os.cpu_count(), "vector": {},
                 "single_agent": {}, "competitors": {}, "train": {}}

    from uno_env import _threads

    print(f"median of {args.repeats} runs of {args.seconds:g} s; {os.cpu_count()} CPUs; simulator threads "
          f"{_threads.default_num_threads()} (num_threads default)", flush=True)
    competitors = {}
    if not args.no_competitors:
        for name, fn in [
            ("RLCard uno env.step", lambda: _baselines.rlcard_uno_steps_per_sec(args.seconds, args.repeats)),
            ("OpenSpiel crazy_eights rl_environment",
             lambda: _baselines.openspiel_crazy_eights_steps_per_sec(args.seconds, args.repeats, mode="rl_env")),
            ("OpenSpiel crazy_eights raw C++ state",
             lambda: _baselines.openspiel_crazy_eights_steps_per_sec(args.seconds, args.repeats, mode="raw")),
        ]:
            try:
                runs = fn()
            except ImportError as exc:
                print(f"skipped {name}: {exc}", file=sys.stderr)
                continue
            competitors[name] = statistics.median(runs)
            out["competitors"][name] = {"median": competitors[name], "runs": runs}
    base = competitors.get("RLCard uno env.step")

    def ratio(x: float) -> str:
        return f"{x / base:,.0f}x" if base else "n/a"

    # multi-agent face
    head = "".join(f"{'B=' + str(b):>13}" for b in args.batches)
    print("\nuno-env UnoVectorEnv, random legal actions, observations + masks: steps/s (vs RLCard)")
    print(f"{'game':<9}{'players':>8}{head}")
    for game in args.games:
        for n in args.players:
            if game == "dice" and n > 4:
                continue
            cells = []
            for b in args.batches:
                cpu: list[float] = []
                runs = vector_steps_per_sec(game, n, b, args.seconds, args.repeats, cpu=cpu)
                med = statistics.median(runs)
                out["vector"][f"{game}/{n}p/B={b}"] = {"median": med, "runs": runs, "cpu_cores_used": cpu}
                cells.append(f"{_fmt(med):>13}")
            print(f"{game:<9}{n:>8}{''.join(cells)}", flush=True)
            if base:
                print(f"{'':<17}" + "".join(
                    f"{ratio(out['vector'][f'{game}/{n}p/B={b}']['median']):>13}" for b in args.batches))

    # single-agent face
    sb = args.single_batch
    print(f"\nuno-env UnoSingleAgentVectorEnv, B={sb}, random opponents in the kernel: learner steps/s "
          "[all seats' decisions/s]")
    for game in args.games:
        for n in args.players:
            if game == "dice" and n > 4:
                continue
            runs = single_agent_steps_per_sec(game, n, sb, args.seconds, args.repeats)
            learner = statistics.median(r[0] for r in runs)
            decisions = statistics.median(r[1] for r in runs)
            out["single_agent"][f"{game}/{n}p/B={sb}"] = {"learner_median": learner, "decisions_median": decisions,
                                                          "runs": runs}
            print(f"{game:<9}{n:>8}{_fmt(learner):>13}  [{_fmt(decisions)}]", flush=True)

    if competitors:
        print("\ncompetitors, 2 players, one game: steps/s")
        for name, med in competitors.items():
            print(f"{name:<42}{_fmt(med):>12}{ratio(med):>9}")

    key = "classic/2p/B=1024"
    if key in out["vector"]:
        med = out["vector"][key]["median"]
        used = statistics.median(out["vector"][key]["cpu_cores_used"])
        row = out["vector"][key]
        per_cpu = statistics.median(r / c for r, c in zip(row["runs"], row["cpu_cores_used"]))
        print(f"\ngoal: classic 2p B=1024 {_fmt(med)} steps/s (goal 1,000,000)"
              + (f", {ratio(med)} RLCard" if base else "")
              + f"; this process used {used:.2f} of {os.cpu_count()} cores (less than all: other load), "
              f"{_fmt(per_cpu)} steps per CPU-second")

    if args.train:
        print(f"\nMaskablePPO training throughput (classic 2p, MultiInputPolicy [64, 64], n_steps 128, batch 512, "
              f"2 epochs, {args.train_steps} steps timed, torch 1 thread): env steps/s", flush=True)
        print(f"{'n_envs':<8}{'batched SB3 VecEnv':>20}{'SubprocVecEnv':>16}{'ratio':>8}")
        for n_envs in args.train_envs:
            row = {}
            for kind in ("batched", "subproc"):
                if kind == "subproc" and n_envs > 16:
                    continue
                try:
                    row[kind] = train_steps_per_sec(kind, "classic", 2, n_envs, args.train_steps)
                except ImportError as exc:
                    print(f"skipped training: {exc}", file=sys.stderr)
                    break
            out["train"][str(n_envs)] = row
            batched, sub = row.get("batched"), row.get("subproc")
            ratio_text = f"{batched / sub:.2f}x" if batched and sub else ""
            print(f"{n_envs:<8}{_fmt(batched) if batched else '-':>20}{_fmt(sub) if sub else '-':>16}"
                  f"{ratio_text:>8}", flush=True)

    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
