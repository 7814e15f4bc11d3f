"""The arena (``uno-env evaluate``): seat rotation, intervals, reproducibility, workers, ratings, CLI errors."""
from __future__ import annotations

import importlib.util
import json
from collections import Counter

import numpy as np
import pytest

import uno_env
from uno_env.cli import main
from uno_env.training.evaluate import (
    IllegalAgentActionError,
    format_table,
    game_seeds,
    lineup_cycle,
    play_game,
    run_arena,
    seat_lineup,
    wilson_interval,
)


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.7225, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("m, n", [(1, 2), (2, 2), (2, 3), (2, 4), (3, 4), (4, 4), (3, 2), (5, 3), (2, 10)])
def test_rotation_puts_every_agent_in_every_seat_equally_often(m, n):
    cycle = lineup_cycle(m, n)
    seat_counts = Counter((agent, seat) for lineup in cycle for seat, agent in enumerate(lineup))
    assert len({seat_counts[(a, s)] for a in range(m) for s in range(n)}) == 1
    games = Counter(a for lineup in cycle for a in set(lineup))
    assert len(set(games.values())) == 1 and set(games) == set(range(m))
    if m <= n:
        assert all(set(lineup) == set(range(m)) for lineup in cycle)
    else:
        assert all(len(set(lineup)) == n for lineup in cycle)
    assert seat_lineup(m, n, len(cycle) + 1) == cycle[1]


def test_game_seeds_depend_only_on_seed_and_index():
    assert game_seeds(3, 10, 2) == game_seeds(3, 10, 2)
    assert game_seeds(3, 10, 2) != game_seeds(3, 11, 2) != game_seeds(4, 10, 2)
    deal, agents = game_seeds(0, 0, 3)
    assert len(agents) == 3 and all(0 <= x < 2**63 for x in [deal, *agents])


def test_two_copies_of_one_agent_split_the_wins():
    # the run is deterministic (seeded); a 95% interval misses 0.5 for about 1 seed in 20 (e.g. seed 1 here)
    res = run_arena(["greedy", "greedy"], games=600, seed=0)
    a, b = res.agents
    assert (a.name, b.name) == ("greedy#1", "greedy#2")
    assert a.games == b.games == 600
    assert a.wins + b.wins + res.truncated == 600
    for s in (a, b):
        lo, hi = s.ci
        assert lo < 0.5 < hi
        assert 0.44 < s.win_rate < 0.56


def test_two_copies_in_four_seats():
    res = run_arena(["heuristic", "heuristic"], num_players=4, games=240, seed=2)
    for s in res.agents:
        assert s.games == 240 and s.seats == 480  # two seats each, every game
        lo, hi = s.ci
        assert lo < 0.5 < hi
    assert res.cycle_length == 8


def test_seeded_results_are_reproducible_and_worker_independent():
    kw = dict(game="pocket", num_players=3, games=60, seed=7)
    one = run_arena(["heuristic", "random"], **kw)
    again = run_arena(["heuristic", "random"], **kw)
    two = run_arena(["heuristic", "random"], workers=2, **kw)
    assert format_table(one) == format_table(again) == format_table(two)
    assert one.to_dict() == two.to_dict()
    other = run_arena(["heuristic", "random"], **dict(kw, seed=8))
    assert format_table(other) != format_table(one)


def test_heuristic_beats_the_baselines():
    res = run_arena(["heuristic", "random"], games=200, seed=3)
    assert res.agents[0].win_rate > 0.8
    res = run_arena(["heuristic", "random"], rules="rlcard", games=400, seed=3)
    assert res.agents[0].win_rate > 0.55


def test_truncated_games_are_nobodys_win():
    res = run_arena(["random", "random"], rules={"max_turns": 30}, games=20, seed=0)
    assert res.truncated == 20
    assert all(s.wins == 0 and s.truncated == 20 for s in res.agents)
    assert res.mean_length == 30


def test_ratings_for_a_pool():
    pytest.importorskip("openskill")
    res = run_arena(["heuristic", "greedy", "random"], games=90, seed=0)
    by = {s.name: s for s in res.agents}
    assert all(s.rating_mu is not None for s in res.agents)
    assert by["heuristic"].rating_mu > by["random"].rating_mu
    assert by["heuristic"].games == 60  # every pair of three plays its 2 rotations: 2 of 3 games each
    assert "rating" in format_table(res)


