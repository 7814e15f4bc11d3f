"""Every speed and strength figure the README and the docs quote between generated markers comes from a current
results file of ``benchmarks/`` (``tools/bench_tables.py``), and the results stay one file per benchmark."""
from __future__ import annotations

import json
import re

import pytest
from scripts import ROOT, load_script

TABLES = load_script("tools/bench_tables.py")
RESULTS = ROOT / "benchmarks" / "results"
GENERATED = re.compile(r"<!-- gen:(bench(?:-speed)?)((?: [A-Za-z0-9_]+)*) -->")


def _readme_block() -> str:
    return TABLES.readme_block((ROOT / "README.md").read_text(encoding="utf-8"))


def _docs_blocks() -> dict[str, str]:
    """Each ``gen:bench`` / ``gen:bench-speed`` marker of the docs, rendered as the site renders it."""
    hooks = load_script("docs/hooks.py")
    out = {}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for m in GENERATED.finditer(page.read_text(encoding="utf-8")):
            out[f"{page.name}: {m.group(0)}"] = hooks.GENERATORS[m.group(1)](*m.group(2).split())
    return out


def test_the_readme_speed_table_is_the_one_the_results_give():
    assert _readme_block() == TABLES.speed_table(), "run python tools/bench_tables.py (make bench does)"


def test_every_generated_figure_has_a_results_file_behind_it():
    blocks = {"README.md speed table": _readme_block(), **_docs_blocks()}
    assert any("gen:bench bench_aec" in name for name in blocks), "the docs' benchmarks page lost its markers"
    for name, text in blocks.items():
        assert TABLES.FIGURE.findall(text), f"{name}: no figure at all"
        assert TABLES.unsourced(text) == [], f"{name} quotes figures no results file gives"


def test_a_planted_figure_is_caught(tmp_path, monkeypatch):
    block = _readme_block()
    row = "\n| AEC env classic 2p vs RLCard | 987,654 steps/s | | | 31.4x |"
    planted = block.replace("\n\nMedians", row + "\n\nMedians")
    assert TABLES.unsourced(planted) == ["987,654", "31.4"]
    readme = tmp_path / "README.md"
    readme.write_text((ROOT / "README.md").read_text(encoding="utf-8").replace(block, planted), encoding="utf-8")
    monkeypatch.setattr(TABLES, "README", readme)
    assert TABLES.main(["--check"]) == 1
    TABLES.main([])  # rewrites the table from the results
    assert TABLES.main(["--check"]) == 0 and "987,654" not in readme.read_text(encoding="utf-8")


def test_a_missing_results_file_is_named(monkeypatch, tmp_path):
    monkeypatch.setattr(TABLES, "RESULTS", tmp_path)
    with pytest.raises(FileNotFoundError, match="bench_aec.json is missing: run `make bench`"):
        TABLES.speed_table()


@pytest.mark.parametrize("name", ["bench_aec", "bench_vector", "bench_first_start", "bench_search", "bench_learning",
                                  "bench_ab"])
def test_each_benchmark_wrote_its_results_with_the_machine(name):
    data = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
    machine = data["machine"]
    assert machine["cpu"] and machine["cores"] >= 1 and machine["versions"]["uno-env"]
    assert len(machine["load_average_before"]) == len(machine["load_average_after"]) == 3
    assert data["headlines"] and all(h["ours"] > 0 for h in data["headlines"])
    assert data["command"].startswith(f"python benchmarks/{name}.py")


def test_the_results_are_current_not_a_history():
    files = [p for p in RESULTS.rglob("*") if p.is_file()]
    assert len(files) <= 30, sorted(str(p.relative_to(RESULTS)) for p in files)
    assert sum(p.stat().st_size for p in files) <= 1_000_000


def test_benchmarks_holds_at_most_eight_scripts():
    runnable = [p.name for p in (ROOT / "benchmarks").glob("*.py")
                if 'if __name__ == "__main__"' in p.read_text(encoding="utf-8")]
    assert len(runnable) <= 8, runnable
    assert all(not p.startswith("_") for p in runnable), "a helper module (_name.py) must not be runnable"
