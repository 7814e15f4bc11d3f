"""benchmarks/bench_scratch.py: a config trained per seed, its evaluations read back as curves, medians over seeds."""
from __future__ import annotations

import json

import pytest
from scripts import load_script

pytest.importorskip("torch")
pytest.importorskip("matplotlib")


def _bench():
    return load_script("benchmarks/bench_scratch.py")


def test_median_curve_over_seeds_with_the_spread():
    bench = _bench()

    def point(step, wall, greedy):
        return {"step": step, "wall_s": wall, "cpu_s": wall / 2, "greedy": {"win_rate": greedy}}

    curves = [[point(10, 1.0, 0.4), point(20, 2.0, 0.5)], [point(10, 3.0, 0.2), point(20, 4.0, 0.7)],
              [point(10, 2.0, 0.3)]]
    med = bench.median_curve(curves)
    assert [m["step"] for m in med] == [10, 20] and [m["seeds"] for m in med] == [3, 2]
    assert med[0]["greedy"] == {"median": 0.3, "min": 0.2, "max": 0.4} and med[0]["wall_s"] == 2.0
    assert med[1]["greedy"]["median"] == pytest.approx(0.6) and "heuristic" not in med[1]


def test_a_variant_has_its_own_runs():
    bench = _bench()
    assert bench.run_name("classic_scratch", 1) == "classic_scratch_seed1"
    assert bench.run_name("configs/train/classic_scratch.yaml", 1, "tanh") == "classic_scratch_tanh_seed1"
    cmd = bench.train_command("classic_scratch", 2, "runs/x", ["policy.activation=tanh"], False, "tanh")
    assert cmd[cmd.index("--set") + 1:][:5] == ["seed=2", "--set", "name=classic_scratch_tanh_seed2", "--set",
                                                "runs_dir=runs/x"]
    assert cmd[-2:] == ["--set", "policy.activation=tanh"]


def test_evaluation_time_is_taken_off_the_time_axes():
    bench = _bench()
    report = {"eval_history": [
        {"step": 5, "wall_time": 10.0, "cpu_time": 8.0, "seconds": 2.0, "results": [
            {"opponent": "greedy", "win_rate": 0.5, "ci_low": 0.4, "ci_high": 0.6, "games": 20}]},
        {"step": 10, "wall_time": 20.0, "cpu_time": 15.0, "seconds": 3.0, "results": []}]}
    curve = bench.run_curve(report)
    assert [(p["wall_s"], p["cpu_s"]) for p in curve] == [(8.0, 6.0), (15.0, 10.0)]
    assert curve[0]["greedy"]["games"] == 20


def test_a_seed_is_trained_then_collected(tmp_path, capsys):
    bench = _bench()
    runs = tmp_path / "runs"
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    common = ["--configs", "smoke_batched", "--seeds", "3", "--runs-dir", str(runs), "--set",
              "evaluation.opponents=[greedy, heuristic]", "--set", "evaluation.games=10", "--set",
              "evaluation.final_games=10"]
    assert bench.main([*common, "--json", str(out), "--plot", str(png)]) == 0
    data = json.loads(out.read_text())
    (res,) = data["results"]
    (run,) = res["runs"]
    assert run["seed"] == 3 and run["steps"] == 4096 and run["train_cpu_s"] > 0
    assert [p["step"] for p in run["curve"]] == [2048] and res["median"][0]["greedy"]["min"] >= 0
    assert png.stat().st_size > 0
    assert "smoke_batched: classic, 2 players, 1 seeds" in capsys.readouterr().out
    assert bench.main([*common, "--collect"]) == 0  # read back, not trained again
    capsys.readouterr()
    assert bench.main([*common[:3], "3", "4", *common[4:], "--collect", "--json", str(out)]) == 0
    assert "seed 4 left out" in capsys.readouterr().out
    assert [r["seed"] for r in json.loads(out.read_text())["results"][0]["runs"]] == [3]
    with pytest.raises(SystemExit, match="no finished run of smoke_batched"):
        bench.main([*common[:3], "4", *common[4:], "--collect"])