def _without_openskill(monkeypatch):
    """As in a core install without openskill: importing it fails."""
    import sys

    for name in ("openskill", "openskill.models"):
        monkeypatch.setitem(sys.modules, name, None)


def test_evaluate_without_openskill_prints_the_table_and_says_the_ratings_were_skipped(monkeypatch, capsys, tmp_path):
    argv = ["evaluate", "heuristic", "greedy", "random", "-g", "30", "--seed", "3", "-q"]
    rated = None
    if importlib.util.find_spec("openskill") is not None:
        assert main(argv) == 0
        rated = capsys.readouterr().out
    _without_openskill(monkeypatch)
    out_json, records = tmp_path / "r.json", tmp_path / "games"
    assert main(argv + ["--json", str(out_json), "--record", str(records)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[-1] == ("ratings skipped: rating a pool of agents needs openskill: pip install openskill (in the "
                         "train extra)")
    assert "rating (mu" not in lines[1]
    assert len(list(records.iterdir())) == 30  # every game was played and recorded
    data = json.loads(out_json.read_text())
    assert data["ratings_skipped"].startswith("rating a pool of agents needs openskill")
    assert not any("rating_mu" in a for a in data["agents"])
    if rated is not None:  # the same games as with the ratings: each row is the rated row without its rating
        rows = [line for line in rated.splitlines() if line.startswith(("heuristic", "greedy", "random"))]
        assert [line for line in lines if line.startswith(("heuristic", "greedy", "random"))] == \
            [row[:-22] for row in rows]  # "  mu +- sigma": 22 characters
    # asked for explicitly, ratings that cannot be made are an error before any game is played
    assert main(argv + ["--ratings", "--record", str(tmp_path / "none")]) == 2
    assert "needs openskill: pip install openskill" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()
    with pytest.raises(ImportError, match="needs openskill"):
        run_arena(["random", "random"], games=2, ratings=True)
    assert run_arena(["random", "random"], games=2).ratings_skipped is None  # two agents are not rated by default


def test_points_and_lengths():
    res = run_arena(["heuristic", "greedy"], game="dice", games=40, seed=4)
    for s in res.agents:
        assert s.mean_length == res.mean_length > 0
        assert s.points >= 0
    assert sum(s.wins for s in res.agents) == 40 - res.truncated
    assert sum(res.seat_wins) == 40 - res.truncated


def test_agent_objects_and_bad_agents():
    from uno_env.agents import GreedyAgent

    class Cheater:
        name = "cheater"

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask == 0)[0])

    with pytest.raises(IllegalAgentActionError, match="agent cheater at seat"):
        run_arena([Cheater(), "random"], games=2)
    res = run_arena([GreedyAgent("classic", seed=0), "random"], games=4)
    assert res.agents[0].name == "greedy"
    with pytest.raises(ValueError, match="built for 'pocket'"):
        run_arena([GreedyAgent("pocket"), "random"], games=2)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        run_arena(["nobody", "random"], games=2)
    with pytest.raises(FileNotFoundError, match="no such file"):
        run_arena(["runs/none/policy.zip", "random"], games=2)
    with pytest.raises(ValueError, match="games must be"):
        run_arena(["random"], games=0)


def test_play_game_record():
    from uno_env.agents import HeuristicAgent
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    g = Game(make_rules("classic", 3, None))
    rec = play_game(g, [HeuristicAgent(g)] * 3, seed=5)
    assert set(rec) == {"winner", "length", "scores", "truncated", "seed", "actions", "rewards"}
    assert rec["winner"] in range(3) and rec["scores"][rec["winner"]] > 0
    assert len(rec["actions"]) == rec["length"] and rec["rewards"][rec["winner"]] > 0
    # the deal is the one uno_env.env(...).reset(seed=5) gives, so the game replays in the AEC env
    env = uno_env.raw_env("classic", num_players=3)
    env.reset(seed=5)
    for a in rec["actions"]:
        env.step(int(a))
    assert all(env.terminations.values()) and env.rewards[f"player_{rec['winner']}"] > 0


