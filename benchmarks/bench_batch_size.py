"""Steps/s per game of big batches against a small one, in alternating bursts on one thread (CPU time).

Issue 17 asks that B=8192 runs at least as fast per game as B=1024.  On a shared machine two sequential runs see
different loads, so this alternates short bursts of the two batch sizes in one process, on one simulator thread,
and counts steps per CPU-second of this process; the ratio of the medians is the number to read.  The bytes a game
keeps are printed beside it: its state row (``Game.state_len`` int16 entries) and the float32 observation and int8
legal mask rows that every step writes.  With more than two ``--batches`` (a sweep, e.g. ``256 1024 2048 4096 8192
16384``) every size is compared with the first.  The simulator prefetches only batches over
``uno_env.vector.PREFETCH_MIN_BYTES``; ``--prefetch-ab`` instead alternates bursts with and without prefetching at
each batch size and prints the median of the pairs' ratios (without/with) and its quartiles: how that threshold was
chosen.  ``--threads 0`` measures the env as users get it, on its default threads, in wall time (CPU time would
count the helpers' spinning between steps, which costs a user's wall clock nothing).  ``--memory`` adds, beside
each row, the same comparison for memory traffic alone: a compiled pass over arrays of the env's shapes that reads
one entry of every cache line of each state row and writes each observation and mask row whole, every step's
bytes with none of its work.  Its big/small ratio is what the caches this machine gives one core make of the
batch's size; the simulator's ratio above it is how much of that its prefetching hides.

    python benchmarks/bench_batch_size.py [--games classic pocket dice] [--players 2 4] [--batches 1024 8192 ...]
                                          [--bursts 9] [--burst 0.3] [--threads 1] [--prefetch-ab] [--memory]
                                          [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np
from numba import njit

from uno_env._threads import resolve_num_threads
from uno_env.vector import PREFETCH_MIN_BYTES, RandomLegalPolicy, UnoVectorEnv


def burst(env: UnoVectorEnv, policy: RandomLegalPolicy, seconds: float, wall: bool = False) -> float:
    """Steps per CPU-second of one burst of random legal actions (observations and masks every step); with ``wall``,
    steps per second of wall time, a burst of ``seconds`` of wall time (threaded envs: helpers' spinning is CPU time
    that a user's wall clock does not see)."""
    clock = time.perf_counter if wall else time.process_time
    obs, masks = env.observations, env.masks
    env.step(policy.act_batch(obs, masks))
    calls, t0 = 0, clock()
    while clock() - t0 < seconds:
        env.step(policy.act_batch(obs, masks))
        calls += 1
    return calls * env.num_envs / (clock() - t0)


@njit(cache=False, boundscheck=False)
def memory_pass(states, obs, masks):  # pragma: no cover - compiled
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


def memory_burst(arrays: tuple[np.ndarray, np.ndarray, np.ndarray], seconds: float) -> float:
    """Game rows per CPU-second of :func:`memory_pass` over ``arrays`` for a burst of ``seconds``."""
    memory_pass(*arrays)
    calls, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        memory_pass(*arrays)
        calls += 1
    return calls * arrays[0].shape[0] / (time.process_time() - t0)


def prefetch_ab(args: argparse.Namespace) -> None:
    print(f"one simulator thread; {args.bursts} pairs of {args.burst:g} CPU-s bursts without / with prefetching; "
          f"load average {os.getloadavg()[0]:.2f} at the start; the simulator prefetches over "
          f"{PREFETCH_MIN_BYTES / 2**20:g} MiB")
    print(f"{'game':<9}{'players':>7}{'B':>7}{'MiB':>7}{'with':>12}{'without':>12}{'without/with [quartiles]':>30}")
    out = {}
    for game in args.games:
        for n in args.players:
            for b in args.batches:
                env = UnoVectorEnv(game, b, num_players=n, seed=0, num_threads=1)
                env.reset()
                policy = RandomLegalPolicy(0)
                runs: dict[bool, list[float]] = {True: [], False: []}
                ratios = []
                for i in range(args.bursts):
                    for on in ((True, False) if i % 2 == 0 else (False, True)):
                        env.prefetch = on
                        runs[on].append(burst(env, policy, args.burst))
                    ratios.append(runs[False][-1] / runs[True][-1])
                q1, _, q3 = statistics.quantiles(ratios, n=4)
                mib = b * (env.states[0].nbytes + env.observations[0].nbytes + env.masks[0].nbytes) / 2**20
                with_, without = statistics.median(runs[True]), statistics.median(runs[False])
                print(f"{game:<9}{n:>7}{b:>7}{mib:>7.1f}{with_:>12,.0f}{without:>12,.0f}"
                      f"{statistics.median(ratios):>12.3f} [{q1:.3f}, {q3:.3f}]", flush=True)
                out[f"{game}/{n}p/{b}"] = {"mib": mib, "with": runs[True], "without": runs[False]}
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=["classic", "pocket", "dice"])
    parser.add_argument("--players", nargs="+", type=int, default=[2, 4])
    parser.add_argument("--batches", nargs="+", type=int, default=[1024, 8192],
                        help="batch sizes; the first is the one the others are compared with")
    parser.add_argument("--bursts", type=int, default=9)
    parser.add_argument("--burst", type=float, default=0.3, help="seconds of CPU time per burst")
    parser.add_argument("--prefetch-ab", action="store_true",
                        help="at each batch size, bursts without against with the kernel's prefetching")
    parser.add_argument("--threads", type=int, default=1,
                        help="simulator threads (num_threads); 0 = the env's default. Other than 1, bursts are timed "
                             "and counted in wall time")
    parser.add_argument("--memory", action="store_true",
                        help="also time a pass over arrays of the env's shapes that only moves a step's bytes")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.threads < 0:
        parser.error(f"--threads must be 0 (the default) or a positive count, got {args.threads}")
    if args.prefetch_ab:
        prefetch_ab(args)
        return
    batches = args.batches
    if len(batches) < 2 or len(set(batches)) != len(batches) or min(batches) < 1:
        parser.error(f"--batches needs two or more distinct positive sizes, got {batches}")
    small = batches[0]
    threads = None if args.threads == 0 else args.threads
    wall = threads != 1
    unit = "s of wall time; steps per second" if wall else "CPU-s; steps per CPU-second"
    print(f"simulator threads: {resolve_num_threads(threads)}{' (the default)' if threads is None else ''}; "
          f"{args.bursts} alternating bursts of {args.burst:g} {unit} (median); load average "
          f"{os.getloadavg()[0]:.2f} at the start")
    header = f"{'game':<9}{'players':>7}{'row bytes':>11}{'obs+mask':>10}" + "".join(f"{f'B={b}':>13}" for b in batches)
    if len(batches) == 2:
        header += f"{'big/small':>11}   pairs: median [quartiles]"
        if args.memory:
            header += f"{'memory only: big/small':>26}"
    else:
        header += "".join(f"{f'{b}/{small}':>12}" for b in batches[1:])
        if args.memory:
            header += "   memory only:" + "".join(f"{f'{b}/{small}':>12}" for b in batches[1:])
    print(header)
    out = {}
    for game in args.games:
        for n in args.players:
            envs = {b: UnoVectorEnv(game, b, num_players=n, seed=0, num_threads=threads) for b in batches}
            for env in envs.values():
                env.reset()
            runs: dict[int, list[float]] = {b: [] for b in batches}
            memory: dict[int, list[float]] = {b: [] for b in batches}
            # copies of the env's arrays (same shapes and dtypes), so the pass leaves the games alone
            copies = {b: (e.states.copy(), e.observations.copy(), e.masks.copy()) for b, e in envs.items()}
            policy = RandomLegalPolicy(0)
            for i in range(args.bursts):
                for b in (batches if i % 2 == 0 else batches[::-1]):
                    runs[b].append(burst(envs[b], policy, args.burst, wall))
                    if args.memory:
                        memory[b].append(memory_burst(copies[b], args.burst))
            med = {b: statistics.median(v) for b, v in runs.items()}
            row_bytes = envs[small].states[0].nbytes
            io_bytes = envs[small].observations[0].nbytes + envs[small].masks[0].nbytes
            line = f"{game:<9}{n:>7}{row_bytes:>11,}{io_bytes:>10,}" + "".join(f"{med[b]:>13,.0f}" for b in batches)
            line += "".join(f"{med[b] / med[small]:>{11 if len(batches) == 2 else 12}.2f}" for b in batches[1:])
            if len(batches) == 2 and args.bursts >= 2:  # each burst of the big batch against the small one's beside it
                q1, q2, q3 = statistics.quantiles([a / b for a, b in zip(runs[batches[1]], runs[small])], n=4)
                line += f"   {q2:.2f} [{q1:.2f}, {q3:.2f}]"
                if args.memory:
                    line += f"{statistics.median(memory[batches[1]]) / statistics.median(memory[small]):>26.2f}"
            elif args.memory:
                line += "              " + "".join(
                    f"{statistics.median(memory[b]) / statistics.median(memory[small]):>12.2f}" for b in batches[1:])
            print(line, flush=True)
            for env in envs.values():
                env.close()
            out[f"{game}/{n}p"] = {"row_bytes": row_bytes, "obs_mask_bytes": io_bytes,
                                   "runs": {str(b): v for b, v in runs.items()}}
            if args.memory:
                out[f"{game}/{n}p"]["memory_only"] = {str(b): v for b, v in memory.items()}
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
