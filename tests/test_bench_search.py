"""benchmarks/bench_search.py: the search beside OpenSpiel's MCTSBot, alternating, with each repeat's ratio."""
from __future__ import annotations

import json
import statistics

import pytest
from scripts import load_script


def _bench_search():
    return load_script("benchmarks/bench_search.py")


def test_the_reference_rows_pair_each_repeat_and_cut_our_rollouts_at_its_playout_length(monkeypatch):
    bench = _bench_search()
    theirs = iter([1000.0, 2000.0, 4000.0])
    calls = []

    def fake_mcts(players, sims, games, seed=0, playouts=10):
        calls.append((players, sims, games, playouts))
        return {"searches": 10, "sims_per_cpu_s": next(theirs), "ms_per_decision_cpu": 1.0,
                "decisions_per_sim": 7.4 if playouts else None}

    monkeypatch.setattr(bench._baselines, "openspiel_crazy_eights_mcts", fake_mcts)
    (row,) = bench.reference_rows(games=1, repeats=3, players=(2,), sims=20)
    assert calls == [(2, 20, 1, 10), (2, 20, 1, 0), (2, 20, 1, 0)]  # the playouts' length is needed once
    assert row["horizon"] == 7  # the reference's mean playout, rounded
    # our simulations: the tree's few decisions, then a rollout cut after 7
    assert 7 < row["ours_decisions_per_sim"] < 7 + 20
    ours = [r * t for r, t in zip(row["ratios"], (1000.0, 2000.0, 4000.0))]
    assert row["ours_sims_per_cpu_s"] == pytest.approx(statistics.median(ours))
    assert row["ratio_median"] == statistics.median(row["ratios"])
    assert row["ratio_q1"] <= row["ratio_median"] <= row["ratio_q3"]
    assert row["decisions_ratio"] == pytest.approx(
        row["ours_sims_per_cpu_s"] * row["ours_decisions_per_sim"] / (2000.0 * 7.4))


def test_without_openspiel_the_reference_is_not_available_and_says_why(monkeypatch, tmp_path, capsys):
    bench = _bench_search()

    def missing(*args, **kwargs):
        raise ImportError("OpenSpiel is not installed")

    monkeypatch.setattr(bench._baselines, "openspiel_crazy_eights_mcts", missing)
    out = tmp_path / "search.json"
    assert bench.main(["--only", "reference", "--json", str(out)]) == 0
    assert "the search beside OpenSpiel: n/a (OpenSpiel is not installed)" in capsys.readouterr().out
    data = json.loads(out.read_text())["details"]
    assert data["openspiel_mcts"] is None and data["rows"] == []


def test_the_reference_searches_openspiels_game():
    pytest.importorskip("pyspiel")
    bench = _bench_search()
    r = bench._baselines.openspiel_crazy_eights_mcts(players=2, sims=10, games=1, playouts=2)
    assert r["searches"] > 0 and r["sims_per_cpu_s"] > 0 and r["decisions_per_sim"] > 1
    assert bench._baselines.openspiel_crazy_eights_mcts(players=2, sims=10, games=1, playouts=0)[
        "decisions_per_sim"] is None


@pytest.mark.parametrize("flag", ["--reference-repeats", "--reference-games", "--games", "--steps"])
def test_a_budget_below_one_is_refused(flag, capsys):
    with pytest.raises(SystemExit) as exc:
        _bench_search().main([flag, "0"])
    assert exc.value.code == 2 and f"{flag} must be at least 1" in capsys.readouterr().err
