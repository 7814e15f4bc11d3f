"""The batched simulator on a busy machine: 1 thread against the default thread count, quiet and under load.

Researchers run several trainings, RLlib EnvRunners or CI jobs on one node, so the batched simulator must not
slow down when other processes compete for the CPUs.  This script measures, in one run, ``UnoVectorEnv`` steps/s
(random legal actions drawn by the compiled ``RandomLegalPolicy`` on the calling thread, observations and masks
every step) with ``num_threads=1`` and with the default (``num_threads=None``: ``$UNO_ENV_NUM_THREADS``, else the
usable CPUs), and the same counting only the time spent in ``env.step`` (the simulator alone):

* quiet: nothing started by this script runs beside it;
* loaded: ``--busy`` background processes that spin on the CPU (started and stopped by this script).

Quiet and loaded phases alternate ``--rounds`` times, each measuring both thread counts in alternating bursts of
``--burst`` seconds, so that the other load of a shared machine (and a VM's changing speed) hits both alike; the
ratios (default / 1 thread) are per round, and the summary is their median.  The background processes end by
themselves after ``--max-busy-seconds`` or when this process is gone, and are killed on exit, Ctrl-C included.

    python benchmarks/bench_contention.py [--game classic] [--players 2] [--batch 1024] [--seconds 1]
                                          [--burst 0.1] [--rounds 3] [--busy N] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

import numpy as np

from uno_env import _threads
from uno_env.vector import RandomLegalPolicy, UnoVectorEnv

# a busy process: spins until its deadline or until its parent (this script) is gone
BUSY = """
import os, sys, time
deadline, parent = float(sys.argv[1]), int(sys.argv[2])
try:
    while time.time() < deadline and os.getppid() == parent:
        for _ in range(200_000):
            pass
except KeyboardInterrupt:
    pass
