"""The README's arena table (and docs/agents.md's), from ``benchmarks/results/arena.json``: the ``uno-env evaluate
--json`` results of each matchup, keyed by the name they were saved under, ``GAME_Np[_PRESET]_A_vs_B``."""
from __future__ import annotations

import json
import re
from pathlib import Path

ARENA = Path(__file__).resolve().parent / "results" / "arena.json"


def row(name: str, d: dict) -> tuple:
    first, second = d["agents"]
    # an agent's name (rlcard-rule) may contain a preset's name: the preset is the third part of the key
    preset = " (rlcard rules)" if name.split("_")[2:3] == ["rlcard"] else ""
    return (d["game"], d["num_players"], f"{first['agent']} vs {second['agent']}{preset}", d["games"],
            f"{100 * first['win_rate']:.1f}% [{100 * first['ci95_low']:.1f}, {100 * first['ci95_high']:.1f}]",
            f"{first['mean_points']:.1f} / {second['mean_points']:.1f}", f"{d['mean_length']:.1f}",
            d["truncated_games"])


def markdown(path: Path = ARENA) -> str:
    order = {"classic": 0, "pocket": 1, "dice": 2}
    results = json.loads(path.read_text(encoding="utf-8"))["rows"]
    # numbers inside a matchup sort by value (ismcts:sims=25 before ismcts:sims=100)
    rows = sorted((row(name, d) for name, d in results.items()),
                  key=lambda r: (order[r[0]], r[1], [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", r[2])]))
    head = "| game | players | matchup | games | first agent's win rate [95% CI] | points/game | length | truncated |"
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)
