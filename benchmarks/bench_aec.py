"""AEC speed: full random 2-player games through ``uno_env.env()`` beside RLCard UNO and OpenSpiel crazy_eights.

The loop is PettingZoo's canonical one (``agent_iter()``, ``last()``, a uniformly random legal action from the
mask, ``step()``), so the figure includes the observation every ``last()`` builds.  All competitors run in this
process, one after the other, ``--repeats`` times each; the table shows medians and the ratio to RLCard.

    python benchmarks/bench_aec.py [--seconds 2] [--repeats 5] [--games classic pocket dice] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uno_env  # noqa: E402

import _baselines  # noqa: E402


def uno_env_aec_steps_per_sec(game: str, seconds: float, repeats: int, num_players: int = 2, seed: int = 0):
    env = uno_env.env(game, num_players=num_players)
    rng = _baselines._Uniforms(seed)
    env.reset(seed=seed)  # compile and warm up outside the timed runs
    results = []
    for rep in range(repeats):
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        episode = 0
        while time.perf_counter() < deadline:
            env.reset(seed=seed + 1000 * rep + episode)
            episode += 1
            for _agent in env.agent_iter():
                obs, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.index(len(legal))])
                    steps += 1
                env.step(action)
        results.append(steps / (time.perf_counter() - start))
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", nargs="+", default=["classic", "pocket", "dice"], choices=uno_env.GAMES)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = []
    for game in args.games:
        rows.append((f"uno-env {game} env() AEC loop", uno_env_aec_steps_per_sec(game, args.seconds, args.repeats)))
    competitors = [
        ("RLCard uno env.step", lambda: _baselines.rlcard_uno_steps_per_sec(args.seconds, args.repeats)),
        ("OpenSpiel crazy_eights rl_environment",
         lambda: _baselines.openspiel_crazy_eights_steps_per_sec(args.seconds, args.repeats, mode="rl_env")),
        ("OpenSpiel crazy_eights raw C++ state",
         lambda: _baselines.openspiel_crazy_eights_steps_per_sec(args.seconds, args.repeats, mode="raw")),
    ]
    for name, fn in competitors:
        try:
            rows.append((name, fn()))
        except ImportError as exc:
            print(f"skipped {name}: {exc}", file=sys.stderr)
    medians = {name: statistics.median(v) for name, v in rows}
    base = medians.get("RLCard uno env.step")
    print(f"2 players, median of {args.repeats} runs of {args.seconds:g} s each")
    print(f"{'engine':<42}{'steps/s':>12}{'vs RLCard':>11}")
    for name, _ in rows:
        ratio = f"{medians[name] / base:.2f}x" if base else "n/a"
        print(f"{name:<42}{medians[name]:>12,.0f}{ratio:>11}")
    if args.json:
        args.json.write_text(json.dumps({name: {"median": medians[name], "runs": v} for name, v in rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