# ---------------------------------------------------------------------------------------------- CLI
def test_cli_table_and_json(tmp_path, capsys):
    out = tmp_path / "res.json"
    assert main(["evaluate", "heuristic", "greedy", "--games", "30", "--seed", "3", "--json", str(out), "-q"]) == 0
    text = capsys.readouterr().out
    assert "win rate" in text and "95% CI" in text and "heuristic" in text and "truncated" in text
    data = json.loads(out.read_text())
    assert data["games"] == 30 and [a["agent"] for a in data["agents"]] == ["heuristic", "greedy"]
    assert {"win_rate", "ci95_low", "ci95_high", "mean_points", "mean_length", "truncated"} <= set(data["agents"][0])
    assert main(["evaluate", "heuristic", "greedy", "--games", "30", "--seed", "3", "-q"]) == 0
    assert capsys.readouterr().out == text


@pytest.mark.parametrize("argv, words", [
    (["evaluate", "heurstic", "random"], "unknown agent 'heurstic'"),
    (["evaluate", "random", "./missing/policy.zip"], "no such file"),
    (["evaluate", "random", "random", "--games", "0"], "games must be"),
    (["evaluate", "random", "random", "--num-players", "11"], "num_players"),
])
def test_cli_errors_are_clear(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-env evaluate: error:") and words in err


@pytest.mark.parametrize("sub", ["evaluate", "play"])
def test_cli_help(sub, capsys):
    with pytest.raises(SystemExit) as exc:
        main([sub, "--help"])
    assert exc.value.code == 0
    assert f"usage: uno-env {sub}" in capsys.readouterr().out


def test_progress_bar_counts_games_and_shows_the_time_left(capsys):
    run_arena(["greedy", "random"], games=30, seed=0, progress=True, chunk=10)
    err = capsys.readouterr().err
    assert "30/30" in err and "game" in err
    assert "<" in err  # tqdm's [elapsed<remaining] estimate


def test_agent_arguments_reach_the_arena_and_name_the_row():
    res = run_arena(["ismcts:sims=4,rollout=greedy", "random"], games=2, seed=0)
    assert res.agents[0].name == "ismcts:sims=4,rollout=greedy"
    with pytest.raises(ValueError, match="unknown argument 'budget'"):
        run_arena(["ismcts:budget=4", "random"], games=2, seed=0)


def test_cli_rejects_a_bad_agent_argument_by_name(capsys):
    assert main(["evaluate", "ismcts:sims=0", "random", "-g", "1", "-q"]) == 2
    err = capsys.readouterr().err
    assert "sims" in err and "1..1000000" in err


@pytest.mark.parametrize("game, n, rules, weights", [
    ("classic", 2, None, None),
    ("classic", 3, {"stacking": "any", "seven_zero": True, "jump_in": True}, {"deny": 5.0, "wild_save": 1.0}),
    ("classic", 2, "official", None),
    ("pocket", 4, None, None),
    ("dice", 2, None, None),
    ("dice", 4, None, {"deny": 5.0}),  # the card weights do not reach UNO Dice's player, in either
])
def test_the_arena_heuristic_plays_its_compiled_twin_with_the_same_games(game, n, rules, weights):
    """The arena plays a card game's heuristic compiled: every game (winner, length, points, seat) is the one the
    Python agent plays, with its weights."""
    from uno_env.agents import HeuristicAgent
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    class Python(HeuristicAgent):  # a subclass plays as it is: the arena swaps only the plain agent
        pass

    g = Game(make_rules(game, n, rules))
    fast = run_arena([HeuristicAgent(g, weights=weights), "greedy"], game=game, num_players=n, rules=rules, games=24,
                     seed=3)
    slow = run_arena([Python(g, weights=weights), "greedy"], game=game, num_players=n, rules=rules, games=24, seed=3)
    assert fast.to_dict() == slow.to_dict()
    assert fast.agents[0].name == "heuristic"


def test_the_arena_does_not_ask_the_python_heuristic(monkeypatch):
    from uno_env.agents import HeuristicAgent

    def refuse(*args, **kwargs):
        raise AssertionError("the Python heuristic was asked")

    monkeypatch.setattr(HeuristicAgent, "act", refuse)
    for game in ("classic", "pocket", "dice"):
        assert run_arena(["heuristic", "random"], game=game, games=4, seed=0).games == 4
