"""benchmarks/arena_pooled.py: seeded arena runs of one lineup pooled into one row, plain runs by a Wilson interval
over games, duplicate-arena runs over their deals."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scripts import load_script

from uno_env.cli import main
from uno_env.training.evaluate import duplicate_interval, wilson_interval


@pytest.fixture(scope="module")
def pooled():
    return load_script("benchmarks/arena_pooled.py")


def _run(tmp_path, seed, *extra):
    out = tmp_path / f"run_{seed}{'_'.join(extra)}.json"
    argv = ["evaluate", "heuristic", "greedy", "--games", "40", "--seed", str(seed), "-q", *extra, "--json", str(out)]
    assert main(argv) == 0
    return out


def _row(scores):
    return {"win_rate": float(np.mean(scores)), "deals": len(scores), "deal_score_sd": float(np.std(scores, ddof=1)),
            "interval": "over deals"}


def test_duplicate_runs_pool_to_the_interval_of_all_their_deals(pooled):
    rng = np.random.default_rng(5)
    parts = [rng.choice([0.0, 0.5, 1.0], size=n, p=[0.3, 0.35, 0.35]) for n in (50, 120, 7)]
    together = np.concatenate(parts)
    expected = duplicate_interval(float(together.mean()), float(together.std(ddof=1)), len(together))
    assert pooled._pooled_over_deals([_row(p) for p in parts]) == pytest.approx(expected, abs=1e-12)


def test_a_real_duplicate_run_pools_to_its_own_interval_and_plain_runs_by_wilson(pooled, tmp_path):
    one = _run(tmp_path, 3, "--duplicate")
    own = json.loads(one.read_text())["agents"][0]
    row = pooled.pool([one])
    assert row["interval"] == "over deals"
    assert (row["ci95_low"], row["ci95_high"]) == pytest.approx((own["ci95_low"], own["ci95_high"]), abs=1e-12)

    plain = [_run(tmp_path, 1), _run(tmp_path, 2)]
    row = pooled.pool(plain)
    wins = sum(json.loads(p.read_text())["agents"][0]["wins"] for p in plain)
    assert row["interval"] == "wilson" and row["games"] == 80
    assert (row["ci95_low"], row["ci95_high"]) == pytest.approx(wilson_interval(wins, 80))

    with pytest.raises(ValueError, match="plain and duplicate-arena runs mixed"):
        pooled.pool([plain[0], one])
