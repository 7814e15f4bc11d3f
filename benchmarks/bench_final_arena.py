"""CPU time of a training run's final arena (the shipped 2-player classic policy, which takes the heuristic's advice,
against random, greedy and heuristic), played three ways in one process each:

* ``before``: the heuristic's advice and the heuristic opponent both computed by the Python ``HeuristicAgent``
  (the code before the compiled advice);
* ``advice``: the advice from the compiled heuristic, the opponent still the Python agent;
* ``after``: both compiled (today's code).

The choices are the same in all three (tests hold the compiled heuristic equal to the Python one), so the wins must
match; the script checks it.  CPU seconds (``time.process_time``, one worker) are reported beside wall seconds
because the machine is shared: wall time swings with the load, CPU time much less.

    python benchmarks/bench_final_arena.py --games 1000
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

MODES = ("before", "advice", "after")
OPPONENTS = ("random", "greedy", "heuristic")


def run_mode(mode: str, games: int, seed: int) -> list[tuple[str, int, float, float]]:
    import uno_env.agents.policy as P
    import uno_env.training.evaluate as E
    from uno_env.agents.heuristic import HeuristicAgent
    from uno_env.agents.ppo import policy_path

    if mode in ("before", "advice"):
        E._arena_player = lambda agent: agent  # the opponent: the Python heuristic
    if mode == "before":
        P.heuristic_advisor = lambda game: HeuristicAgent(P.resolve_game(game), seed=0).act_batch
    path = policy_path("classic", 2)
    for opp in OPPONENTS:  # warm-up: numba's cache loads and first calls are not what is measured
        E.against_baselines(path, [opp], "classic", 2, "standard", 10, seed + 1, workers=1)
    rows = []
    for opp in OPPONENTS:
        c0, t0 = time.process_time(), time.time()
        r = E.against_baselines(path, [opp], "classic", 2, "standard", games, seed, workers=1)[0]
        rows.append((opp, int(r["wins"]), time.process_time() - c0, time.time() - t0))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="games per opponent (default 1000)")
    ap.add_argument("--seed", type=int, default=2024, help="arena seed (default 2024, the trainer's)")
    ap.add_argument("--mode", choices=MODES, default=None, help=argparse.SUPPRESS)  # one mode, in a child process
    args = ap.parse_args()
    if args.mode:
        for opp, wins, cpu, wall in run_mode(args.mode, args.games, args.seed):
            print(f"{opp} {wins} {cpu:.2f} {wall:.2f}")
        return
    results = {}
    for mode in MODES:  # each in a fresh process: the modes patch module globals
        out = subprocess.run([sys.executable, __file__, "--mode", mode, "--games", str(args.games), "--seed",
                              str(args.seed)], check=True, capture_output=True, text=True).stdout
        results[mode] = [(o, int(w), float(c), float(t)) for o, w, c, t in (ln.split() for ln in out.splitlines())]
    print(f"final arena, classic 2p policy vs each baseline, {args.games} games each, seed {args.seed}, 1 worker; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'mode':<8}" + "".join(f"{o + ' cpu s':>16}{'wall s':>8}" for o in OPPONENTS) + f"{'total cpu s':>13}")
    for mode, rows in results.items():
        print(f"{mode:<8}" + "".join(f"{c:>16.1f}{t:>8.1f}" for _, _, c, t in rows)
              + f"{sum(r[2] for r in rows):>13.1f}")
    wins = {mode: [r[1] for r in rows] for mode, rows in results.items()}
    same = len({tuple(w) for w in wins.values()}) == 1
    print(f"wins {wins['after']} in every mode: {'yes' if same else 'NO: ' + str(wins)}")
    base = sum(r[2] for r in results["before"])
    print(f"CPU time after / before: {sum(r[2] for r in results['after']) / base:.2f}; "
          f"advice only / before: {sum(r[2] for r in results['advice']) / base:.2f}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
