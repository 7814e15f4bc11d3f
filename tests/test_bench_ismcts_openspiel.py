"""benchmarks/bench_ismcts_openspiel.py: OpenSpiel's ISMCTSBot and our search on the same game, speed and strength."""
from __future__ import annotations

import json

import pytest
from scripts import load_script

pytest.importorskip("pyspiel")


def _bench():
    return load_script("benchmarks/bench_ismcts_openspiel.py")


def test_a_small_run_reports_both_searches_and_a_repeatable_match(tmp_path, capsys):
    bench = _bench()
    out = tmp_path / "run.json"
    args = ["--game", "dice", "--sims", "8", "--speed-games", "1", "--games", "4", "--workers", "1",
            "--ours", "ismcts:mode=tree,rollout=random", "--json", str(out)]
    assert bench.main(args) == 0
    text = capsys.readouterr().out
    assert "OpenSpiel ISMCTSBot (Python)" in text and "ratio, ours / OpenSpiel" in text
    result = json.loads(out.read_text())
    speed = result["speed"]
    assert speed["decisions"] > 0
    # OpenSpiel runs every simulation at every decision; ours, the same budget (sims=8 passed to the matched search)
    assert speed["simulations"]["openspiel"] == 8 * speed["decisions"]
    assert 0 < speed["simulations"]["ours"] <= 8 * speed["decisions"]
    (match,) = result["strength"]
    assert match["games"] == 4 and 0.0 <= match["ci95_low"] <= match["win_rate"] <= match["ci95_high"] <= 1.0
    # every game seeded from its index: the same games again
    again = [bench.play_one((result["args"], "ismcts:mode=tree,rollout=random", i)) for i in range(2)]
    first = [bench.play_one((result["args"], "ismcts:mode=tree,rollout=random", i)) for i in range(2)]
    assert [g["win"] for g in again] == [g["win"] for g in first]
    assert [g["seat"] for g in first] == [0, 1]


def test_the_matched_search_gets_the_budget_and_the_exploration_constant():
    bench = _bench()
    game = bench.load_game(bench.argparse.Namespace(game="dice", players=2))
    agent = bench.our_agent(bench.MATCHED, game, sims=37, c=0.9, seed=0)
    assert (agent.mode, agent.rollout, agent.sims, agent.c) == ("tree", "random", 37, 0.9)
    default = bench.our_agent("ismcts", game, sims=37, c=0.9, seed=0)
    assert default.sims != 37  # the package's default search keeps its own budget


@pytest.mark.parametrize("argv, message", [
    (["--games", "3"], "even number"),
    (["--sims", "0"], "must be positive"),
    (["--players", "3"], "for 2 players"),
    (["--c", "0"], "--c must be in"),
])
def test_bad_arguments_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit):
        _bench().main(argv)
    assert message in capsys.readouterr().err
