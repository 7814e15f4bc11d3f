"""MkDocs hook: replace ``<!-- gen:NAME ARGS -->`` markers with tables computed from the installed code.

Markers: ``rules-options [GAME]``, ``observation-layout GAME NUM_PLAYERS``, ``observation-sizes``,
``action-table GAME``, ``action-sections``, ``action-meanings``, ``arena-table``, ``state-fields``,
``games-table``, ``training-results``, ``leaderboard``, ``protocol-deals``, ``example-row``, ``scratch-table NAME``,
``bench NAME`` (one results file of benchmarks/), ``bench-speed`` (the README's speed table). An unknown marker
fails the build.

``python docs/hooks.py NAME [ARGS]`` prints one generated table: the README's games table is pasted from
``python docs/hooks.py games-table`` (a test keeps it equal).
"""
from __future__ import annotations

import re
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[1]
# mkdocstrings reads the sources statically, and cannot follow pyproject's package-dir mapping (agents/ and
# training/ install as uno_env.agents and uno_env.training): it reads this mirror of the installed layout.
API_SOURCES = ROOT / "build" / "docs-api"
#: the row `uno-env benchmark examples/benchmark_agent.py:make_agent --game classic` wrote
EXAMPLE_ROW = ROOT / "benchmarks" / "results" / "benchmark" / "play-first.classic_2p.json"


def _package_dirs() -> dict[str, str]:
    """Installed package path -> source folder, from pyproject's ``[tool.setuptools.package-dir]``."""
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"].get("package-dir", {})
    return {"uno_env": "uno_env", **{name.replace(".", "/"): src for name, src in mapping.items()}}
MARKER = re.compile(r"^([ \t]*)<!-- gen:([a-z-]+)((?: [A-Za-z0-9_]+)*) -->[ \t]*$", re.M)


def _rules_options(game: str | None = None) -> str:
    from uno_env.config import rules_table_markdown

    return rules_table_markdown(game)


def _observation_layout(game: str, num_players: str) -> str:
    import uno_env

    env = uno_env.raw_env(game, num_players=int(num_players))
    rows = ["| offset | length | block | meaning |", "|---:|---:|---|---|"]
    total = 0
    for offset, length, name, meaning in env.unwrapped.observation_layout:
        rows.append(f"| {offset} | {length} | `{name}` | {meaning} |")
        total = offset + length
    space = env.observation_space(env.possible_agents[0])
    assert space["observation"].shape == (total,), "observation_layout does not cover the observation"
    rows.append("")
    rows.append(f"D = {total} with {num_players} players.")
    return "\n".join(rows)


def _observation_sizes() -> str:
    import uno_env
    from uno_env.config import OPTIONS

    rows = ["| game | K (kinds) | A (actions) | " + " | ".join(f"D, {n} players" for n in range(2, 11)) + " |",
            "|---|---:|---:|" + "---:|" * 9]
    for game in uno_env.GAMES:
        lo, hi = OPTIONS["num_players"].allowed_for(game)
        dims = []
        for n in range(2, 11):
            if lo <= n <= hi:
                env = uno_env.raw_env(game, num_players=n)
                dims.append(str(env.observation_space(env.possible_agents[0])["observation"].shape[0]))
            else:
                dims.append("")
        names = uno_env.action_names(game)
        k = (len(names) - 19) // 3
        rows.append(f"| {game} | {k} | {len(names)} | " + " | ".join(dims) + " |")
    return "\n".join(rows)


def _action_table(game: str) -> str:
    import uno_env

    rows = ["| id | name |", "|---:|---|"]
    rows += [f"| {i} | `{name}` |" for i, name in enumerate(uno_env.action_names(game))]
    return "\n".join(rows)


