"""benchmarks/bench_aec.py alternates the engines round by round and reports each round's ratio to RLCard."""
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


def _run(bench, tmp_path, capsys):
    out = tmp_path / "aec.json"
    assert bench.main(["--games", "classic", "--seconds", "0.05", "--repeats", "3", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    ours = data["uno-env classic env() AEC loop"]
    assert len(ours["runs"]) == 3 and ours["median"] == statistics.median(ours["runs"])
    printed = capsys.readouterr().out
    assert "median of 3 rounds" in printed
    return data, ours, printed


def test_rounds_alternate_and_ratios_are_per_round(tmp_path, capsys):
    pytest.importorskip("rlcard")
    data, ours, _ = _run(_bench_aec(), tmp_path, capsys)
    rlcard = data["RLCard uno env.step"]
    paired = data["paired_ratio_to_rlcard"]["uno-env classic env() AEC loop"]
    assert paired["ratios"] == [a / b for a, b in zip(ours["runs"], rlcard["runs"])]
    assert paired["median"] == statistics.median(paired["ratios"])
    assert paired["q1"] <= paired["median"] <= paired["q3"]
    assert "RLCard uno env.step" not in data["paired_ratio_to_rlcard"]


def test_without_the_competitors_nothing_is_paired(tmp_path, capsys, monkeypatch):
    bench = _bench_aec()

    def missing(*args, **kwargs):
        raise ImportError("not installed")

    for name in ("rlcard_uno_loop", "openspiel_crazy_eights_loop"):
        monkeypatch.setattr(bench._baselines, name, missing)
    data, _, printed = _run(bench, tmp_path, capsys)
    assert "paired_ratio_to_rlcard" not in data and "RLCard uno env.step" not in data and "n/a" in printed


def test_bad_budget_is_refused():
    with pytest.raises(SystemExit):
        _bench_aec().main(["--seconds", "0", "--games", "classic"])