"""


def start_busy(count: int, seconds: float) -> list[subprocess.Popen]:
    deadline = time.time() + seconds
    return [subprocess.Popen([sys.executable, "-c", BUSY, repr(deadline), str(os.getpid())],
                             stdin=subprocess.DEVNULL) for _ in range(count)]


def stop_busy(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def burst(env: UnoVectorEnv, policy: RandomLegalPolicy, seconds: float) -> np.ndarray:
    """(steps, wall seconds, CPU seconds of this process, seconds inside ``env.step``) of ``seconds`` of drawing
    random actions and stepping ``env``."""
    obs, masks = env.observations, env.masks
    calls = 0
    in_step = 0.0
    cpu0 = time.process_time()
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        actions = policy.act_batch(obs, masks)
        t = time.perf_counter()
        env.step(actions)
        now = time.perf_counter()
        in_step += now - t
        calls += 1
        if now >= deadline:
            break
    return np.array([calls * env.num_envs, time.perf_counter() - start, time.process_time() - cpu0, in_step])


def measure(envs: dict, policies: dict, seconds: float, burst_seconds: float, first: int) -> dict[str, tuple]:
    """(steps/s, CPUs used, steps/s counting only ``env.step``) per env over ``seconds`` each, taken in alternating
    bursts of ``burst_seconds`` so that a change in the machine's speed (a shared VM's speed moved by a third
    from one second to the next) hits every env alike; ``first`` picks which env starts."""
    names = list(envs)
    names = names[first:] + names[:first]
    sums = {name: np.zeros(4) for name in names}
    for _ in range(max(1, round(seconds / burst_seconds))):
        for name in names:
            sums[name] += burst(envs[name], policies[name], burst_seconds)
    return {name: (x[0] / x[1], x[2] / x[1], x[0] / x[3]) for name, x in sums.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="classic", choices=["classic", "pocket", "dice"])
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--seconds", type=float, default=1.0, help="length of one measurement")
    ap.add_argument("--burst", type=float, default=0.1,
                    help="the measurements of a round alternate in bursts this long (seconds)")
    ap.add_argument("--rounds", type=int, default=3, help="quiet/loaded phase pairs")
    ap.add_argument("--busy", type=int, default=2 * _threads.available_cpus(),
                    help="busy background processes in the loaded phases (default: 2 per usable CPU)")
    ap.add_argument("--max-busy-seconds", type=float, default=120.0,
                    help="the background processes end by themselves after this long")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.burst <= 0 or args.rounds < 1 or args.busy < 1 or args.batch < 1:
        ap.error("--seconds, --burst, --rounds, --busy and --batch must be positive")

    # SIGTERM (e.g. a CI time-out) ends the run through the same clean-up as Ctrl-C
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    envs = {
        "1 thread": UnoVectorEnv(args.game, args.batch, num_players=args.players, seed=0, num_threads=1),
        "default": UnoVectorEnv(args.game, args.batch, num_players=args.players, seed=0),
    }
    policies = {name: RandomLegalPolicy(0) for name in envs}  # one per env: each draws its own actions
    for name, env in envs.items():  # compile and warm up outside the timed runs
        env.reset()
        for _ in range(5):
            env.step(policies[name].act_batch(env.observations, env.masks))
    default_threads = envs["default"].num_threads
    source = f"${_threads.ENV_VAR}" if os.environ.get(_threads.ENV_VAR, "").strip() else "usable CPUs"
    print(f"{args.game} {args.players}p, B={args.batch}, UnoVectorEnv with random legal actions; default "
          f"num_threads={default_threads} ({source}); {_threads.available_cpus()} usable CPUs; loaded = "
          f"{args.busy} busy processes; {args.rounds} rounds of {args.seconds:g} s per measurement, in alternating "
          f"bursts of {args.burst:g} s", flush=True)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)

    rows: list[dict] = []
    procs: list[subprocess.Popen] = []
    try:
        for r in range(args.rounds):
            for phase in ("quiet", "loaded"):
                if phase == "loaded":
                    procs = start_busy(args.busy, args.max_busy_seconds)
                    time.sleep(0.3)  # let them get going
                result = {"round": r, "phase": phase, "load1": os.getloadavg()[0]}
                measured = measure(envs, policies, args.seconds, args.burst, first=r % 2)  # alternate who starts
                for name, (sps, cpu, step_sps) in measured.items():
                    result[name] = sps
                    result[f"{name} cpu"] = cpu
                    result[f"{name} step only"] = step_sps
                result["ratio"] = result["default"] / result["1 thread"]
                result["step only ratio"] = result["default step only"] / result["1 thread step only"]
                rows.append(result)
                print(f"round {r} {phase:6s}  1 thread {result['1 thread']:>11,.0f} steps/s "
                      f"(CPU {result['1 thread cpu']:.2f})  default {result['default']:>11,.0f} steps/s "
                      f"(CPU {result['default cpu']:.2f})  default/1 thread {result['ratio']:.2f}x "
                      f"(env.step alone {result['step only ratio']:.2f}x)  load {result['load1']:.1f}", flush=True)
                if phase == "loaded":
                    stop_busy(procs)
                    procs = []
    finally:
        stop_busy(procs)

    summary = {}
    print()
    print(f"median over {args.rounds} rounds       1 thread      default   default / 1 thread   (env.step alone)")
    for phase in ("quiet", "loaded"):
        sel = [x for x in rows if x["phase"] == phase]
        one = statistics.median(x["1 thread"] for x in sel)
        dflt = statistics.median(x["default"] for x in sel)
        ratio = statistics.median(x["ratio"] for x in sel)
        step_ratio = statistics.median(x["step only ratio"] for x in sel)
        summary[phase] = {"1 thread": one, "default": dflt, "ratio": ratio, "step only ratio": step_ratio}
        print(f"{phase:6s} (steps/s)          {one:>11,.0f}  {dflt:>11,.0f}   {ratio:.2f}x"
              f"                {step_ratio:.2f}x")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "default_threads": default_threads, "rounds": rows, "summary": summary,
                       "numpy": np.__version__}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
