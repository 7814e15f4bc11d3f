"""benchmarks/bench_aec.py alternates the engines round by round and reports each round's ratio to each reference."""
from __future__ import annotations

import json
import statistics

import pytest
from scripts import load_script


def _bench_aec():
    return load_script("benchmarks/bench_aec.py")


def test_uno_env_loop_keeps_its_game_between_bursts():
    burst = _bench_aec().uno_env_aec_loop("classic")
    assert burst(0.05) > 0 and burst(0.05) > 0


def test_the_do_nothing_env_passes_pettingzoos_api_test():
    from pettingzoo.test import api_test

    api_test(_bench_aec()._baselines.null_aec_env(), num_cycles=3)


def _run(bench, tmp_path):
    out = tmp_path / "aec.json"
    assert bench.main(["--games", "classic", "--seconds", "0.05", "--rounds", "3", "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_rounds_alternate_and_ratios_are_per_round(tmp_path):
    pytest.importorskip("rlcard")
    data = _run(_bench_aec(), tmp_path)
    runs = data["details"]["steps_per_s"]
    ours, rlcard = runs["uno-env classic env()"], runs["RLCard UNO env.step"]
    assert len(ours) == 3
    row = next(h for h in data["headlines"] if h["reference_name"] == "RLCard UNO env.step")
    assert row["ours"] == statistics.median(ours) and row["reference"] == statistics.median(rlcard)
    assert row["ratio"] == row["ours"] / row["reference"]
    per_round = [a / b for a, b in zip(ours, rlcard)]
    assert row["ratio_quartiles"][1] == statistics.median(per_round)
    assert data["machine"]["cores"] >= 1 and len(data["machine"]["load_average_before"]) == 3


def test_without_the_references_there_is_no_headline(tmp_path, monkeypatch):
    bench = _bench_aec()

    def missing():
        raise ImportError("not installed")

    monkeypatch.setattr(bench, "REFERENCES", dict.fromkeys(bench.REFERENCES, missing))
    data = _run(bench, tmp_path)
    assert data["headlines"] == [] and list(data["details"]["steps_per_s"]) == ["uno-env classic env()"]


def test_bad_budget_is_refused():
    with pytest.raises(SystemExit):
        _bench_aec().main(["--seconds", "0", "--games", "classic"])
