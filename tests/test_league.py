"""The league (training/league.py): prioritised fictitious self-play weightings, the pool drawing with them, and the
config key that chooses one."""
from __future__ import annotations

import numpy as np
import pytest

from uno_env.training.config import ConfigError, load_config
from uno_env.training.league import MIN_FACTOR, PFSP, pfsp_weight
from uno_env.training.pool import SNAPSHOT_PREFIX, OpponentPool


def test_each_weighting_as_documented_with_a_floor():
    x = np.array([0.0, 0.25, 0.5, 0.9, 1.0])
    np.testing.assert_allclose(pfsp_weight(x, "linear"), [1.0, 0.75, 0.5, 0.1, MIN_FACTOR])
    np.testing.assert_allclose(pfsp_weight(x, "squared"), [1.0, 0.5625, 0.25, MIN_FACTOR, MIN_FACTOR])
    np.testing.assert_allclose(pfsp_weight(x, "variance"), [MIN_FACTOR, 0.1875, 0.25, 0.09, MIN_FACTOR])
    assert set(PFSP) == {"linear", "squared", "variance"}
    with pytest.raises(ValueError, match="unknown PFSP weighting 'hard'"):
        pfsp_weight(x, "hard")


def _pool_after(weighting: str, wins: dict[str, float], games: int = 600) -> OpponentPool:
    pool = OpponentPool({n: 1.0 for n in wins}, selfplay_prob=0.0, seed=0, sampling="win_rate", pfsp=weighting)
    rng = np.random.default_rng(1)
    for _ in range(games):
        for name, p in wins.items():
            pool.record_result(name, bool(rng.random() < p))
    return pool


def test_squared_meets_the_hard_opponent_more_than_linear_and_variance_the_even_one():
    wins = {"random": 0.95, "greedy": 0.5, "heuristic": 0.2}

    def shares(weighting: str) -> dict[str, float]:
        pool = _pool_after(weighting, wins)
        draws = [pool.draw() for _ in range(4000)]
        return {n: draws.count(n) / len(draws) for n in wins}

    linear, squared, variance = shares("linear"), shares("squared"), shares("variance")
    assert squared["heuristic"] > linear["heuristic"] > linear["greedy"] > linear["random"] > 0
    assert variance["greedy"] > variance["heuristic"] > variance["random"] > 0
    assert max(variance, key=variance.get) == "greedy"


def test_snapshots_are_weighted_by_the_league_too(tmp_path):
    pool = OpponentPool({"random": 1.0}, selfplay_prob=1.0, latest_prob=0.0, seed=0, sampling="win_rate",
                        pfsp="variance")
    pool.selfplay_active = True
    pool.add_snapshot(str(tmp_path / "a.npz"), 1)
    pool.add_snapshot(str(tmp_path / "b.npz"), 2)
    for i in range(400):
        pool.record_result(SNAPSHOT_PREFIX + str(tmp_path / "a.npz"), True)  # always beaten: x near 1
        pool.record_result(SNAPSHOT_PREFIX + str(tmp_path / "b.npz"), i % 2 == 0)  # even
    draws = [pool.draw() for _ in range(1000)]
    assert sum(d.endswith("b.npz") for d in draws) > 5 * sum(d.endswith("a.npz") for d in draws)


def test_the_pool_refuses_an_unknown_weighting():
    with pytest.raises(ValueError, match="pfsp must be one of linear, squared, variance"):
        OpponentPool({"random": 1.0}, pfsp="hard")


@pytest.mark.parametrize("override, words", [
    (["opponents.pfsp=hard"], ["'opponents.pfsp'", "'linear'", "'squared'", "'variance'", "'hard'"]),
    (["opponents.pfsp=squared", "opponents.sampling=fixed"], ["'opponents.pfsp'", "win_rate"]),
])
def test_the_config_key_is_checked(override, words):
    with pytest.raises(ConfigError) as e:
        load_config("smoke_batched", override)
    for w in words:
        assert w in str(e.value)


def test_a_run_state_pool_takes_the_weighting(tmp_path):
    from uno_env.training.algorithms import get_algorithm
    from uno_env.training.run_state import RunState

    cfg = load_config("smoke_batched", ["opponents.pfsp=squared", f"runs_dir={tmp_path}"])
    assert RunState(cfg, str(tmp_path / "r"), get_algorithm("batched_ppo")).pool.pfsp == "squared"
