"""The leaderboard: one table per table size of the protocol (:mod:`.protocol`), its ladder's pairs played once and
stored, the ratings on the ladder's scale, and the rows ``uno-env benchmark`` writes shown beside the ladder's.

A table's file (``uno_env/training/ladder/<table>.json``, written by ``benchmarks/leaderboard.py``) holds every pair
of its ladder as ``uno-env benchmark`` plays it (:func:`~uno_env.training.protocol.play_pair`), each pair once: the
row of a ladder agent is read from its pairs (:func:`ladder_row`), the same row the command computes for it as a
candidate.  The ratings are OpenSkill's (Plackett-Luce): the ladder's from all its pairs' games at once
(:func:`ladder_ratings`), and a candidate's from its own games with the ladder's ratings held fixed
(:func:`candidate_rating`).  Games are rated one by one, a pair's rarer result spread evenly through its games and
the pairs interleaved (:func:`rating_order`), so the same results always give the same ratings; a truncated game
rates nobody.

``uno-env leaderboard`` prints a table, with any rows given as files placed by their ratings.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from uno_env._files import InputFileError, read_text

from . import protocol as P
from .protocol import TABLES, ProtocolError, Table, find_table

__all__ = ["ROW_FORMAT", "TABLE_FORMAT", "rating_order", "ladder_ratings", "candidate_rating", "load_table",
           "table_path", "ladder_row", "table_rows", "check_row", "read_row", "markdown_table", "row_markdown",
           "headline_markdown",
           "add_arguments", "run"]

ROW_FORMAT = "uno-env benchmark row"
TABLE_FORMAT = "uno-env leaderboard table"
#: a row or a table file is a few kB; anything much larger is not one
MAX_ROW_BYTES = 4 << 20


# ------------------------------------------------------------------------------------------------ ratings
def rating_order(wins: int, losses: int) -> list[int]:
    """A pair's decided games in rating order (0: the first side won, 1: the second): the rarer result at the middle
    of equal stretches of the more common one, the same whichever side is first.

    The rating moves most on its early games: a fixed shuffle that happened to put the weaker side's rare win first
    cost the stronger agent places, depending on which side was listed first.
    """
    n = wins + losses
    rare, common = (0, 1) if wins <= losses else (1, 0)
    k = min(wins, losses)
    out = [common] * n
    for j in range(k):
        out[(2 * j + 1) * n // (2 * k)] = rare
    return out


def _model() -> Any:
    from openskill.models import PlackettLuce

    return PlackettLuce()


def _interleaved(sequences: Sequence[tuple[str, str, list[int]]]) -> Iterable[tuple[str, str, int]]:
    for i in range(max((len(s[2]) for s in sequences), default=0)):
        for a, b, results in sequences:
            if i < len(results):
                yield a, b, results[i]


def ladder_ratings(pairs: Sequence[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """OpenSkill ``(mu, sigma)`` per ladder agent from its pairs (each ``{"a", "b", "a_side": {"wins"},
    "b_side": {"wins"}}``), game by game, the pairs interleaved."""
    model = _model()
    names = sorted({p["a"] for p in pairs} | {p["b"] for p in pairs})
    r = {n: model.rating(name=n) for n in names}
    seqs = [(p["a"], p["b"], rating_order(p["a_side"]["wins"], p["b_side"]["wins"])) for p in pairs]
    for a, b, res in _interleaved(seqs):
        new = model.rate([[r[a]], [r[b]]], ranks=[res, 1 - res])
        r[a], r[b] = new[0][0], new[1][0]
    return {n: (float(x.mu), float(x.sigma)) for n, x in r.items()}


def candidate_rating(results: Sequence[tuple[str, int, int]],
                     fixed: dict[str, tuple[float, float]]) -> tuple[float, float]:
    """OpenSkill ``(mu, sigma)`` of a candidate from ``(opponent, wins, losses)`` per opponent, each opponent's
    rating held at its ladder value (``fixed``): the candidate is placed on the ladder's scale without moving it."""
    model = _model()
    me = model.rating(name="candidate")
    opponents = {name: model.rating(mu=mu, sigma=sigma, name=name) for name, (mu, sigma) in fixed.items()}
    seqs = [("candidate", opp, rating_order(w, lost)) for opp, w, lost in results]
    for _, opp, res in _interleaved(seqs):
        me = model.rate([[me], [opponents[opp]]], ranks=[res, 1 - res])[0][0]
    return float(me.mu), float(me.sigma)


