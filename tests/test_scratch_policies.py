"""Policies trained from scratch (``agents/policies/scratch/``): shipped by ``tools/ship_policy.py --scratch`` only
from runs that learned from nothing but their games, marked so in their metadata, loadable by path, and as strong
as their records say."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from scripts import load_script

from uno_env.training.evaluate import run_arena, wilson_interval

ROOT = Path(__file__).resolve().parents[1]
SCRATCH = ROOT / "agents" / "policies" / "scratch"
SHIPPED = sorted(p.stem for p in SCRATCH.glob("*.npz"))


def _ship():
    return load_script("tools/ship_policy.py")


@pytest.mark.parametrize("report, words", [
    ({"config": {"policy": {"advice": "heuristic"}}}, ["policy.advice"]),
    ({"config": {"ppo": {"imitation_steps": 200000}}}, ["ppo.imitation_steps"]),
    ({"config": {"ppo": {"kickstart_coef": 1.0}}}, ["ppo.kickstart_coef"]),
    ({"config": {}, "labels": {}}, ["search labels"]),
])
def test_a_run_that_learned_from_the_heuristic_or_the_search_is_not_from_scratch(report, words):
    problems = _ship().scratch_problems(report)
    assert problems and all(any(w in p for p in problems) for w in words)


def test_a_from_scratch_run_ships_beside_the_ppo_policies(tmp_path):
    pytest.importorskip("torch")
    from uno_env.training.train import main as train

    run_dir, out_dir = tmp_path / "run", tmp_path / "scratch"
    assert train(["--config", "smoke_batched", "--run-dir", str(run_dir), "--no-progress",
                  "--set", "evaluation.games=10", "--set", "evaluation.final_games=20"]) == 0
    ship = [sys.executable, str(ROOT / "tools" / "ship_policy.py")]
    done = subprocess.run([*ship, "--scratch", str(run_dir), "--out-dir", str(out_dir)], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    meta = json.loads((out_dir / "classic_2p.json").read_text())
    report = json.loads((run_dir / "report.json").read_text())
    assert meta["from_scratch"] is True and "no heuristic advice, no imitation, no search labels" in meta["training"]
    assert meta["name"] == "classic_2p_scratch" and meta["advice"] == "none"
    assert meta["train_cpu_seconds"] == report["train_cpu_seconds"] > 0
    advised = tmp_path / "advised"
    assert train(["--config", "smoke_batched", "--run-dir", str(advised), "--no-progress", "--set",
                  "policy.advice=heuristic", "--set", "evaluation.games=10", "--set", "evaluation.final_games=20",
                  "--total-steps", "2048"]) == 0
    refused = subprocess.run([*ship, "--scratch", str(advised), "--out-dir", str(tmp_path / "x")],
                             capture_output=True, text=True)
    assert refused.returncode == 1 and "policy.advice" in refused.stderr and not (tmp_path / "x").exists()


@pytest.mark.parametrize("name", SHIPPED)
def test_the_shipped_file_says_it_learned_from_scratch(name):
    meta = json.loads((SCRATCH / f"{name}.json").read_text())
    assert f"{meta['game']}_{meta['num_players']}p" == name and meta["from_scratch"] is True
    assert meta["advice"] == "none" and meta["policy"]["advice"] == "none"
    assert meta["trained_by"].startswith("uno-env train --config") and "_scratch" in meta["trained_by"]
    greedy = {r["opponent"]: r for r in meta["final_arena"]}["greedy"]
    assert greedy["games"] >= 20_000 and greedy["interval"] == "over deals" and greedy["ci_low"] > 0.5
    assert (SCRATCH / f"{name}.npz").stat().st_size < 800_000


@pytest.mark.parametrize("name", SHIPPED)
def test_the_shipped_file_loads_by_path_and_plays_as_its_record(name):
    """Loaded by path (as ``uno-env evaluate`` does), a short seeded arena agrees with the record (within its own
    99.9% interval)."""
    meta = json.loads((SCRATCH / f"{name}.json").read_text())
    greedy = {r["opponent"]: r for r in meta["final_arena"]}["greedy"]
    res = run_arena([str(SCRATCH / f"{name}.npz"), "greedy"], game=meta["game"], num_players=meta["num_players"],
                    games=1000, seed=0)
    lo, hi = wilson_interval(res.agents[0].wins, res.agents[0].games, 3.29)
    assert lo <= greedy["win_rate"] <= hi, (name, res.agents[0].win_rate, greedy["win_rate"])


@pytest.mark.parametrize("name", SHIPPED)
def test_the_agent_named_scratch_is_the_shipped_file(name):
    """``make_agent("scratch", ...)`` loads the table's from-scratch file: the same network as by path, marked tabula
    rasa, acting from the observation and mask alone (no heuristic at play time)."""
    from uno_env.agents.registry import make_agent
    from uno_env.agents.shipped import policy_path
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    meta = json.loads((SCRATCH / f"{name}.json").read_text())
    agent = make_agent("scratch", Game(make_rules(meta["game"], meta["num_players"], None)), seed=0)
    assert agent.name == "scratch" and agent.meta["from_scratch"] is True and agent.meta["advice"] == "none"
    assert Path(policy_path(meta["game"], meta["num_players"], "scratch")) == SCRATCH / f"{name}.npz"


def test_the_agent_named_scratch_has_no_four_player_policy():
    from uno_env.agents.registry import UnknownAgentError, make_agent
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    with pytest.raises(UnknownAgentError, match="agent 'scratch': no shipped policy for 'classic' with 4 players"):
        make_agent("scratch", Game(make_rules("classic", 4, None)))
