"""Learner steps/s of the single-agent batched simulator against each baseline: compiled in the kernel vs Python.

The second column divides by the CPU time the process used instead of wall time: on a machine shared with
other jobs it is what one core gives when it is not taken away (run with ``--threads 1`` for it to mean that).
A learner step is one decision of the learner in one game (the opponents' moves in between are not counted);
the learner plays uniformly random legal actions (drawn in the compiled core), so the figure is the simulator's,
not a network's.  Rows: ``random``, ``greedy`` and ``heuristic`` by name (played inside the compiled kernel)
and the same agents as Python objects (their ``act_batch`` called between kernel calls).

    python benchmarks/bench_opponents.py [--batch 1024] [--seconds 2] [--repeats 3] [--games classic pocket]
                                         [--threads 0] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from uno_env.agents.registry import load_agent
from uno_env.vector import RandomLegalPolicy, UnoSingleAgentVectorEnv


def learner_steps_per_sec(game: str, opponent, batch: int, seconds: float, repeats: int, threads: int | None):
    env = UnoSingleAgentVectorEnv(game, batch, opponents=opponent, learner_seat="random", seed=0,
                                  num_threads=threads)
    pol = RandomLegalPolicy(0)
    obs, masks = env.reset()
    for _ in range(3):
        obs, masks, *_ = env.step(pol.act_batch(obs, masks))
    out, per_cpu = [], []
    for _ in range(repeats):
        calls, start, cpu0 = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - start < seconds:
            obs, masks, *_ = env.step(pol.act_batch(obs, masks))
            calls += 1
        out.append(calls * batch / (time.perf_counter() - start))
        per_cpu.append(calls * batch / max(time.process_time() - cpu0, 1e-9))
    return statistics.median(out), statistics.median(per_cpu), env.opponents_in_kernel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--games", nargs="+", default=["classic", "pocket"])
    ap.add_argument("--threads", type=int, default=0, help="num_threads of the env (0: its default)")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    threads = args.threads or None
    rows = []
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; "
          f"B = {args.batch}, {args.repeats} x {args.seconds:g} s, median learner steps/s")
    print(f"{'game':<8} {'opponent':<28} {'learner steps/s':>16} {'per CPU-second':>15}")
    for game in args.games:
        for name in ("random", "greedy", "heuristic"):
            for compiled in (True, False):
                if name == "random" and not compiled:
                    continue
                opp = name if compiled else load_agent(name, game, seed=0)
                rate, cpu_rate, in_kernel = learner_steps_per_sec(game, opp, args.batch, args.seconds, args.repeats,
                                                                  threads)
                label = f"{name} ({'in kernel' if in_kernel else 'Python act_batch'})"
                print(f"{game:<8} {label:<28} {rate:>16,.0f} {cpu_rate:>15,.0f}", flush=True)
                rows.append({"game": game, "opponent": name, "in_kernel": in_kernel, "learner_steps_per_s": rate,
                             "learner_steps_per_cpu_s": cpu_rate})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"batch": args.batch, "loadavg": os.getloadavg(), "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