def test_every_ablation_is_a_valid_config_that_changes_its_recipe():
    from uno_env.training.config import config_to_dict, load_config

    bench = _bench()
    names = bench.ablation_names()
    assert len(set(names)) == len(names) and "classic_scratch_5m_tanh" in names
    for config, tag, _factor, overrides, seeds in bench.ABLATIONS:
        cfg = load_config(config, [*bench.SHORT, *overrides])
        assert cfg.policy.advice == "none" and cfg.ppo.kickstart_coef == 0 and seeds
        assert cfg.total_steps == (1_000_000 if tag.startswith("imitation") else 5_000_000)
        if tag != "5m":  # a variant differs from its recipe at the same length
            assert config_to_dict(cfg) != config_to_dict(load_config(config, list(bench.SHORT))), tag
    with pytest.raises(SystemExit, match="unknown ablation classic_scratch_huge; known: classic_scratch_5m"):
        bench.main(["--ablations", "classic_scratch_huge"])


def test_ablations_are_read_back_and_plotted_beside_their_recipe(tmp_path, monkeypatch):
    bench = _bench()
    monkeypatch.setattr(bench, "SHORT", ("total_steps=4096", "evaluation.every=2048", "evaluation.games=10",
                                         "evaluation.final_games=10", "evaluation.opponents=[greedy]"))
    monkeypatch.setattr(bench, "ABLATIONS", (("smoke_batched", "5m", "the recipe", (), (0,)),
                                             ("smoke_batched", "wide", "network size",
                                              ("policy.net_arch=[32]",), (0, 1))))
    runs, png = tmp_path / "runs", tmp_path / "a.png"
    assert bench.main(["--ablations", "--runs-dir", str(runs), "--plot", str(png)]) == 0
    assert sorted(p.name for p in runs.iterdir()) == ["smoke_batched_5m_seed0", "smoke_batched_wide_seed0",
                                                      "smoke_batched_wide_seed1"]
    out = tmp_path / "a.json"
    assert bench.main(["--ablations", "smoke_batched_wide", "--collect", "--runs-dir", str(runs), "--json",
                       str(out)]) == 0
    (res,) = json.loads(out.read_text())["results"]
    assert res["factor"] == "network size" and len(res["runs"]) == 2 and "policy.net_arch=[32]" in res["overrides"]
    assert png.stat().st_size > 0


def _result(tag, finals, curve, factor=None):
    res = {"config": "classic_scratch", "tag": tag, "game": "classic", "num_players": 2,
           "overrides": ["total_steps=5000000", "policy.activation=tanh"] if tag != "5m" else ["total_steps=5000000"],
           "runs": [{"seed": i, "steps": 5_000_000, "train_wall_s": 600.0, "train_cpu_s": 300.0,
                     "final_arena": [{"opponent": "greedy", "games": 20000, "win_rate": w, "ci_low": w - 0.01,
                                      "ci_high": w + 0.01}]} for i, w in enumerate(finals)],
           "median": [{"step": (i + 1) * 1_000_000, "greedy": {"median": v, "min": v, "max": v}}
                      for i, v in enumerate(curve)]}
    if factor:
        res["factor"] = factor
    return res


def test_where_a_curve_flattens():
    bench = _bench()
    assert bench.flattens_at(_result("5m", [0.5], [0.40, 0.50, 0.55, 0.57, 0.575, 0.57])) == 4_000_000
    assert bench.flattens_at(_result("5m", [0.5], [0.46, 0.47, 0.465])) == 1_000_000
    assert bench.flattens_at(_result("5m", [0.5], [0.40, 0.50, 0.60])) is None  # still rising


def test_the_tables_of_the_docs_page_come_from_the_results():
    bench = _bench()
    base = _result("5m", [0.58, 0.56, 0.57], [0.5, 0.57], factor="the recipe")
    tanh = _result("5m_tanh", [0.47, 0.46, 0.48], [0.46, 0.47], factor="activation")
    lines = bench.markdown({"results": [base, tanh]}).splitlines()
    assert lines[2].startswith("| classic | the recipe | 5m | (none) | 3 | 57.0% (56.0% .. 58.0%) |")
    assert "| `policy.activation=tanh` | 3 | 47.0% (46.0% .. 48.0%) |  | -10.0 | 1.0M |" in lines[3]
    del base["factor"]
    recipes = bench.markdown({"results": [base]}).splitlines()
    assert len(recipes) == 5 and recipes[2] == ("| classic_scratch [5m] | classic, 2 | 5.0M | 0 | 58.0% [57.0, 59.0] "
                                                "(20,000 games) |  | 10 min | 5 min |")
