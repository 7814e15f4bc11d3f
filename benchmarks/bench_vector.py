"""The batched simulator: steps/s at B = 1 .. 8192 games a call, on 1 thread and the default thread count, quiet and
under contention this script makes itself, beside RLCard's UNO and a do-nothing kernel; bytes per game.

A "step" is one decision of one game: a call of ``UnoVectorEnv.step`` over B games is B steps, each producing the
next observation and legal mask of every game (random legal actions drawn in the compiled core by
``RandomLegalPolicy``; finished games reset). Wall-clock figures, every engine in this process, taken in rounds of
one burst each so that a shared machine's drift hits all alike; medians of the rounds, ratios with the quartiles
of the per-round ratios. One-thread engines are timed per CPU second of this process (so other load on the machine
does not count), several threads and the contention phases per second of wall time.

* sweep: 2-player classic at each ``--batches`` size, 1 thread and the default (``num_threads=None``), beside
  RLCard's ``env.step`` and the do-nothing kernel: a compiled pass that reads each game's state row and writes its
  observation and mask rows with no rules behind them (what the bytes alone cost at that B);
* games: every game at 2 and 4 players, B=1024, 1 thread, beside RLCard;
* contention: B=1024, 1 thread against the default, quiet and with ``--busy`` spinning processes that this
  script starts and stops (quiet and loaded phases alternate ``--rounds`` times);
* bytes: a game's state, observation and mask rows.

    python benchmarks/bench_vector.py [--quick] [--batches 1 8 64 512 1024 8192] [--seconds 0.5] [--rounds 5]

Writes ``benchmarks/results/bench_vector.json`` (``--json`` elsewhere).
"""
from __future__ import annotations

import argparse
import atexit
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uno_env  # noqa: E402
from uno_env import _threads  # noqa: E402
from uno_env.vector import RandomLegalPolicy, UnoVectorEnv  # noqa: E402

import _baselines  # noqa: E402

RLCARD = "RLCard UNO env.step"
NULL = "do-nothing kernel"

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


def vector_loop(game: str, num_players: int, batch: int, num_threads: int | None,
                wall: bool = False) -> Callable[[float], float]:
    """``UnoVectorEnv`` with random legal actions as a burst function: steps per CPU second of this process (one
    thread), or with ``wall`` per second of wall time (several threads: their CPU seconds are not what a user waits)."""
    clock = time.perf_counter if wall else _baselines.clock
    env = UnoVectorEnv(game, batch, num_players=num_players, seed=0, num_threads=num_threads)
    policy = RandomLegalPolicy(0)
    env.reset()
    obs, masks = env.observations, env.masks

    def burst(seconds: float) -> float:
        calls, start = 0, clock()
        while True:
            env.step(policy.act_batch(obs, masks))
            calls += 1
            elapsed = clock() - start
            if elapsed >= seconds:
                return calls * batch / elapsed

    burst(0.05)
    return burst


@njit(cache=False, boundscheck=False)
def null_pass(states, obs, masks):  # pragma: no cover - compiled
    """One entry of every 64-byte line of each state row read, each observation and mask row written: a step's
    bytes without its work (the sum keeps the reads from being optimised away)."""
    total = 0
    line = 64 // states.itemsize
    for b in range(states.shape[0]):
        s = 0
        for j in range(0, states.shape[1], line):
            s += states[b, j]
        for j in range(obs.shape[1]):
            obs[b, j] = s
        for j in range(masks.shape[1]):
            masks[b, j] = s & 1
        total += s
    return total


def null_loop(game: str, num_players: int, batch: int) -> Callable[[float], float]:
    """The do-nothing kernel over arrays of the env's shapes as a burst function: game rows per CPU second."""
    env = UnoVectorEnv(game, 1, num_players=num_players, seed=0, num_threads=1)
    arrays = (np.zeros((batch, env.states.shape[1]), env.states.dtype),
              np.zeros((batch, env.observations.shape[1]), env.observations.dtype),
              np.zeros((batch, env.masks.shape[1]), env.masks.dtype))

    def burst(seconds: float) -> float:
        calls, start = 0, _baselines.clock()
        while True:
            null_pass(*arrays)
            calls += 1
            elapsed = _baselines.clock() - start
            if elapsed >= seconds:
                return calls * batch / elapsed

    burst(0.05)
    return burst


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


