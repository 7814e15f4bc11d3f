"""``uno-env benchmark``: one agent against the ladder of a table, under the standard protocol, as one leaderboard row.

    uno-env benchmark heuristic --game classic
    uno-env benchmark runs/my_run/policy.npz --game pocket -n 4
    uno-env benchmark my_agent.py:make_agent --game classic --out my_agent.json
    uno-env benchmark ismcts:sims=400 --game dice --quick

AGENT is a registered name (with arguments: ``ismcts:sims=400``), a saved ``.npz`` policy or run directory, or a
factory in your own code, ``path/to/file.py:factory`` or ``package.module:factory`` (:mod:`.agent_code`: loaded only
because you named it).  The protocol (:mod:`.protocol`) fixes the tables, the ladder, the deals and their seeds; the
row holds, per ladder agent, the candidate's win rate with its 95% interval over deals and its mean points per game,
and the candidate's OpenSkill rating on the ladder's scale (:mod:`.leaderboard`).  ``--quick`` plays a short prefix of
the same deals for a first look, printed and never written as a row.  ``uno-env leaderboard ROW.json`` shows a row
beside the ladder.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from uno_env._files import InputFileError
from uno_env.agents.registry import UnknownAgentError
from uno_env.agents.shipped import RENAMED_AGENTS
from uno_env.core.game import Game

from . import protocol as P
from .agent_code import AgentCodeError, is_code_spec, load_code_agent
from .arena_games import IllegalAgentActionError
from .evaluate import _check_output_file
from .leaderboard import (
    ROW_FORMAT,
    TABLE_FORMAT,
    candidate_rating,
    ladder_ratings,
    load_table,
    opponent_entry,
    table_rows,
)
from .limits import MAX_WORKERS
from .protocol import (
    Pair,
    ProtocolError,
    Table,
    default_workers,
    find_table,
    ladder_agents,
    load_protocol_agent,
    pair_deals,
    play_pair,
    play_time_aids,
    protocol_game,
)

__all__ = ["BenchmarkError", "load_candidate", "play_candidate", "make_row", "benchmark", "play_ladder",
           "add_arguments", "run"]

_LABEL = re.compile(r"^[^\x00-\x1f|`\x7f]{1,60}$")


class BenchmarkError(ValueError):
    """A candidate, an option or a result file the benchmark cannot use; the message says which and why."""


def canonical_name(spec: str) -> str:
    """A registered name as the ladder spells it (lower case, a renamed agent under its new name); else ``spec``."""
    low = spec.lower()
    return RENAMED_AGENTS.get(low, low) if ":" not in spec and "/" not in spec else spec


def load_candidate(spec: str, game: Game, allow_pickle: bool = False) -> Any:
    """The agent ``spec`` names for ``game``: a factory in code (``file.py:factory``, ``module:factory``) or
    anything the registry loads; BenchmarkError when it cannot be built."""
    if spec.endswith(".py"):
        raise BenchmarkError(f"agent {spec!r}: name the factory in the file that builds the agent, e.g. "
                             f"{spec}:make_agent")
    try:
        if is_code_spec(spec):
            return load_code_agent(spec, game, seed=P.SEED)
        if allow_pickle:
            from uno_env.agents.registry import load_agent

            return load_agent(spec, game, seed=P.SEED, allow_pickle=True)
        return load_protocol_agent(spec, game)
    except (AgentCodeError, UnknownAgentError, InputFileError, FileNotFoundError, ValueError, TypeError,
            ImportError) as exc:
        raise BenchmarkError(str(exc)) from None


def candidate_label(spec: str, agent: Any, name: str | None, ladder: Sequence[str]) -> str:
    """The candidate's name in its row: ``name``, else a ladder agent's own, else the agent's ``name``, else the
    spec; it must not pass for a ladder agent it is not."""
    canon = canonical_name(spec)
    label = name or (canon if canon in ladder else None) or getattr(agent, "name", None) or spec
    if not isinstance(label, str) or not _LABEL.match(label):
        raise BenchmarkError(f"the agent's name {label!r} cannot head a row (1-60 printable characters, no | or `); "
                             f"give one with --name")
    if label in ladder and canon != label:
        raise BenchmarkError(f"the agent is named {label!r}, as the ladder agent it is not; give it another name "
                             f"with --name")
    return label


def play_candidate(candidate: Any, opponents: Sequence[str], table: Table, game: Game, quick: bool = False,
                   workers: int = 1, on_pair: Callable[[str, int], Any] | None = None,
                   progress: Callable[[int], Any] | None = None) -> list[tuple[str, Pair]]:
    """The candidate's pair with each opponent (ladder names), in order: ``on_pair(opponent, games)`` is called
    before each pair is played, ``progress(k)`` as ``k`` more games finish."""
    out = []
    for name in opponents:
        opponent = load_protocol_agent(name, game)
        deals = pair_deals(table, candidate, opponent, quick)
        if on_pair is not None:
            on_pair(name, 2 * deals)
        out.append((name, play_pair(candidate, opponent, table, deals, workers=workers, progress=progress)))
    return out


def planned_games(candidate: Any, opponents: Sequence[str], table: Table, game: Game, quick: bool) -> list[int]:
    """The games of each pair, before any is played (the progress bar's total)."""
    return [2 * pair_deals(table, candidate, load_protocol_agent(n, game), quick) for n in opponents]


def pair_record(a: str, b: str, pair: Pair) -> dict[str, Any]:
    """A pair as a table file stores it: its size, its times and each side's results (``a`` played first)."""
    return {"a": a, "b": b, "deals": pair.deals, "games": pair.games, "truncated": pair.truncated,
            "mean_length": pair.mean_length, "seconds": pair.seconds, "cpu_seconds": pair.cpu_seconds,
            "a_side": pair.first.to_dict(), "b_side": pair.second.to_dict()}


def pair_entry(opponent: str, pair: Pair) -> dict[str, Any]:
    """One opponent's results in a row, as :func:`~uno_env.training.leaderboard.ladder_row` reads them from a
    stored pair."""
    rec = pair_record("candidate", opponent, pair)
    return opponent_entry(opponent, rec, rec["a_side"], rec["b_side"])


def machine() -> dict[str, Any]:
    """Where a row was played: the platform, the processor, the CPUs and the load when it started."""
    from uno_env._threads import available_cpus

    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), cpu)
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"platform": platform.platform(), "processor": cpu, "cpus": os.cpu_count(),
            "available_cpus": available_cpus(), "python": platform.python_version(), "load_average": load}


