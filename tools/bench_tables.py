"""The speed and strength tables the README and the docs quote, generated from ``benchmarks/results/*.json`` (each
written by one script of ``benchmarks/``), and the check that a quoted figure has such a source.

    python tools/bench_tables.py            # rewrite the README's table between its speed markers
    python tools/bench_tables.py --check    # fail if the README's table is not the one the results give

``docs/hooks.py`` renders the same tables into the docs (``<!-- gen:bench NAME -->``, ``<!-- gen:bench-speed -->``);
``tests/test_figures.py`` checks that every figure between generated markers comes from a results file.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
README = ROOT / "README.md"
START, END = "<!-- speed:start -->", "<!-- speed:end -->"
#: the README's headline rows: (results file, headline key)
HEADLINES = [
    ("bench_aec", "aec/classic/RLCard UNO env.step"),
    ("bench_aec", "aec/classic/OpenSpiel crazy_eights rl_environment"),
    ("bench_vector", "vector/B=1024/rlcard"),
    ("bench_vector", "vector/B=8192/rlcard"),
    ("bench_vector", "vector/contention/loaded"),
    ("bench_first_start", "first_start/cold"),
    ("bench_learning", "learning/time_to_target"),
    ("bench_learning", "learning/steps_per_s"),
    ("bench_search", "search/mcts/2p"),
    ("bench_search", "search/ismcts_openspiel/speed"),
    ("bench_search", "search/ismcts_openspiel/strength/ismcts"),
]
#: a figure as the tables print it: digits with thousands separators and/or decimals, standing alone or before an x
#: (a ratio) or a % (a win rate)
FIGURE = re.compile(r"(?<![\w.])\d(?:[\d,]*\d)?(?:\.\d+)?(?=x\b|%|[^\w.]|\.(?!\d)|$)")


def fmt(x: float) -> str:
    """As ``benchmarks/_baselines.fmt``: thousands separated from 100 up, three significant digits below."""
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def load(name: str) -> dict:
    path = RESULTS / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `make bench` (or benchmarks/{name}.py)")
    return json.loads(path.read_text(encoding="utf-8"))


def cells(h: dict) -> list[str]:
    """A headline's row: what, ours, the reference, the ratio with the spread of the per-round ratios."""
    ours = f"{fmt(h['ours'])} {h['unit']}"
    if h.get("interval"):
        ours += f" [{fmt(h['interval'][0])}, {fmt(h['interval'][1])}]"
    ref = "" if h["reference"] is None else f"{fmt(h['reference'])} {h['unit']}"
    ratio = ""
    if h["ratio"] is not None:
        ratio = f"{h['ratio']:.2f}x"
        if h.get("ratio_quartiles"):
            q = h["ratio_quartiles"]
            ratio += f" [{q[0]:.2f}, {q[2]:.2f}]"
        if h.get("better") == "lower":
            ratio += " (time)"
    return [h["label"], ours, h["reference_name"] or "", ref, ratio]


def machine_line(names: list[str]) -> str:
    """The machine and the load of the runs behind a table."""
    runs = [load(n) for n in names]
    m = runs[0]["machine"]
    loads = [r["machine"]["load_average_before"][0] for r in runs] + [r["machine"]["load_average_after"][0]
                                                                       for r in runs]
    commits = sorted({r["machine"]["commit"] or "?" for r in runs})
    return (f"{m['cpu']}, {m['cores']} cores, Python {m['versions']['python']}; load average "
            f"{min(loads):.1f}-{max(loads):.1f} during the runs; commit {', '.join(commits)}; "
            f"{', '.join(sorted({r['started'][:10] for r in runs}))}")


def table(rows: list[dict]) -> str:
    lines = ["| measured | ours | reference | reference's | ours / reference [quartiles] |",
             "|---|---:|---|---:|---:|"]
    lines += ["| " + " | ".join(cells(h)) + " |" for h in rows]
    return "\n".join(lines)


def headline(name: str, key: str) -> dict:
    for h in load(name)["headlines"]:
        if h["key"] == key:
            return h
    raise KeyError(f"benchmarks/results/{name}.json has no headline {key!r}")


def speed_table() -> str:
    """The README's headline table (and the docs' ``gen:bench-speed``)."""
    rows = [headline(name, key) for name, key in HEADLINES]
    names = list(dict.fromkeys(name for name, _ in HEADLINES))
    return (table(rows) + "\n\n" + f"Medians; from `make bench` ({', '.join(f'`{n}.json`' for n in names)} in "
            f"`benchmarks/results/`) on {machine_line(names)}.")


def bench_table(name: str) -> str:
    """Every headline of one results file (the docs' ``gen:bench NAME``)."""
    data = load(name)
    return (table(data["headlines"]) + "\n\n" + f"`{data['command']}`" + (" (quick)" if data["quick"] else "")
            + f", {data['wall_seconds']:.0f} s; {machine_line([name])}; `benchmarks/results/{name}.json`.")


def source_figures() -> set[str]:
    """Every figure the results files can give a table, formatted as the tables format them."""
    out: set[str] = set()
    for path in RESULTS.glob("bench_*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if "headlines" not in data:  # the from-scratch curves (bench_scratch*.json): rendered by their own marker
            continue
        text = "\n".join(["\n".join(cells(h)) for h in data["headlines"]]
                         + [machine_line([path.stem]), data["command"], str(data["wall_seconds"])])
        text += f" {data['wall_seconds']:.0f}"
        out.update(FIGURE.findall(text))
    return out


def unsourced(text: str) -> list[str]:
    """The figures in ``text`` that no results file gives."""
    known = source_figures()
    return [f for f in FIGURE.findall(text) if f not in known]


def readme_block(text: str) -> str:
    m = re.search(re.escape(START) + r"\n(.*?)" + re.escape(END), text, re.S)
    if not m:
        raise ValueError(f"README.md has no {START} ... {END} block")
    return m.group(1).strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if the README's table is not the results' table")
    args = ap.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    new = speed_table()
    if args.check:
        if readme_block(text) != new:
            print("README.md's speed table is not the one benchmarks/results/ gives: run python tools/bench_tables.py",
                  file=sys.stderr)
            return 1
        return 0
    readme_block(text)  # the markers must be there
    text = re.sub(re.escape(START) + r"\n.*?" + re.escape(END), lambda _: f"{START}\n{new}\n{END}", text, flags=re.S)
    README.write_text(text, encoding="utf-8")
    print("README.md: speed table rewritten from benchmarks/results/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