def ratios(a: list[float], b: list[float]) -> list[float]:
    return _baselines.quartiles([x / y for x, y in zip(a, b)])


def sweep(args: argparse.Namespace, run: _baselines.Run, rlcard: Callable[[float], float] | None) -> None:
    bursts: dict[str, Callable[[float], float]] = {RLCARD: rlcard} if rlcard else {}
    for b in args.batches:
        bursts[f"B={b} 1 thread"] = vector_loop("classic", 2, b, 1)
        bursts[f"B={b} default threads"] = vector_loop("classic", 2, b, None, wall=True)
        bursts[f"B={b} {NULL}"] = null_loop("classic", 2, b)
    runs = _baselines.alternate(bursts, args.rounds, args.seconds)
    med = {name: statistics.median(v) for name, v in runs.items()}
    print(f"\n2-player classic, median of {args.rounds} rounds of {args.seconds:g} s bursts: steps per CPU second "
          f"(1 thread, the kernel, RLCard), steps per wall second (default threads: {_threads.default_num_threads()})")
    print(f"{'B':>6}{'1 thread':>13}{'default':>13}{NULL:>20}{'1 thread / RLCard':>20}")
    for b in args.batches:
        one, default, null = (med[f"B={b} {k}"] for k in ("1 thread", "default threads", NULL))
        vs = f"{one / med[RLCARD]:.1f}x" if rlcard else "n/a"
        print(f"{b:>6}{one:>13,.0f}{default:>13,.0f}{null:>20,.0f}{vs:>20}")
    for b in args.batches:
        one = runs[f"B={b} 1 thread"]
        if rlcard and b in (1, 1024, 8192):
            run.headline(f"vector/B={b}/rlcard", f"batched classic 2p B={b}, 1 thread vs RLCard",
                         statistics.median(one), med[RLCARD], RLCARD, "steps/CPU-s", spread=ratios(one, runs[RLCARD]))
    if 1024 in args.batches:
        one, null = runs["B=1024 1 thread"], runs[f"B=1024 {NULL}"]
        run.headline("vector/B=1024/null", "batched classic 2p B=1024, 1 thread vs a kernel that only moves its bytes",
                     statistics.median(one), statistics.median(null), NULL, "steps/CPU-s", spread=ratios(one, null))
    run.details["sweep"] = {"seconds": args.seconds, "rounds": args.rounds,
                            "default_threads": _threads.default_num_threads(), "steps_per_s": runs}


def games(args: argparse.Namespace, run: _baselines.Run, rlcard: Callable[[float], float] | None) -> None:
    bursts: dict[str, Callable[[float], float]] = {RLCARD: rlcard} if rlcard else {}
    for game in uno_env.GAMES:
        for n in (2, 4):
            bursts[f"{game} {n}p"] = vector_loop(game, n, 1024, 1)
    runs = _baselines.alternate(bursts, args.rounds, args.seconds)
    print("\nB=1024, 1 thread, steps per CPU second")
    for name, v in runs.items():
        print(f"  {name:<22}{statistics.median(v):>13,.0f}")
    if rlcard:
        for game in uno_env.GAMES:
            ours = runs[f"{game} 2p"]
            run.headline(f"vector/{game}/2p/B=1024/rlcard", f"batched {game} 2p B=1024, 1 thread vs RLCard",
                         statistics.median(ours), statistics.median(runs[RLCARD]), RLCARD, "steps/CPU-s",
                         spread=ratios(ours, runs[RLCARD]))
    run.details["games_B1024_1_thread"] = runs


