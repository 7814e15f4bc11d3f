"""Wall and CPU time of a training run's final arena (the shipped 2-player classic policy, which takes the heuristic's
advice, against random, greedy and heuristic), played one game at a time and in lockstep batches, in one run.

* ``sequential``: ``run_arena(..., batched=False)``, the arena before the lockstep path: one ``play_game`` per game,
  one agent call per decision;
* ``batched``: the default, ``training.evaluate.play_lockstep``: ``--batch-size`` games at a time, one ``act_batch``
  call per agent and round.

Both play the same games (the script checks that the wins are equal).  Each mode runs in a fresh process; CPU
seconds (the process's and its arena workers') are reported beside wall seconds because the machine is shared:
wall time swings with the load, CPU time much less.  The make-train final arena is ``--games 10000 --workers 2``.

    python benchmarks/bench_final_arena.py --games 1000
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

MODES = ("sequential", "batched")
OPPONENTS = ("random", "greedy", "heuristic")


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system  # children: the arena's (joined) workers


def run_mode(mode: str, games: int, seed: int, workers: int, batch_size: int) -> list[tuple[str, int, float, float]]:
    import uno_env.training.evaluate as E
    from uno_env.agents.ppo import policy_path

    path = policy_path("classic", 2)
    kw = dict(game="classic", num_players=2, rules="standard", workers=workers, ratings=False,
              batched=mode == "batched", batch_size=batch_size)
    for opp in OPPONENTS:  # warm-up: numba's cache loads and first calls are not what is measured
        E.run_arena([path, opp], games=10, seed=seed + 1, **kw)
    rows = []
    for opp in OPPONENTS:  # what against_baselines plays, with the batching chosen here
        c0, t0 = _cpu(), time.time()
        res = E.run_arena([path, opp], games=games, seed=seed, **kw)
        rows.append((opp, res.agents[0].wins, _cpu() - c0, time.time() - t0))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="games per opponent (default 1000)")
    ap.add_argument("--seed", type=int, default=2024, help="arena seed (default 2024, the trainer's)")
    ap.add_argument("--workers", type=int, default=1, help="arena worker processes (default 1; make train: 2)")
    ap.add_argument("--batch-size", type=int, default=256, help="lockstep games at a time (default 256)")
    ap.add_argument("--mode", choices=MODES, default=None, help=argparse.SUPPRESS)  # one mode, in a child process
    args = ap.parse_args()
    if args.mode:
        for opp, wins, cpu, wall in run_mode(args.mode, args.games, args.seed, args.workers, args.batch_size):
            print(f"{opp} {wins} {cpu:.2f} {wall:.2f}")
        return
    results = {}
    load = os.getloadavg()[0]
    for mode in MODES:  # each in a fresh process: the same warm-up, no state carried over
        out = subprocess.run([sys.executable, __file__, "--mode", mode, "--games", str(args.games), "--seed",
                              str(args.seed), "--workers", str(args.workers), "--batch-size", str(args.batch_size)],
                             check=True, capture_output=True, text=True).stdout
        results[mode] = [(o, int(w), float(c), float(t)) for o, w, c, t in (ln.split() for ln in out.splitlines())]
    print(f"final arena, classic 2p policy vs each baseline, {args.games} games each, seed {args.seed}, "
          f"{args.workers} worker(s), batch size {args.batch_size}; load average {load:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after")
    print(f"{'mode':<11}" + "".join(f"{o + ' cpu s':>16}{'wall s':>8}" for o in OPPONENTS)
          + f"{'total cpu s':>13}{'wall s':>8}")
    for mode, rows in results.items():
        print(f"{mode:<11}" + "".join(f"{c:>16.1f}{t:>8.1f}" for _, _, c, t in rows)
              + f"{sum(r[2] for r in rows):>13.1f}{sum(r[3] for r in rows):>8.1f}")
    wins = {mode: [r[1] for r in rows] for mode, rows in results.items()}
    same = len({tuple(w) for w in wins.values()}) == 1
    print(f"wins {wins['batched']} in both modes: {'yes' if same else 'NO: ' + str(wins)}")
    seq, bat = results["sequential"], results["batched"]
    print(f"batched / sequential: CPU {sum(r[2] for r in bat) / sum(r[2] for r in seq):.2f}, "
          f"wall {sum(r[3] for r in bat) / sum(r[3] for r in seq):.2f}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
