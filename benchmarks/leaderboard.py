"""The leaderboard's tables: every table's ladder played under the standard protocol, as ``uno-env benchmark`` plays
it, each pair once (``uno_env.training.benchmark.play_ladder``), into ``training/ladder/<table>.json`` (the package
data ``uno-env benchmark`` rates against), and the README's headline block between its leaderboard markers.

    python benchmarks/leaderboard.py                          # every table (2 workers), then the README block
    python benchmarks/leaderboard.py --tables classic_2p dice_4p --workers 2
    python benchmarks/leaderboard.py --readme-only            # the README block from the stored tables
    python benchmarks/leaderboard.py --keep-pairs             # only the pairs the stored tables lack (a new agent)

The docs' leaderboard page is generated from the same files when the site is built (``docs/hooks.py``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from uno_env.training import leaderboard as L
from uno_env.training.benchmark import play_ladder
from uno_env.training.protocol import TABLES

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
START, END = "<!-- leaderboard:start -->", "<!-- leaderboard:end -->"
COMMAND = "python benchmarks/leaderboard.py"


def readme_block() -> str:
    """What goes between the README's markers: every stored table's ratings (OpenSkill mu), one column a table."""
    datas = [L.load_table(t) for t in TABLES]
    wall = sum(d["wall_seconds"] for d in datas)
    return (L.headline_markdown(datas) + "\n"
            f"OpenSkill mu on each table's ladder ({datas[0]['protocol']}; the full tables with every head-to-head: "
            f"`uno-env leaderboard --all`, or the docs' leaderboard page). Written by `{COMMAND}`, which played the "
            f"seven ladders in {wall / 60:.0f} minutes on {datas[0]['workers']} workers.\n")


def write_readme() -> None:
    text = README.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"README.md has no {START} ... {END} markers")
    a, b = text.index(START) + len(START), text.index(END)
    README.write_text(text[:a] + "\n" + readme_block() + text[b:], encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="+", choices=[t.id for t in TABLES], default=[t.id for t in TABLES])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--readme-only", action="store_true", help="only write the README block from the stored tables")
    ap.add_argument("--keep-pairs", action="store_true",
                    help="keep the pairs the stored tables hold and play only the ones they lack (a new agent on "
                         "the ladder); a pair's games depend on its two agents and the protocol alone")
    args = ap.parse_args()
    if not args.readme_only:
        L.LADDER_DIR = ROOT / "training" / "ladder"  # the repository's copy, whatever is installed
        L.LADDER_DIR.mkdir(exist_ok=True)
        for table in (t for t in TABLES if t.id in args.tables):
            t0 = time.perf_counter()
            path = L.LADDER_DIR / f"{table.id}.json"
            stored = json.loads(path.read_text(encoding="utf-8")) if args.keep_pairs and path.is_file() else None
            data = play_ladder(table, workers=args.workers, log=lambda line: print(line, flush=True), stored=stored)
            path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            print(f"{table.id}: {time.perf_counter() - t0:.0f} s (load average {os.getloadavg()[0]:.1f})",
                  flush=True)
    write_readme()
    return 0


if __name__ == "__main__":
    sys.exit(main())
