"""The docs' ladder (docs/arena.md) is what benchmarks/ladder.py computes from the saved JSON (none typed by hand)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
SAVED = sorted((ROOT / "benchmarks" / "results" / "ladder").glob("*_2p.json"))


def _ladder():
    return load_script("benchmarks/ladder.py")


@pytest.mark.parametrize("path", SAVED, ids=lambda p: p.stem)
def test_docs_ladder_tables_come_from_the_saved_games(path):
    pytest.importorskip("openskill")
    table = _ladder().table(json.loads(path.read_text()))
    assert table in (ROOT / "docs" / "arena.md").read_text()


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


def test_a_duplicate_pair_gets_its_interval_over_deals_and_the_heading_says_which_pairs_are_duplicate():
    pytest.importorskip("openskill")
    dup = {"duplicate": True, "deals": 500, "deal_sd_a": 0.25, "deal_sd_b": 0.25}
    data = {"game": "classic", "num_players": 2, "pairs": [
        {"a": "x", "b": "y", "games": 1000, "wins_a": 550, "wins_b": 450, "truncated": 0, **dup},
        {"a": "x", "b": "z", "games": 1000, "wins_a": 700, "wins_b": 300, "truncated": 0, **dup},
        {"a": "y", "b": "z", "games": 1000, "wins_a": 520, "wins_b": 480, "truncated": 0},
    ]}
    text = _ladder().table(data)
    assert text.splitlines()[0] == "**classic, 2 players** (1,000 games per pair, duplicate deals, seats rotated " \
                                   "for y vs z)"
    # 0.55 +- 1.96 * 0.25 / sqrt(500): narrower than Wilson's [51.9, 58.1] over the 1,000 games
    assert "55.0% [52.8, 57.2]" in text and "45.0% [42.8, 47.2]" in text
    assert "52.0% [48.9, 55.1]" in text  # the plain pair keeps Wilson's interval
    four = {"game": "classic", "num_players": 2, "pairs": [
        {"a": a, "b": b, "games": 200 if "z" in (a, b) else 1000, "wins_a": 110 if "z" in (a, b) else 550,
         "wins_b": 90 if "z" in (a, b) else 450, "truncated": 0, **dup}
        for a, b in [("x", "y"), ("x", "z"), ("x", "w"), ("y", "z"), ("y", "w"), ("z", "w")]]}
    head = _ladder().table(four).splitlines()[0]
    assert head == "**classic, 2 players** (1,000 games per pair, z's pairs 200, duplicate deals)"


def test_the_ladder_plays_duplicate_pairs_and_keeps_what_it_saved(tmp_path, monkeypatch):
    pytest.importorskip("openskill")
    ladder = _ladder()
    monkeypatch.setattr(ladder, "OUT", tmp_path)
    data = ladder.play("classic", ["random", "greedy"], games=20, seed=3, workers=1, replay=False, duplicate=True)
    (pair,) = data["pairs"]
    assert pair["duplicate"] and pair["deals"] == 10 and pair["wins_a"] + pair["wins_b"] + pair["truncated"] == 20
    assert pair["deal_sd_a"] >= 0 and pair["deal_sd_b"] >= 0
    saved = json.loads((tmp_path / "classic_2p.json").read_text())
    assert saved["pairs"] == data["pairs"]
    # a saved pair is kept whatever --games and the kind of arena ask for; --replay plays it again
    again = ladder.play("classic", ["random", "greedy"], games=40, seed=3, workers=1, replay=False)
    assert again["pairs"] == data["pairs"]
    plain = ladder.play("classic", ["random", "greedy"], games=40, seed=3, workers=1, replay=True, duplicate=False)
    (pair,) = plain["pairs"]
    assert "duplicate" not in pair and pair["games"] == 40
    assert json.loads((tmp_path / "classic_2p.json").read_text())["pairs"] == [pair]