def contention(args: argparse.Namespace, run: _baselines.Run) -> None:
    bursts = {"1 thread": vector_loop("classic", 2, 1024, 1, wall=True),
              "default": vector_loop("classic", 2, 1024, None, wall=True)}
    phases: dict[str, dict[str, list[float]]] = {"quiet": {k: [] for k in bursts}, "loaded": {k: [] for k in bursts}}
    procs: list[subprocess.Popen] = []
    atexit.register(lambda: stop_busy(procs))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    for _ in range(args.rounds):
        for phase in ("quiet", "loaded"):
            if phase == "loaded":
                procs[:] = start_busy(args.busy, 60.0)
                time.sleep(0.2)
            got = _baselines.alternate(bursts, max(1, round(args.seconds / 0.1)), 0.1)
            for k, v in got.items():
                phases[phase][k].append(sum(v) / len(v))
            stop_busy(procs)
    print(f"\nB=1024 classic 2p, default threads ({_threads.default_num_threads()}) / 1 thread, quiet and beside "
          f"{args.busy} busy processes, {args.rounds} rounds")
    for phase, got in phases.items():
        q = ratios(got["default"], got["1 thread"])
        print(f"  {phase:<7} 1 thread {statistics.median(got['1 thread']):>11,.0f}  default "
              f"{statistics.median(got['default']):>11,.0f}  ratio {q[1]:.2f} [{q[0]:.2f}, {q[2]:.2f}]")
        run.headline(f"vector/contention/{phase}", f"batched B=1024, default threads vs 1 thread, {phase}",
                     statistics.median(got["default"]), statistics.median(got["1 thread"]), "1 thread",
                     "steps/s (wall)", spread=q)
    run.details["contention"] = {"busy": args.busy, **phases}


def row_bytes(run: _baselines.Run) -> None:
    rows = {}
    for game in uno_env.GAMES:
        for n in (2, 4):
            env = UnoVectorEnv(game, 1, num_players=n, seed=0, num_threads=1)
            rows[f"{game} {n}p"] = {"state": env.states[0].nbytes, "observation": env.observations[0].nbytes,
                                    "mask": env.masks[0].nbytes}
    print("\nbytes per game: state row, observation row, mask row")
    for name, r in rows.items():
        print(f"  {name:<12}{r['state']:>7}{r['observation']:>7}{r['mask']:>7}")
    run.details["bytes_per_game"] = rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes, rounds and shorter bursts (about 1 min)")
    parser.add_argument("--batches", nargs="+", type=int, default=None,
                        help="sizes of the sweep (default 1 8 64 512 1024 8192; --quick: 1 64 1024 8192)")
    parser.add_argument("--seconds", type=float, default=None, help="one burst (default 0.5; --quick 0.25)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="rounds of one burst per engine (default 5; --quick 3)")
    parser.add_argument("--busy", type=int, default=2 * _threads.available_cpus(),
                        help="spinning processes of the loaded phase (default 2 per usable CPU)")
    parser.add_argument("--json", type=Path, default=None, help="write here instead of benchmarks/results/")
    args = parser.parse_args(argv)
    args.batches = args.batches or ([1, 64, 1024, 8192] if args.quick else [1, 8, 64, 512, 1024, 8192])
    args.seconds = args.seconds or (0.25 if args.quick else 0.5)
    args.rounds = args.rounds or (3 if args.quick else 5)
    if args.seconds <= 0 or args.rounds < 1 or min(args.batches) < 1 or args.busy < 1:
        parser.error("--seconds must be > 0, --rounds, --busy and every batch size >= 1")
    run = _baselines.Run("bench_vector", argv, args.quick)
    try:
        rlcard = _baselines.rlcard_uno_loop()
    except ImportError as exc:
        print(f"skipped {RLCARD}: {exc}", file=sys.stderr)
        rlcard = None
    sweep(args, run, rlcard)
    games(args, run, rlcard)
    contention(args, run)
    row_bytes(run)
    run.write(args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
