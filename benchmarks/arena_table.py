"""Print the docs' arena table from the JSON files ``uno-env evaluate --json`` wrote.

    python benchmarks/arena_table.py benchmarks/results/arena/*.json
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def row(path: Path) -> tuple:
    d = json.loads(path.read_text())
    first, second = d["agents"]
    # files are named GAME_Np[_PRESET]_A_vs_B.json; an agent's name (rlcard-rule) may contain a preset's name
    preset = " (rlcard rules)" if path.stem.split("_")[2:3] == ["rlcard"] else ""
    return (d["game"], d["num_players"], f"{first['agent']} vs {second['agent']}{preset}", d["games"],
            f"{100 * first['win_rate']:.1f}% [{100 * first['ci95_low']:.1f}, {100 * first['ci95_high']:.1f}]",
            f"{first['mean_points']:.1f} / {second['mean_points']:.1f}", f"{d['mean_length']:.1f}",
            d["truncated_games"])


def main(paths: list[str]) -> int:
    order = {"classic": 0, "pocket": 1, "dice": 2}
    # numbers inside a matchup sort by value (ismcts:sims=25 before ismcts:sims=100)
    rows = sorted((row(Path(p)) for p in paths),
                  key=lambda r: (order[r[0]], r[1], [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", r[2])]))
    print("| game | players | matchup | games | first agent's win rate [95% CI] | points/game | length | truncated |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
