"""The duplicate arena (``uno-env evaluate --duplicate``): every deal played with each block order, intervals over
deals."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from uno_env.cli import main
from uno_env.training.evaluate import (
    Z95,
    against_baselines,
    arena_seeds,
    duplicate_deal,
    duplicate_interval,
    game_seeds,
    lineup_cycle,
    run_arena,
)


@pytest.mark.parametrize("m, n", [(2, 2), (2, 3), (2, 4), (3, 4), (4, 4), (2, 10), (5, 7)])
def test_the_games_of_a_deal_put_every_agent_in_every_seat_once(m, n):
    cycle = lineup_cycle(m, n, duplicate=True)
    assert sorted(cycle) == sorted(lineup_cycle(m, n))  # the same lineups, so the same seat balance
    for first in range(0, len(cycle), m):
        deal = cycle[first: first + m]
        assert {duplicate_deal(first + k, m) for k in range(m)} == {first // m}
        for seat in range(n):
            assert sorted(lineup[seat] for lineup in deal) == list(range(m))
        # the block order: agent a's seats in game i are the block (a - i) mod m of the deal's first game
        for k, lineup in enumerate(deal):
            for a in range(m):
                block_of_a = {s for s, who in enumerate(lineup) if who == a}
                assert block_of_a == {s for s, who in enumerate(deal[0]) if who == (a - k) % m}


@pytest.mark.parametrize("m, n", [(1, 2), (3, 2), (5, 4)])
def test_a_duplicate_cycle_needs_one_block_per_agent(m, n):
    with pytest.raises(ValueError, match="duplicate arena needs 2 to"):
        lineup_cycle(m, n, duplicate=True)


def test_the_games_of_a_deal_share_its_seed_and_each_block_its_stream():
    for seed in (0, 5):
        for m in (2, 3):
            for deal in range(4):
                games = [arena_seeds(seed, deal * m + k, m, duplicate=True) for k in range(m)]
                assert len({d for d, _ in games}) == 1
                assert games[0][0] == game_seeds(seed, deal, m)[0]
                for k, (_, agent_seeds) in enumerate(games):
                    # agent a plays block (a - k) mod m: each block's stream stays with the block
                    assert [agent_seeds[(b + k) % m] for b in range(m)] == games[0][1]
            assert arena_seeds(seed, 0, m, duplicate=True)[0] != arena_seeds(seed, m, m, duplicate=True)[0]
    assert arena_seeds(3, 7, 2) == game_seeds(3, 7, 2)  # the plain arena is unchanged


@pytest.mark.parametrize("agent", ["heuristic", "random", "greedy"])
@pytest.mark.parametrize("game, n", [("classic", 2), ("classic", 4), ("pocket", 3), ("dice", 2)])
def test_two_copies_of_one_agent_tie_every_deal(agent, game, n):
    # the same deal, the same streams per seat: the copies swap seats and so swap the result, random ones too
    res = run_arena([agent, agent], game=game, num_players=n, games=24, seed=1, duplicate=True)
    assert res.truncated == 0
    for s in res.agents:
        assert s.wins == 12 and s.deals == 12 and s.deal_sd == 0.0
        assert s.ci == (0.5, 0.5)
    plain = run_arena([agent, agent], game=game, num_players=n, games=24, seed=1)
    assert all(s.ci[1] - s.ci[0] > 0.3 for s in plain.agents)


def test_duplicate_records_are_the_same_sequential_batched_and_over_workers(tmp_path):
    kw = dict(game="classic", num_players=4, games=48, seed=3, duplicate=True)
    runs = {
        "lockstep": run_arena(["heuristic", "random"], record_dir=tmp_path / "a", **kw),
        "sequential": run_arena(["heuristic", "random"], batched=False, record_dir=tmp_path / "b", **kw),
        "workers": run_arena(["heuristic", "random"], workers=2, record_dir=tmp_path / "c", **kw),
    }
    dicts = {k: r.to_dict() for k, r in runs.items()}
    assert dicts["lockstep"] == dicts["sequential"] == dicts["workers"]
    for name in ("b", "c"):
        for path in sorted((tmp_path / "a").iterdir()):
            assert json.loads(path.read_text()) == json.loads((tmp_path / name / path.name).read_text())
    seeds = [json.loads((tmp_path / "a" / f"game_{i:06d}.json").read_text())["seed"] for i in range(48)]
    assert all(seeds[2 * d] == seeds[2 * d + 1] for d in range(24)) and len(set(seeds)) == 24


def test_the_interval_is_computed_over_deals(tmp_path):
    res = run_arena(["heuristic", "greedy"], num_players=4, games=200, seed=4, duplicate=True, record_dir=tmp_path)
    cycle = lineup_cycle(2, 4, duplicate=True)
    per_deal = np.zeros((2, 100))
    for i in range(200):
        rec = json.loads((tmp_path / f"game_{i:06d}.json").read_text())
        if rec["result"]["winner"] >= 0:
            per_deal[cycle[i % 8][rec["result"]["winner"]], i // 2] += 0.5
    for a, s in enumerate(res.agents):
        mean, sd = per_deal[a].mean(), per_deal[a].std(ddof=1)
        assert s.win_rate == pytest.approx(mean) and s.deal_sd == pytest.approx(sd)
        half = Z95 * sd / math.sqrt(100)
        assert s.ci == pytest.approx((mean - half, mean + half))
    assert duplicate_interval(0.98, 0.2, 100) == (pytest.approx(0.9408), 1.0)  # clamped to a proportion
    assert duplicate_interval(0.5, 0.1, 1) == (0.0, 1.0)


class _HeuristicMostly:
    """The heuristic, except on about ``eps`` of its decisions, where it plays a random legal action: an agent
    nearly the heuristic, as a distilled or fine-tuned one is."""
    arena_lockstep = "row_streams"

    def __init__(self, game, eps: float):
        from uno_env.agents.registry import load_agent

        self.heuristic = load_agent("heuristic", game)
        self.eps = eps
        self.rng = np.random.default_rng(0)
        self.name = f"heuristic~{eps:g}"

    def act(self, observation, action_mask=None):
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def act_batch(self, observations, action_masks):
        chosen = np.asarray(self.heuristic.act_batch(observations, action_masks), dtype=np.int64)
        explore, pick = self.rng.random(len(chosen)) < self.eps, self.rng.random(len(chosen))
        for row in np.flatnonzero(explore):
            legal = np.flatnonzero(action_masks[row])
            chosen[row] = legal[int(pick[row] * len(legal))]
        return chosen


def test_duplicate_narrows_the_interval_of_similar_agents():
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    # where two agents mostly agree, both seatings of a deal mostly go the same way, and only the rest is noise
    near = _HeuristicMostly(Game(make_rules("classic", 4, None)), eps=0.03)
    kw = dict(num_players=4, games=600, seed=0)
    plain = run_arena([near, "heuristic"], **kw).agents[0]
    dup = run_arena([near, "heuristic"], duplicate=True, **kw).agents[0]
    width = lambda s: s.ci[1] - s.ci[0]  # noqa: E731
    assert width(dup) < 0.75 * width(plain)
    assert dup.deals == 300 and dup.deal_sd > 0


@pytest.mark.parametrize("agents, n, games, words", [
    (["heuristic"], 2, 10, "a duplicate arena needs 2 to 2 agents (one block of seats each), got 1"),
    (["heuristic", "greedy", "random"], 2, 12,
     "a duplicate arena needs 2 to 2 agents (one block of seats each), got 3"),
    (["heuristic", "greedy"], 4, 7, "games must be a multiple of the number of agents (2)"),
    (["heuristic", "greedy", "random"], 3, 10, "multiple of the number of agents (3)"),
])
def test_bad_duplicate_runs_are_refused_by_name(agents, n, games, words):
    with pytest.raises(ValueError) as exc:
        run_arena(agents, num_players=n, games=games, duplicate=True)
    assert words in str(exc.value)
    with pytest.raises(ValueError, match="duplicate must be True or False"):
        run_arena(["heuristic", "greedy"], games=10, duplicate="yes")


def test_cli_duplicate_table_and_json(tmp_path, capsys):
    out = tmp_path / "dup.json"
    argv = ["evaluate", "heuristic", "greedy", "-n", "3", "--games", "60", "--seed", "2", "--duplicate", "-q"]
    assert main(argv + ["--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "duplicate: 30 deals, each played with all 2 block orders; intervals over deals" in text
    data = json.loads(out.read_text())
    assert data["duplicate"] is True
    row = data["agents"][0]
    assert row["interval"] == "over deals" and row["deals"] == 30 and "deal_score_sd" in row
    assert main(["evaluate", "heuristic", "greedy", "--games", "61", "--duplicate", "-q"]) == 2
    assert "games must be a multiple of the number of agents" in capsys.readouterr().err
    assert main(["evaluate", "heuristic", "greedy", "--games", "20", "-q"]) == 0
    assert "duplicate" not in capsys.readouterr().out


def test_against_baselines_gives_the_deal_interval():
    # the trainers' evaluation: the agent in one seat, the baseline in every other (four agents at four seats)
    rows = against_baselines("heuristic", ["greedy"], "classic", 4, None, games=200, seed=1, duplicate=True)
    res = run_arena(["heuristic"] + ["greedy"] * 3, num_players=4, games=200, seed=1, duplicate=True, ratings=False)
    assert (rows[0]["ci_low"], rows[0]["ci_high"]) == pytest.approx(res.agents[0].ci)
    assert rows[0]["wins"] == res.agents[0].wins
    half = against_baselines("heuristic", ["greedy"], "classic", 4, None, games=200, seed=1, duplicate=True,
                             confidence=0.5)[0]
    assert rows[0]["ci_low"] < half["ci_low"] < half["ci_high"] < rows[0]["ci_high"]


def test_a_training_config_asks_for_the_duplicate_evaluation(tmp_path):
    from pathlib import Path

    from uno_env.training.config import ConfigError, load_config
    from uno_env.training.run_state import RunState

    smoke = Path(__file__).resolve().parents[1] / "configs" / "train" / "smoke.yaml"
    assert load_config(smoke).evaluation.duplicate is False
    cfg = load_config(smoke, ["evaluation.duplicate=true", "evaluation.games=20", "evaluation.final_games=40"])
    rows = RunState(cfg, str(tmp_path), None).arena("greedy", 20, 5, 1)
    assert [r["interval"] for r in rows] == ["over deals"] * len(cfg.evaluation.opponents)
    direct = against_baselines("greedy", cfg.evaluation.opponents, "classic", 2, cfg.env.rules, 20, 5, duplicate=True)
    assert [r["ci_low"] for r in rows] == [r["ci_low"] for r in direct]
    for key, value in (("games", 21), ("final_games", 41)):
        with pytest.raises(ConfigError, match=f"'evaluation.{key}': with evaluation.duplicate, a multiple of "
                                              r"env.num_players \(2\)"):
            load_config(smoke, ["evaluation.duplicate=true", f"evaluation.{key}={value}"])
    with pytest.raises(ConfigError, match="evaluation.duplicate"):
        load_config(smoke, ["evaluation.duplicate=sometimes"])