def _action_sections() -> str:
    """First and last id of each section of the action table, per game, from the names themselves."""
    import uno_env

    def section(name: str) -> str:
        for prefix in ("choose colour", "give", "swap hands"):
            if name.startswith(prefix):
                return prefix + " ..."
        if name.startswith("play"):
            return "play ... + UNO" if name.endswith("+ UNO") else "play ..."
        return name

    games = uno_env.GAMES
    spans: dict[str, dict[str, tuple[int, int]]] = {}
    order: list[str] = []
    for game in games:
        for i, name in enumerate(uno_env.action_names(game)):
            sec = section(name)
            if sec not in order:
                order.append(sec)
            lo, _ = spans.setdefault(sec, {}).get(game, (i, i))
            spans[sec][game] = (lo, i)
    rows = ["| section | " + " | ".join(games) + " |", "|---|" + "---|" * len(games)]
    for sec in order:
        cells = []
        for game in games:
            lo, hi = spans[sec].get(game, (None, None))
            cells.append("" if lo is None else (str(lo) if lo == hi else f"{lo} .. {hi}"))
        rows.append(f"| `{sec}` | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _arena_table() -> str:
    """The README's arena table, from benchmarks/results/arena.json."""
    import runpy

    return runpy.run_path(str(ROOT / "benchmarks" / "_arena_table.py"))["markdown"]()


def _bench_tables():
    import runpy

    return runpy.run_path(str(ROOT / "tools" / "bench_tables.py"))


def _bench(name: str) -> str:
    """Every headline figure of ``benchmarks/results/<name>.json``, ours beside the reference, with the machine."""
    return _bench_tables()["bench_table"](name)


def _bench_speed() -> str:
    """The README's headline speed table."""
    return _bench_tables()["speed_table"]()


def _leaderboard() -> str:
    """Every table of the leaderboard, from the stored ladders (``uno_env/training/ladder/``)."""
    from uno_env.training.leaderboard import load_table, markdown_table
    from uno_env.training.protocol import TABLES

    return "\n".join(markdown_table(load_table(t)) for t in TABLES).strip()


def _protocol_deals() -> str:
    """The protocol's deals per pair for each table, the widest 95% interval its stored ladder got with them (the
    search's pairs apart), how long the ladder took to play, the protocol's version and its seed."""
    from uno_env.training import leaderboard as L
    from uno_env.training import protocol as P

    rows = ["| table | deals a pair | games a pair | deals with a search | widest interval | widest with a search "
            "| ladder played in |", "|---|---:|---:|---:|---:|---:|---:|"]
    for t in P.TABLES:
        plan, data = P.deals_plan(t), L.load_table(t)
        widest = {False: 0.0, True: 0.0}
        for pair in data["pairs"]:
            side = pair["a_side"]
            search = pair["deals"] != plan["standard"]
            widest[search] = max(widest[search], 50 * (side["ci95_high"] - side["ci95_low"]))
        rows.append(f"| {t.title} | {plan['standard']:,} | {2 * plan['standard']:,} | {plan['search']:,} "
                    f"| ±{widest[False]:.1f} | ±{widest[True]:.1f} | {data['wall_seconds'] / 60:.0f} min "
                    f"({data['workers']} workers) |")
    rows += ["", f"Protocol `{P.PROTOCOL}`, seed {P.SEED}; `--quick`: {P.QUICK_DEALS} deals a pair, "
                 f"{P.QUICK_SEARCH_DEALS} with a search. The intervals are half-widths in points, the widest over "
                 f"the table's stored ladder pairs."]
    return "\n".join(rows)


def _example_row() -> str:
    """The row ``uno-env benchmark examples/benchmark_agent.py:make_agent`` wrote (stored with the benchmarks'
    results), and 2-player classic's table with it."""
    import json

    from uno_env.training.leaderboard import load_table, markdown_table, row_markdown
    from uno_env.training.protocol import Table

    row = json.loads(EXAMPLE_ROW.read_text(encoding="utf-8"))
    return row_markdown(row) + "\n" + markdown_table(load_table(Table("classic", 2)), [row])


def _agent_pairs(agent: str) -> str:
    """``agent``'s pairs on every stored ladder it is on: its win rate against each other ladder agent, with the 95%
    interval over deals and the deals played."""
    from uno_env.training.leaderboard import ladder_row, load_table
    from uno_env.training.protocol import TABLES

    rows = ["| table | opponent | win rate | 95% interval | deals |", "|---|---|---:|---:|---:|"]
    for t in TABLES:
        for e in ladder_row(load_table(t), agent):
            rows.append(f"| {t.title} | `{e['opponent']}` | {100 * e['win_rate']:.1f}% | "
                        f"[{100 * e['ci95_low']:.1f}, {100 * e['ci95_high']:.1f}] | {e['deals']:,} |")
    if len(rows) == 2:
        raise ValueError(f"docs marker gen:agent-pairs: {agent!r} is on no stored ladder")
    return "\n".join(rows)


def _scratch_table(name: str) -> str:
    """A table of benchmarks/bench_scratch.py's results saved as benchmarks/results/NAME.json: the from-scratch
    recipes' final arenas and training times, or the ablations beside their recipe."""
    import json
    import runpy

    doc = json.loads((ROOT / "benchmarks" / "results" / f"{name}.json").read_text())
    return runpy.run_path(str(ROOT / "benchmarks" / "bench_scratch.py"))["markdown"](doc)


#: what a seat cannot see, per game
HIDDEN = {
    "classic": "the other hands, the draw pile's order",
    "pocket": "the other hands (a challenged hand is shown to its challenger), the draw pile's order",
    "dice": "the bag's order and the faces future rolls will show: every hand is public",
}
TITLES = {"classic": "classic UNO", "pocket": "UNO Pocket Pizza Pizza", "dice": "UNO Dice"}


def _games_table() -> str:
    """One row per game: players, actions, observation length at the fewest and most players, what is hidden."""
    import uno_env
    from uno_env.config import OPTIONS

    rows = ["| game | name | players | actions | observation (2 / most players) | hidden from a seat |",
            "|---|---|---|---:|---|---|"]
    for game in uno_env.GAMES:
        lo, hi = OPTIONS["num_players"].allowed_for(game)
        dims = []
        for n in (lo, hi):
            env = uno_env.raw_env(game, num_players=n)
            dims.append(str(env.observation_space(env.possible_agents[0])["observation"].shape[0]))
        rows.append(f"| {TITLES[game]} | `{game}` | {lo}-{hi} | {len(uno_env.action_names(game))} | "
                    f"{' / '.join(dims)} | {HIDDEN[game]} |")
    return "\n".join(rows)


#: (config, report file in agents/policies/training/, whether the agent ``ppo`` ships its policy)
TRAINING_RUNS = (
    ("classic_ppo", "classic_2p_report.json", False),
    ("pocket_ppo", "pocket_2p_report.json", False),
    ("dice_ppo", "dice_2p_report.json", False),
    ("classic2_distill", "classic_2p_distill_report.json", True),
    ("pocket2_distill", "pocket_2p_distill_report.json", True),
    ("dice2_distill", "dice_2p_distill_report.json", True),
    ("classic4_ppo", "classic_4p_advice_report.json", False),
    ("classic4_distill", "classic_4p_distill_report.json", True),
    ("pocket4_distill", "pocket_4p_distill_report.json", True),
    ("dice4_distill", "dice_4p_distill_report.json", True),
)


def _training_results() -> str:
    """The final arena of each packaged training config's run, read from its report."""
    import json

    def cell(row) -> str:
        return f"{100 * row['win_rate']:.1f}% [{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}]"

    rows = ["| config | players | run | random | greedy | heuristic | two seats each vs two heuristics | shipped | "
            "report |", "|---|---:|---|---|---|---|---|---|---|"]
    for config, name, shipped in TRAINING_RUNS:
        path = ROOT / "agents" / "policies" / "training" / name
        report = json.loads(path.read_text(encoding="utf-8"))
        arena = report.get("arena") or report["evaluation"]["arena"]
        by = {r["opponent"]: cell(r) for r in arena}
        if "labels" in report:
            lab = report["labels"]
            run = f"distilled, {lab['games']:,} games labelled ({lab['cpu_seconds_all'] / 60:.0f} CPU-min)"
            h2h = report["evaluation"].get("head_to_head")
        else:
            run = f"PPO, {report['steps'] / 1e6:.1f}M steps ({report['wall_time_seconds'] / 60:.0f} min)"
            h2h = None
        n = report["num_players"] if "num_players" in report else report["config"]["env"]["num_players"]
        rows.append(f"| `{config}` | {n} | {run} | {by.get('random', '')} | {by.get('greedy', '')} | "
                    f"{by.get('heuristic', '')} | {cell(h2h) if h2h else ''} | {'yes' if shipped else ''} | "
                    f"`{name}` |")
    return "\n".join(rows)


def _action_meanings() -> str:
    """The action table's sections: id ranges in K and D, names and when each is legal."""
    from uno_env.core.actions import actions_markdown

    return actions_markdown().strip()


def _state_fields() -> str:
    """The fields of a state dict's ``fields`` (the rules core's state layout)."""
    from uno_env.core.layout import fields_markdown

    return fields_markdown().strip()


GENERATORS = {
    "state-fields": _state_fields,
    "rules-options": _rules_options,
    "observation-layout": _observation_layout,
    "observation-sizes": _observation_sizes,
    "action-table": _action_table,
    "action-sections": _action_sections,
    "arena-table": _arena_table,
    "leaderboard": _leaderboard,
    "protocol-deals": _protocol_deals,
    "example-row": _example_row,
    "scratch-table": _scratch_table,
    "agent-pairs": _agent_pairs,
    "bench": _bench,
    "bench-speed": _bench_speed,
    "games-table": _games_table,
    "training-results": _training_results,
    "action-meanings": _action_meanings,
}


def expand(markdown: str) -> str:
    """``markdown`` with every marker replaced by its generated table."""
    def replace(m: re.Match) -> str:
        indent, name, args = m.group(1), m.group(2), m.group(3).split()
        if name not in GENERATORS:
            raise ValueError(f"unknown docs marker gen:{name}; known: {', '.join(GENERATORS)}")
        # a marker inside an indented block (e.g. a collapsible note) keeps every generated line in that block
        return "\n".join(indent + line if line else line for line in GENERATORS[name](*args).splitlines())

    return MARKER.sub(replace, markdown)


def build_api_sources() -> None:
    """Lay out ``build/docs-api/uno_env`` as the package installs, with symlinks to the sources."""
    import shutil

    if API_SOURCES.exists():
        shutil.rmtree(API_SOURCES)
    for package, source in _package_dirs().items():
        target = API_SOURCES / package
        target.mkdir(parents=True, exist_ok=True)
        for entry in (ROOT / source).iterdir():
            if entry.name != "__pycache__" and not (target / entry.name).exists():
                (target / entry.name).symlink_to(entry)


@event_priority(100)  # before mkdocstrings' own on_config, which drops search paths that do not exist yet
def on_config(config):
    """MkDocs event: refresh the source mirror before mkdocstrings reads it."""
    build_api_sources()
    return config


def on_page_markdown(markdown: str, page, config, files) -> str:
    """MkDocs event: expand the markers of every page."""
    return expand(markdown)


if __name__ == "__main__":
    import sys

    if len(sys.argv) < 2 or sys.argv[1] not in GENERATORS:
        raise SystemExit(f"usage: python docs/hooks.py NAME [ARGS]; NAME one of: {', '.join(GENERATORS)}")
    print(GENERATORS[sys.argv[1]](*sys.argv[2:]))
