"""AEC speed: full random 2-player games through ``uno_env.env()`` beside RLCard UNO and OpenSpiel crazy_eights.

The loop is PettingZoo's canonical one (``agent_iter()``, ``last()``, a uniformly random legal action from the
mask, ``step()``), so the figure includes the observation every ``last()`` builds.  All competitors run in this
process, in ``--repeats`` rounds of one ``--seconds`` burst each (every other round in reverse order), so that a
drift of a shared machine's speed hits every engine alike; the table shows each engine's median, the ratio of the
medians to RLCard's, and the median and quartiles of the per-round ratios (each engine's burst against RLCard's
burst of the same round).

    python benchmarks/bench_aec.py [--seconds 1] [--repeats 15] [--games classic pocket dice] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uno_env  # noqa: E402

import _baselines  # noqa: E402

RLCARD = "RLCard uno env.step"


def uno_env_aec_loop(game: str, num_players: int = 2, seed: int = 0) -> Callable[[float], float]:
    """uno-env's AEC loop as a burst function: ``burst(seconds)`` plays seeded random games for ``seconds`` of wall
    time and returns steps per second; the env, the episode count and the random stream live on between bursts."""
    env = uno_env.env(game, num_players=num_players)
    rng = _baselines._Uniforms(seed)
    env.reset(seed=seed)  # compile and warm up outside the timed bursts
    episodes = [0]

    def burst(seconds: float) -> float:
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            env.reset(seed=seed + episodes[0])
            episodes[0] += 1
            for _agent in env.agent_iter():
                obs, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.index(len(legal))])
                    steps += 1
                env.step(action)
        return steps / (time.perf_counter() - start)

    return burst


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="wall time of one burst of one engine")
    parser.add_argument("--repeats", type=int, default=15, help="rounds: every engine runs one burst per round")
    parser.add_argument("--games", nargs="+", default=["classic", "pocket", "dice"], choices=uno_env.GAMES)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be > 0 and --repeats >= 1")
    loops: dict[str, Callable[[float], float]] = {
        f"uno-env {game} env() AEC loop": uno_env_aec_loop(game) for game in args.games}
    competitors = [
        (RLCARD, lambda: _baselines.rlcard_uno_loop()),
        ("OpenSpiel crazy_eights rl_environment", lambda: _baselines.openspiel_crazy_eights_loop(mode="rl_env")),
        ("OpenSpiel crazy_eights raw C++ state", lambda: _baselines.openspiel_crazy_eights_loop(mode="raw")),
    ]
    for name, make in competitors:
        try:
            loops[name] = make()
        except ImportError as exc:
            print(f"skipped {name}: {exc}", file=sys.stderr)
    for burst in loops.values():
        burst(0.2)  # warm up (first games, caches) outside the timed rounds
    runs: dict[str, list[float]] = {name: [] for name in loops}
    order = list(loops.items())
    for i in range(args.repeats):  # rounds of one burst per engine: a drift of the machine's speed hits all alike,
        for name, burst in (order if i % 2 == 0 else order[::-1]):  # and every other round runs them in reverse
            runs[name].append(burst(args.seconds))
    medians = {name: statistics.median(v) for name, v in runs.items()}
    base = runs.get(RLCARD)
    paired = {name: [r / b for r, b in zip(v, base)] for name, v in runs.items()} if base else {}
    print(f"2 players, median of {args.repeats} rounds of one {args.seconds:g} s burst per engine, alternated")
    print(f"{'engine':<42}{'steps/s':>12}{'vs RLCard':>11}   per round, median [quartiles]")
    for name in runs:
        ratio = f"{medians[name] / medians[RLCARD]:.2f}x" if base else "n/a"
        spread = ""
        if base and name != RLCARD:
            q1, q2, q3 = _quartiles(paired[name])
            spread = f"   {q2:.2f}x [{q1:.2f}, {q3:.2f}]"
        print(f"{name:<42}{medians[name]:>12,.0f}{ratio:>11}{spread}")
    if args.json:
        out: dict = {name: {"median": medians[name], "runs": v} for name, v in runs.items()}
        if paired:
            out["paired_ratio_to_rlcard"] = {name: dict(zip(("q1", "median", "q3"), _quartiles(r)), ratios=r)
                                             for name, r in paired.items() if name != RLCARD}
        args.json.write_text(json.dumps(out, indent=2))
    return 0


def _quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        return values[0], values[0], values[0]
    q1, _, q3 = statistics.quantiles(values, n=4)
    return q1, statistics.median(values), q3


if __name__ == "__main__":
    raise SystemExit(main())
