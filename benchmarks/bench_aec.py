"""The environment step: uno-env's AEC env in PettingZoo's canonical loop beside RLCard's UNO, OpenSpiel's
crazy_eights (its C++ state and its rl_environment), a PettingZoo classic env and a do-nothing AEC env.

Full random 2-player games: ``agent_iter()``, ``last()``, a uniformly random legal action from the mask, ``step()``,
so our figure includes the observation every ``last()`` builds. Every engine runs in this process, in ``--rounds``
rounds of one ``--seconds`` burst each (every other round in reverse order), so a drift of a shared machine's speed
hits every engine alike. Medians of the rounds; the ratios are ours / the reference's, with the quartiles of the
per-round ratios. The do-nothing env is the floor of the loop itself (ours / it is below 1).

    python benchmarks/bench_aec.py [--quick] [--seconds 1] [--rounds 15] [--games classic pocket dice]

Writes ``benchmarks/results/bench_aec.json`` (``--json`` elsewhere).
"""
from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uno_env  # noqa: E402

import _baselines  # noqa: E402

RLCARD = "RLCard UNO env.step"
REFERENCES: dict[str, Callable[[], Callable[[float], float]]] = {
    RLCARD: lambda: _baselines.rlcard_uno_loop(),
    "OpenSpiel crazy_eights rl_environment": lambda: _baselines.openspiel_crazy_eights_loop(mode="rl_env"),
    "OpenSpiel crazy_eights C++ state": lambda: _baselines.openspiel_crazy_eights_loop(mode="raw"),
    "PettingZoo connect_four_v3": lambda: _baselines.aec_loop(_baselines.pettingzoo_classic_env("connect_four_v3")),
    "do-nothing AEC env": lambda: _baselines.aec_loop(_baselines.null_aec_env()),
}


def ours(game: str) -> str:
    return f"uno-env {game} env()"


def uno_env_aec_loop(game: str, num_players: int = 2, seed: int = 0) -> Callable[[float], float]:
    """uno-env's AEC env as a burst function (``_baselines.aec_loop``)."""
    return _baselines.aec_loop(uno_env.env(game, num_players=num_players), seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds of 0.5 s (about 30 s)")
    parser.add_argument("--seconds", type=float, default=None, help="CPU seconds of one burst (default 1)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds of one burst per engine (default 15)")
    parser.add_argument("--games", nargs="+", default=list(uno_env.GAMES), choices=uno_env.GAMES)
    parser.add_argument("--json", type=Path, default=None, help="write here instead of benchmarks/results/")
    args = parser.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (0.5 if args.quick else 1.0)
    rounds = args.rounds if args.rounds is not None else (5 if args.quick else 15)
    if seconds <= 0 or rounds < 1:
        parser.error("--seconds must be > 0 and --rounds >= 1")
    run = _baselines.Run("bench_aec", argv, args.quick)
    loops = {ours(game): uno_env_aec_loop(game) for game in args.games}
    for name, make in REFERENCES.items():
        try:
            loops[name] = make()
        except ImportError as exc:
            print(f"skipped {name}: {exc}", file=sys.stderr)
    runs = _baselines.alternate(loops, rounds, seconds)
    medians = {name: statistics.median(v) for name, v in runs.items()}
    print(f"2 players, median of {rounds} rounds of one {seconds:g} s burst per engine, alternated: "
          "steps per CPU second")
    for name, v in medians.items():
        print(f"  {name:<42}{v:>12,.0f}")
    for game in args.games:
        for ref in REFERENCES if game == args.games[0] else [RLCARD]:
            if ref in runs:
                per_round = [a / b for a, b in zip(runs[ours(game)], runs[ref])]
                run.headline(f"aec/{game}/{ref}", f"AEC env {game} 2p vs {ref}", medians[ours(game)], medians[ref],
                             ref, "steps/CPU-s", spread=_baselines.quartiles(per_round))
    run.details = {"seconds": seconds, "rounds": rounds, "steps_per_s": runs}
    run.write(args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
