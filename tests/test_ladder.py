"""The README's ladder is what benchmarks/ladder.py computes from the saved JSON (nothing typed in by hand)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAVED = sorted((ROOT / "benchmarks" / "results" / "ladder").glob("*_2p.json"))


def _ladder():
    spec = importlib.util.spec_from_file_location("ladder", ROOT / "benchmarks" / "ladder.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("path", SAVED, ids=lambda p: p.stem)
def test_readme_ladder_tables_come_from_the_saved_games(path):
    pytest.importorskip("openskill")
    table = _ladder().table(json.loads(path.read_text()))
    assert table in (ROOT / "README.md").read_text()


def test_ratings_follow_the_results():
    pytest.importorskip("openskill")
    data = {"game": "classic", "num_players": 2, "pairs": [
        {"a": "strong", "b": "weak", "games": 200, "wins_a": 150, "wins_b": 50, "truncated": 0},
        {"a": "strong", "b": "middle", "games": 200, "wins_a": 120, "wins_b": 80, "truncated": 0},
        {"a": "middle", "b": "weak", "games": 200, "wins_a": 120, "wins_b": 80, "truncated": 0},
    ]}
    r = _ladder().ratings(data)
    assert r["strong"][0] > r["middle"][0] > r["weak"][0]
    assert _ladder().ratings(data) == r  # the same JSON always gives the same ratings


def test_ratings_do_not_depend_on_which_side_of_a_pair_an_agent_is_listed():
    # the saved classic ladder's shape: "best" wins every pair, "random" takes 12 games of 1,000 from it
    pytest.importorskip("openskill")
    pairs = [("good", "fair", 532, 468), ("good", "random", 986, 14), ("fair", "random", 979, 21),
             ("random", "best", 12, 988), ("good", "best", 490, 510), ("fair", "best", 461, 539)]
    data = {"game": "classic", "num_players": 2, "pairs": [
        {"a": a, "b": b, "games": 1000, "wins_a": wa, "wins_b": wb, "truncated": 0} for a, b, wa, wb in pairs]}
    r = _ladder().ratings(data)
    assert max(r, key=lambda n: r[n][0] - 3 * r[n][1]) == "best"
    swapped = {"game": "classic", "num_players": 2, "pairs": [
        {"a": b, "b": a, "games": 1000, "wins_a": wb, "wins_b": wa, "truncated": 0} for a, b, wa, wb in pairs]}
    again = _ladder().ratings(swapped)
    for name, (mu, sigma) in r.items():
        assert again[name] == (pytest.approx(mu), pytest.approx(sigma))


def test_a_table_names_the_pairs_played_with_more_games():
    pytest.importorskip("openskill")
    data = {"game": "classic", "num_players": 2, "pairs": [
        {"a": "x", "b": "y", "games": 100, "wins_a": 60, "wins_b": 40, "truncated": 0},
        {"a": "x", "b": "z", "games": 100, "wins_a": 70, "wins_b": 30, "truncated": 0},
        {"a": "y", "b": "z", "games": 1000, "wins_a": 520, "wins_b": 480, "truncated": 0},
    ]}
    head = _ladder().table(data).splitlines()[0]
    assert "(100 games per pair, y vs z 1,000, seats rotated)" in head
    assert "52.0% [48.9, 55.1]" in _ladder().table(data)  # the 1,000-game pair's interval