def versions() -> dict[str, str]:
    """The versions that decide the games and the ratings."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("uno-env", "numpy", "numba", "openskill"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "not installed"
    return out


def make_row(label: str, spec: str, uses: list[str] | None, table: Table, pairs: Sequence[tuple[str, Pair]],
             quick: bool, ladder: dict[str, Any] | None, workers: int, wall: float) -> dict[str, Any]:
    """The row: the candidate, the table, the protocol, each opponent's results, the rating on the ladder's scale
    (when ``ladder``, the table's stored file, is given), the machine, the versions and the wall time."""
    entries = [pair_entry(name, pair) for name, pair in pairs]
    row: dict[str, Any] = {"format": ROW_FORMAT, "protocol": P.PROTOCOL, "agent": label, "spec": spec,
                           "uses_at_play_time": uses, "table": table.to_dict(), "quick": quick, "seed": P.SEED,
                           "opponents": entries}
    if ladder is not None:
        fixed = {n: (r["mu"], r["sigma"]) for n, r in ladder["ratings"].items()}
        results = [(e["opponent"], e["wins"], e["games"] - e["wins"] - e["truncated"]) for e in entries]
        mu, sigma = candidate_rating(results, fixed)
        row["rating"] = {"mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma}
    row.update(machine=machine(), versions=versions(), workers=workers, wall_seconds=round(wall, 1))
    return row


def benchmark(spec: str, table: Table, quick: bool = False, workers: int = 1, name: str | None = None,
              allow_pickle: bool = False, progress: Any = None) -> dict[str, Any]:
    """The row of ``spec`` on ``table`` (see the module's docstring): its pairs with every ladder agent (itself
    excepted) and its rating against the stored ladder.  ``progress``: an object with ``start(total_games)``,
    ``pair(opponent, games)`` and ``advance(k)`` (the command's bar), or None."""
    t0 = time.perf_counter()
    game = protocol_game(table)
    ladder = load_table(table)  # before any game: a table without a stored ladder cannot rate the row
    names = [a["name"] for a in ladder["agents"]]
    candidate = load_candidate(spec, game, allow_pickle)
    label = candidate_label(spec, candidate, name, names)
    uses = play_time_aids(candidate)
    opponents = [n for n in names if n != label]
    if workers > 1 and is_code_spec(spec) and multiprocessing.get_start_method() != "fork":
        workers = 1  # a worker that is not forked would have to import the user's module by name
    if progress is not None:
        progress.start(sum(planned_games(candidate, opponents, table, game, quick)))
    pairs = play_candidate(candidate, opponents, table, game, quick, workers,
                           on_pair=None if progress is None else progress.pair,
                           progress=None if progress is None else progress.advance)
    return make_row(label, spec, uses, table, pairs, quick, ladder, workers, time.perf_counter() - t0)


# ------------------------------------------------------------------------------------------------ CLI
class _Bar:
    """The command's progress bar (rich): every pair's games on one bar, with the time left."""

    def __init__(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(TextColumn("{task.description:<32}"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("games"), TimeElapsedColumn(), TextColumn("left"),
                                  TimeRemainingColumn(), transient=True)
        self._task: Any = None

    def start(self, total: int) -> None:
        self._progress.start()
        self._task = self._progress.add_task("loading", total=total)

    def pair(self, opponent: str, games: int) -> None:
        self._progress.update(self._task, description=f"vs {opponent} ({games:,} games)")

    def advance(self, k: int) -> None:
        self._progress.advance(self._task, k)

    def stop(self) -> None:
        if self._task is not None:
            self._progress.stop()


class _Lines:
    """Progress where stderr is not a terminal (a log file): one line as each pair starts."""

    def start(self, total: int) -> None:
        self._t0 = time.perf_counter()
        print(f"uno-env benchmark: {total:,} games to play", file=sys.stderr, flush=True)

    def pair(self, opponent: str, games: int) -> None:
        print(f"uno-env benchmark: vs {opponent}, {games:,} games ({time.perf_counter() - self._t0:.0f} s so far)",
              file=sys.stderr, flush=True)

    def advance(self, k: int) -> None:
        pass

    def stop(self) -> None:
        pass


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env benchmark``."""
    parser.add_argument("agent", metavar="AGENT",
                        help="the candidate: a registered name (random, greedy, heuristic, distilled+heuristic, "
                             "ismcts:sims=400, ...), a saved policy (.npz or run directory), or your own code as "
                             "path/to/file.py:factory or package.module:factory (factory(game, seed=None) returns an "
                             "object with act(observation, action_mask))")
    parser.add_argument("--game", default="classic", choices=("classic", "pocket", "dice"), help="which game")
    parser.add_argument("-n", "--num-players", type=int, default=None, help="seats at the table: 2 or 4 (default 2)")
    parser.add_argument("--rules", default=None, help="rules preset: rlcard (2-player classic); default standard")
    parser.add_argument("--quick", action="store_true",
                        help="a short look (a prefix of the protocol's deals, about a minute for a fast agent), "
                             "printed and never written as a leaderboard row")
    parser.add_argument("--out", metavar="FILE", default=None,
                        help="where to write the row (default: NAME.TABLE.json in the working directory)")
    parser.add_argument("--name", default=None, help="the row's name (default: the agent's own name, or AGENT)")
    parser.add_argument("-w", "--workers", type=int, default=None,
                        help="processes to play over (default: every CPU; the results do not depend on it)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--trust-pickle", action="store_true",
                        help="also load Stable-Baselines3 .zip files and RLlib checkpoints: they unpickle, so a "
                             "crafted file runs code; use only for files you trust")


def _out_path(args: argparse.Namespace, label: str, table: Table) -> str:
    if args.out:
        return str(args.out)
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", label) + f".{table.id}.json"


def _check(args: argparse.Namespace) -> Table:
    if args.quick and args.out:
        raise BenchmarkError("--quick results are a first look, never a leaderboard row: drop --out (or --quick)")
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise BenchmarkError(f"--workers must be from 1 to {MAX_WORKERS}, got {args.workers}")
    if args.name is not None and not _LABEL.match(args.name):
        raise BenchmarkError(f"--name {args.name!r}: 1-60 printable characters, no | or `")
    if args.out:
        problem = _check_output_file("--out", args.out)
        if problem:
            raise BenchmarkError(problem)
    return find_table(args.game, args.num_players, args.rules)


def run(args: argparse.Namespace) -> int:
    """``uno-env benchmark``: play the protocol, print the row and write it; returns the exit status."""
    try:
        table = _check(args)
    except (BenchmarkError, ProtocolError) as exc:
        return _fail(exc)
    bar: _Bar | _Lines | None = None if args.quiet else _Bar() if sys.stderr.isatty() else _Lines()
    workers = args.workers or default_workers()
    try:
        row = benchmark(args.agent, table, quick=args.quick, workers=workers, name=args.name,
                        allow_pickle=args.trust_pickle, progress=bar)
    except (BenchmarkError, ProtocolError, IllegalAgentActionError) as exc:
        return _fail(exc)
    except Exception as exc:  # the candidate's own code failed while it played: one line, not a traceback
        return _fail(f"{args.agent!r} failed while playing: {type(exc).__name__}: {exc}")
    finally:
        if bar is not None:
            bar.stop()
    path = None
    if not args.quick:
        path = _out_path(args, row["agent"], table)
        problem = _check_output_file("--out", path)
        if problem:
            return _fail(problem)
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(row, fh, indent=2)
            fh.write("\n")
    print_row(row, table, path)
    return 0


def _fail(exc: Any) -> int:
    print(f"uno-env benchmark: error: {exc}", file=sys.stderr)
    return 2


def _console(console_class: Any) -> Any:
    """A rich console; wide enough for a row's table where stdout is not a terminal (rich's default there is 80)."""
    return console_class() if sys.stdout.isatty() else console_class(width=120)


def print_row(row: dict[str, Any], table: Table, path: str | None) -> None:
    """The row as a table (rich), with the rating and where the row was written."""
    from rich.console import Console
    from rich.table import Table as RichTable

    console = _console(Console)
    title = f"{row['agent']} on {table.title} ({row['protocol']})"
    if row["quick"]:
        title = f"QUICK LOOK, not a leaderboard row: {title}"
    out = RichTable(title=title, title_justify="left")
    for col in ("opponent", "deals", "win rate", "95% interval", "points/game", "opponent's points", "seconds"):
        out.add_column(col, justify="left" if col == "opponent" else "right")
    for e in row["opponents"]:
        out.add_row(e["opponent"], f"{e['deals']:,}", f"{100 * e['win_rate']:.1f}%",
                    f"[{100 * e['ci95_low']:.1f}, {100 * e['ci95_high']:.1f}]", f"{e['points_per_game']:.1f}",
                    f"{e['opponent_points_per_game']:.1f}", f"{e['seconds']:.0f}")
    console.print(out)
    r = row["rating"]
    ranked = table_rows(load_table(table), [{**row, "quick": False}])
    rank = next(i for i, x in enumerate(ranked, 1) if not x["ladder"])
    console.print(f"rating on the ladder's scale: {r['mu']:.2f} ± {r['sigma']:.2f} (mu - 3 sigma {r['ordinal']:.2f}), "
                  f"rank {rank} of {len(ranked)} beside the ladder; at play time: "
                  f"{', '.join(row['uses_at_play_time'] or []) or ('-' if row['uses_at_play_time'] == [] else '?')}; "
                  f"{row['wall_seconds']:.0f} s on {row['workers']} workers")
    if path is not None:
        console.print(f"row written to {path}; beside the ladder: uno-env leaderboard {path} --game {table.game} "
                      f"-n {table.num_players}" + ("" if table.rules == "standard" else f" --rules {table.rules}"))


def play_ladder(table: Table, workers: int = 1, log: Callable[[str], Any] | None = None,
                stored: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every pair of ``table``'s ladder, each played once as :func:`benchmark` plays it (the first agent of the
    pair as the candidate), with the ladder's ratings: the table's file (``benchmarks/leaderboard.py`` writes it).

    ``stored``: an earlier file of the table under the same protocol, seed and deals; its pairs are kept as they
    are and only the pairs it lacks are played (a pair's games depend on its two agents and the protocol alone, so
    a new agent joins the ladder without replaying the rest).  The wall time is then the stored pairs' plus this
    call's; the machine and library versions recorded are this call's, so keep pairs only from the same code."""
    t0 = time.perf_counter()
    game = protocol_game(table)
    names = ladder_agents(table)
    kept: dict[tuple[str, str], dict[str, Any]] = {}
    earlier_seconds = 0.0  # the kept pairs' own
    if stored is not None:
        same = (stored.get("protocol") == P.PROTOCOL and stored.get("seed") == P.SEED
                and stored.get("table") == table.to_dict() and stored.get("deals") == P.deals_plan(table))
        if not same:
            raise ValueError(f"{table.id}: the stored table was played under another protocol, seed or deals plan; "
                             "play the whole ladder again")
        kept = {(p["a"], p["b"]): p for p in stored["pairs"]}
    agents, pairs = [], []
    for i, name in enumerate(names):
        candidate = load_protocol_agent(name, game)
        agents.append({"name": name, "uses_at_play_time": play_time_aids(candidate)})
        missing = [b for b in names[i + 1:] if (name, b) not in kept]
        played = dict(play_candidate(candidate, missing, table, game, workers=workers))
        for opponent in names[i + 1:]:
            if opponent not in played:
                pairs.append(kept[(name, opponent)])
                earlier_seconds += kept[(name, opponent)]["seconds"]
                continue
            pair = played[opponent]
            pairs.append(pair_record(name, opponent, pair))
            if log is not None:
                log(f"{table.id}: {name} vs {opponent}: {pair.deals:,} deals, {100 * pair.first.win_rate:.1f}% "
                    f"[{100 * pair.first.ci95[0]:.1f}, {100 * pair.first.ci95[1]:.1f}], {pair.seconds:.0f} s")
    ratings = ladder_ratings(pairs)
    return {"format": TABLE_FORMAT, "protocol": P.PROTOCOL, "table": table.to_dict(), "seed": P.SEED,
            "deals": P.deals_plan(table),
            "agents": agents, "pairs": pairs,
            "ratings": {n: {"mu": mu, "sigma": sigma} for n, (mu, sigma) in ratings.items()},
            "machine": machine(), "versions": versions(), "workers": workers,
            "wall_seconds": round(earlier_seconds + time.perf_counter() - t0, 1)}