# ------------------------------------------------------------------------------------------------ files
#: where the tables' files are read from and written to; None: the installed package's ``uno_env/training/ladder``
LADDER_DIR: Path | None = None


def table_path(table: Table) -> Path:
    """Where ``table``'s file is (:data:`LADDER_DIR`, by default in the installed package)."""
    folder = LADDER_DIR if LADDER_DIR is not None else Path(str(resources.files("uno_env.training").joinpath("ladder")))
    return Path(folder) / f"{table.id}.json"


def load_table(table: Table) -> dict[str, Any]:
    """The stored ladder of ``table``; ProtocolError when there is none or it was played under another protocol."""
    path = table_path(table)
    if not path.is_file():
        raise ProtocolError(f"no leaderboard for {table.title}: {path} is missing (benchmarks/leaderboard.py plays "
                            f"it)")
    data = json.loads(read_text(path, "leaderboard table", MAX_ROW_BYTES))
    if data.get("format") != TABLE_FORMAT or data.get("protocol") != P.PROTOCOL:
        raise ProtocolError(f"{path} holds {data.get('protocol')!r}, not {P.PROTOCOL!r}: play the ladder again "
                            f"(benchmarks/leaderboard.py)")
    return data


def opponent_entry(opponent: str, pair: dict[str, Any], mine: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """One opponent's results in a row: the pair's size and my side's scores (and the opponent's points)."""
    return {"opponent": opponent, "deals": pair["deals"], "games": pair["games"], "wins": mine["wins"],
            "win_rate": mine["win_rate"], "ci95_low": mine["ci95_low"], "ci95_high": mine["ci95_high"],
            "deal_sd": mine["deal_sd"], "points_per_game": mine["points_per_game"],
            "opponent_points_per_game": theirs["points_per_game"], "truncated": pair["truncated"],
            "mean_length": pair["mean_length"], "seconds": pair["seconds"], "cpu_seconds": pair["cpu_seconds"]}


def ladder_row(data: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """The opponents' entries of ladder agent ``name``'s row, read from the stored pairs (in ladder order)."""
    out = {}
    for p in data["pairs"]:
        if p["a"] == name:
            out[p["b"]] = opponent_entry(p["b"], p, p["a_side"], p["b_side"])
        elif p["b"] == name:
            out[p["a"]] = opponent_entry(p["a"], p, p["b_side"], p["a_side"])
    return [out[a["name"]] for a in data["agents"] if a["name"] in out]


def table_rows(data: dict[str, Any], extra: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """Every row of a table, best first by the conservative rating ``mu - 3 sigma``: the ladder's (``ladder``
    True) and the ``extra`` rows written by ``uno-env benchmark``."""
    rows = []
    for a in data["agents"]:
        mu, sigma = data["ratings"][a["name"]]["mu"], data["ratings"][a["name"]]["sigma"]
        rows.append({"agent": a["name"], "uses_at_play_time": a["uses_at_play_time"], "ladder": True,
                     "rating": {"mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma},
                     "opponents": ladder_row(data, a["name"])})
    rows += [{**r, "ladder": False} for r in extra]
    return sorted(rows, key=lambda r: -r["rating"]["ordinal"])


def check_row(row: Any, table: Table, where: str) -> dict[str, Any]:
    """``row`` if it is a benchmark row of ``table`` under this protocol, else ProtocolError naming ``where``."""
    if not isinstance(row, dict) or row.get("format") != ROW_FORMAT:
        raise ProtocolError(f"{where}: not a row written by uno-env benchmark")
    if row.get("protocol") != P.PROTOCOL:
        raise ProtocolError(f"{where}: played under {row.get('protocol')!r}, not {P.PROTOCOL!r}; run uno-env "
                            f"benchmark again")
    if row.get("table", {}).get("id") != table.id:
        raise ProtocolError(f"{where}: a row of {row.get('table', {}).get('id')!r}, not of {table.id!r}")
    if row.get("quick"):
        raise ProtocolError(f"{where}: a --quick look, not a leaderboard row")
    need = ("agent", "opponents", "rating", "uses_at_play_time")
    if any(k not in row for k in need) or not isinstance(row["opponents"], list):
        raise ProtocolError(f"{where}: a row needs {', '.join(need)}")
    return row


def read_row(path: str, table: Table) -> dict[str, Any]:
    """The row in the file ``path`` (:func:`check_row`)."""
    try:
        row = json.loads(read_text(path, "row", MAX_ROW_BYTES))
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"row {path!r}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return check_row(row, table, f"row {path!r}")


# ------------------------------------------------------------------------------------------------ rendering
def uses_cell(uses: list[str] | None) -> str:
    """The "at play time" column: what the agent runs besides its own choice; ``?`` when it does not say."""
    if uses is None:
        return "?"
    return ", ".join(uses) if uses else "-"


def win_cell(entry: dict[str, Any] | None) -> str:
    """A win rate in points with the half-width of its 95% interval: ``52.7 ±0.6``."""
    if entry is None:
        return ""
    half = 50 * (entry["ci95_high"] - entry["ci95_low"])
    return f"{100 * entry['win_rate']:.1f} ±{half:.1f}"


def _heading(data: dict[str, Any]) -> str:
    d = data["deals"]
    return (f"**{Table(**{k: data['table'][k] for k in ('game', 'num_players', 'rules')}).title}** "
            f"({d['standard']:,} deals a pair, {d['search']:,} with the search; each deal played with both "
            f"seatings; ranked by mu - 3 sigma; {data['protocol']})")


def markdown_table(data: dict[str, Any], extra: Sequence[dict[str, Any]] = ()) -> str:
    """A table as markdown: rank, agent, what it uses at play time, rating, and the win rate [in points, with the
    half-width of the 95% interval over deals] and mean points per game against each ladder agent."""
    ladder = [a["name"] for a in data["agents"]]
    rows = table_rows(data, extra)
    lines = [_heading(data), "",
             "| rank | agent | at play time | rating (mu ± sigma) | " + " | ".join(f"vs {n}" for n in ladder) + " |",
             "|---:|---|---|---:|" + "---:|" * len(ladder)]
    for i, r in enumerate(rows, 1):
        by = {e["opponent"]: e for e in r["opponents"]}
        name = f"`{r['agent']}`" if r["ladder"] else f"**{r['agent']}**"
        lines.append(f"| {i} | {name} | {uses_cell(r['uses_at_play_time'])} | "
                     f"{r['rating']['mu']:.2f} ± {r['rating']['sigma']:.2f} | "
                     + " | ".join(win_cell(by.get(n)) for n in ladder) + " |")
    lines += ["", "Mean round points per game, the row's against the column's:", "",
              "| agent | " + " | ".join(f"vs {n}" for n in ladder) + " |", "|---|" + "---:|" * len(ladder)]
    for r in rows:
        by = {e["opponent"]: e for e in r["opponents"]}
        cells = [f"{by[n]['points_per_game']:.1f} : {by[n]['opponent_points_per_game']:.1f}" if n in by else ""
                 for n in ladder]
        lines.append(f"| {r['agent']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def row_markdown(row: dict[str, Any]) -> str:
    """A benchmark row as markdown: one line per opponent, then the rating."""
    lines = [f"**{row['agent']}** (`{row['spec']}`) on {row['table']['id']}, {row['protocol']}:", "",
             "| opponent | deals | win rate [95% interval] | points per game : opponent's |", "|---|---:|---:|---:|"]
    for e in row["opponents"]:
        lines.append(f"| {e['opponent']} | {e['deals']:,} | {100 * e['win_rate']:.1f}% [{100 * e['ci95_low']:.1f}, "
                     f"{100 * e['ci95_high']:.1f}] | {e['points_per_game']:.1f} : "
                     f"{e['opponent_points_per_game']:.1f} |")
    r = row["rating"]
    lines += ["", f"Rating {r['mu']:.2f} ± {r['sigma']:.2f} (mu - 3 sigma {r['ordinal']:.2f}); at play time: "
                  f"{uses_cell(row['uses_at_play_time'])}; {row['wall_seconds']:.0f} s on {row['workers']} workers "
                  f"({row['machine']['processor']})."]
    return "\n".join(lines) + "\n"


def headline_markdown(tables: Sequence[dict[str, Any]]) -> str:
    """The README's headline: every ladder agent's rating (mu) in every table, and what it uses at play time."""
    names: list[str] = []
    uses: dict[str, list[str] | None] = {}
    for data in tables:
        for a in data["agents"]:
            if a["name"] not in names:
                names.append(a["name"])
                uses[a["name"]] = a["uses_at_play_time"]
    ids = [d["table"]["id"] for d in tables]
    lines = ["| agent | at play time | " + " | ".join(ids) + " |", "|---|---|" + "---:|" * len(ids)]
    for n in names:
        cells = [f"{d['ratings'][n]['mu']:.1f}" if n in d["ratings"] else "" for d in tables]
        lines.append(f"| `{n}` | {uses_cell(uses[n])} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def print_table(data: dict[str, Any], extra: Sequence[dict[str, Any]] = ()) -> None:
    """A table in the terminal (rich)."""
    from rich.console import Console
    from rich.table import Table as RichTable

    ladder = [a["name"] for a in data["agents"]]
    out = RichTable(title=_heading(data).replace("**", ""), title_justify="left")
    for col in ("rank", "agent", "at play time", "rating") + tuple(f"vs {n}" for n in ladder):
        out.add_column(col, justify="left" if col in ("agent", "at play time") else "right")
    for i, r in enumerate(table_rows(data, extra), 1):
        by = {e["opponent"]: e for e in r["opponents"]}
        out.add_row(str(i), r["agent"] if r["ladder"] else f"[bold]{r['agent']}[/bold]",
                    uses_cell(r["uses_at_play_time"]), f"{r['rating']['mu']:.2f} ± {r['rating']['sigma']:.2f}",
                    *[win_cell(by.get(n)) for n in ladder])
    Console(width=None if sys.stdout.isatty() else 160).print(out)


# ------------------------------------------------------------------------------------------------ CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env leaderboard``."""
    parser.add_argument("rows", nargs="*", metavar="ROW.json",
                        help="rows written by uno-env benchmark, shown beside the ladder of their table")
    parser.add_argument("--game", default="classic", choices=("classic", "pocket", "dice"), help="which game")
    parser.add_argument("-n", "--num-players", type=int, default=None, help="seats at the table (default 2)")
    parser.add_argument("--rules", default=None, help="rules preset of the table (rlcard); default standard")
    parser.add_argument("--all", action="store_true", help="every table of the leaderboard (no rows)")
    parser.add_argument("--markdown", action="store_true", help="print markdown instead of a terminal table")


def run(args: argparse.Namespace) -> int:
    """``uno-env leaderboard``: print a table (or all), with the given rows placed by rating; returns the status."""
    try:
        if args.all:
            if args.rows:
                raise ProtocolError("--all prints the ladder of every table; give rows without it, with their "
                                    "table's --game/-n/--rules")
            tables = list(TABLES)
            rows: list[dict[str, Any]] = []
        else:
            tables = [find_table(args.game, args.num_players, args.rules)]
            rows = [read_row(p, tables[0]) for p in args.rows]
        datas = [load_table(t) for t in tables]
    except (ProtocolError, InputFileError, OSError) as exc:
        print(f"uno-env leaderboard: error: {exc}", file=sys.stderr)
        return 2
    for data in datas:
        if args.markdown:
            print(markdown_table(data, rows))
        else:
            print_table(data, rows)
    return 0
