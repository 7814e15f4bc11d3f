"""benchmarks/_ismcts_openspiel.py (bench_search's second reference): OpenSpiel's ISMCTSBot and our search on the
same game, speed and strength."""
from __future__ import annotations

import argparse

import pytest
from scripts import load_script

pytest.importorskip("pyspiel")


def _ref():
    return load_script("benchmarks/_ismcts_openspiel.py")


def _args(**kw):
    return argparse.Namespace(**{"game": "dice", "players": 2, "sims": 8, "c": 0.7, "speed_games": 1, "games": 4,
                                 "deal_base": 0, "workers": 1, **kw})


def test_both_searches_get_the_same_budget_and_a_match_is_repeatable():
    ref = _ref()
    speed = ref.speed(_args())
    assert speed["decisions"] > 0
    # OpenSpiel runs every simulation at every decision; ours, the same budget (sims=8 passed to the matched search)
    assert speed["simulations"]["openspiel"] == 8 * speed["decisions"]
    assert 0 < speed["simulations"]["ours"] <= 8 * speed["decisions"]
    match = ref.strength(_args(), ref.MATCHED)
    assert match["games"] == 4 and 0.0 <= match["ci95_low"] <= match["win_rate"] <= match["ci95_high"] <= 1.0
    # every game seeded from its index: the same games again
    first = [ref.play_one((vars(_args()), ref.MATCHED, i)) for i in range(2)]
    again = [ref.play_one((vars(_args()), ref.MATCHED, i)) for i in range(2)]
    assert [g["win"] for g in again] == [g["win"] for g in first]
    assert [g["seat"] for g in first] == [0, 1]


def test_the_matched_search_gets_the_budget_and_the_exploration_constant():
    ref = _ref()
    game = ref.load_game(_args())
    agent = ref.our_agent(ref.MATCHED, game, sims=37, c=0.9, seed=0)
    assert (agent.mode, agent.rollout, agent.sims, agent.c) == ("tree", "random", 37, 0.9)
    default = ref.our_agent("ismcts", game, sims=37, c=0.9, seed=0)
    assert default.sims != 37  # the package's default search keeps its own budget


def test_bench_search_reports_the_ismcts_reference_speed_and_strength(tmp_path):
    import json

    out = tmp_path / "search.json"
    bench = load_script("benchmarks/bench_search.py")
    assert bench.main(["--only", "ismcts", "--ismcts-speed-games", "1", "--ismcts-games", "2", "--workers", "1",
                       "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    keys = [h["key"] for h in data["headlines"]]
    matched = bench._ismcts_openspiel.MATCHED
    assert keys == ["search/ismcts_openspiel/speed", f"search/ismcts_openspiel/strength/{matched}",
                    "search/ismcts_openspiel/strength/ismcts"]
    strength = data["headlines"][1]
    assert strength["interval"][0] <= strength["ours"] <= strength["interval"][1]


@pytest.mark.parametrize("argv, message", [
    (["--ismcts-games", "3"], "even number"),
    (["--workers", "0"], "must be at least 1"),
])
def test_bad_arguments_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit):
        load_script("benchmarks/bench_search.py").main(argv)
    assert message in capsys.readouterr().err
