"""benchmarks/bench_learning.py: both trainers learn the same task in turns, each evaluation untimed."""
from __future__ import annotations

import json

import pytest
from scripts import load_script

TINY = ["--seeds", "3", "--budget", "0.01", "--chunk", "128", "--envs", "16", "--steps", "8", "--batch", "64",
        "--epochs", "1", "--net", "16", "--eval-games", "20"]


def _bench_learning():
    return load_script("benchmarks/bench_learning.py")


def test_both_trainers_learn_in_turns_and_every_evaluation_is_recorded(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "learning.json"
    assert _bench_learning().main([*TINY, "--json", str(out)]) == 0
    data = json.loads(out.read_text())["details"]
    for name in ("batched_ppo", "maskable_ppo"):
        curve = data["curves"]["3"][name]
        # the untrained policy, then a chunk at a time until the budget is spent
        assert [p["steps"] for p in curve] == [128 * i for i in range(len(curve))] and len(curve) >= 2
        assert curve[0]["seconds"] == 0 and curve[-2]["seconds"] < 0.01 <= curve[-1]["seconds"]
        assert all(0 <= p["ci_low"] <= p["win_rate"] <= p["ci_high"] <= 1 for p in curve)
        assert data["summary"][0]["steps_per_s"][name] == curve[-1]["steps"] / curve[-1]["seconds"]
    printed = capsys.readouterr().out
    assert "seed 3" in printed and "batched_ppo (plain PyTorch)" in printed and "MaskablePPO (sb3-contrib)" in printed
    assert "first at 45% or more against greedy" in printed and "median over seeds" in printed


def test_the_first_evaluation_at_the_target_and_the_last_one_by_a_time():
    bench = _bench_learning()
    curve = [{"seconds": 0.0, "steps": 0, "win_rate": 0.1}, {"seconds": 3.0, "steps": 10, "win_rate": 0.52},
             {"seconds": 6.0, "steps": 20, "win_rate": 0.49}, {"seconds": 9.0, "steps": 30, "win_rate": 0.6}]
    assert bench.first_reaching(curve, 0.5)["steps"] == 10
    assert bench.first_reaching(curve, 0.7) is None
    assert bench.at_seconds(curve, 8.9)["steps"] == 20 and bench.at_seconds(curve, 9.0)["steps"] == 30


@pytest.mark.parametrize("argv, message", [
    (["--budget", "0"], "--budget must be positive"),
    (["--eval-games", "25"], "--eval-games must be even"),
    (["--target", "1.5"], "--target must be between 0 and 1"),
    (["--opponent", "ppo"], "invalid choice: 'ppo'"),
    (["--seeds", "-1"], "--seeds must be non-negative"),
])
def test_bad_arguments_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        _bench_learning().main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err
