"""``uno-env benchmark`` and the leaderboard: an agent of one's own gets a row from one command, the command reproduces
the ladder's own rows, the stored tables are what the code computes, and bad input is one clear line.

Most tests play a small protocol (a few deals a pair, into a ladder of their own in a temporary folder); the stored
tables of the real protocol are checked against the code without replaying them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from scripts import load_script

pytest.importorskip("openskill")
pytest.importorskip("rich")

from uno_env.cli import main  # noqa: E402
from uno_env.training import benchmark as B  # noqa: E402
from uno_env.training import leaderboard as L  # noqa: E402
from uno_env.training import protocol as P  # noqa: E402
from uno_env.training.benchmark import benchmark, play_ladder  # noqa: E402
from uno_env.training.protocol import TABLES, Table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CLASSIC = Table("classic", 2)
#: a small protocol: a few deals a pair (the search's pairs 2), under a name of its own
SMALL = {"PROTOCOL": "uno-env benchmark (small, for tests)", "DEALS": 12, "SEARCH_DEALS": {t.id: 2 for t in TABLES},
         "QUICK_DEALS": 4, "QUICK_SEARCH_DEALS": 1}

#: the agent of the docs' "Evaluate your agent" page
EXAMPLE_AGENT = ROOT / "examples" / "benchmark_agent.py"
EXAMPLE_ROW = ROOT / "benchmarks" / "results" / "benchmark" / "play-first.classic_2p.json"


def _use_small_protocol(mp: pytest.MonkeyPatch, ladder_dir: Path) -> None:
    for key, value in SMALL.items():
        mp.setattr(P, key, value)
    mp.setattr(L, "LADDER_DIR", ladder_dir)


@pytest.fixture(scope="module")
def small_ladder(tmp_path_factory):
    """2-player classic's ladder under the small protocol, played as benchmarks/leaderboard.py plays the real one."""
    folder = tmp_path_factory.mktemp("ladder")
    with pytest.MonkeyPatch.context() as mp:
        _use_small_protocol(mp, folder)
        data = play_ladder(CLASSIC, workers=1)
        (folder / f"{CLASSIC.id}.json").write_text(json.dumps(data))
    return folder


@pytest.fixture
def small(small_ladder, monkeypatch):
    _use_small_protocol(monkeypatch, small_ladder)
    return small_ladder


def _run_command(args: list[str], cwd: Path, ladder: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """``uno-env ARGS`` in its own process, under the small protocol and its ladder."""
    code = ("import json, sys\nfrom pathlib import Path\n"
            "import uno_env.training.protocol as P, uno_env.training.leaderboard as L\n"
            f"for k, v in json.loads({json.dumps(SMALL)!r}).items(): setattr(P, k, v)\n"
            f"L.LADDER_DIR = Path({str(ladder)!r})\n"
            "from uno_env.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def _same_results(entry: dict) -> dict:
    """A row's entry without its times (the one thing that differs between two plays of the same games)."""
    return {k: v for k, v in entry.items() if k not in ("seconds", "cpu_seconds")}


# ------------------------------------------------------------------------------------------------ the command
def test_an_agent_in_a_file_outside_the_checkout_gets_a_row_from_one_command(small_ladder, tmp_path):
    (tmp_path / "my_agent.py").write_text(EXAMPLE_AGENT.read_text())
    r = _run_command(["benchmark", "my_agent.py:make_agent", "--game", "classic", "-w", "1"], tmp_path, small_ladder)
    assert r.returncode == 0, r.stderr
    row = json.loads((tmp_path / "play-first.classic_2p.json").read_text())
    assert row["format"] == L.ROW_FORMAT and row["protocol"] == SMALL["PROTOCOL"] and not row["quick"]
    assert row["agent"] == "play-first" and row["spec"] == "my_agent.py:make_agent"
    assert row["table"] == CLASSIC.to_dict() and row["uses_at_play_time"] == []
    ladder = json.loads((small_ladder / "classic_2p.json").read_text())
    assert [e["opponent"] for e in row["opponents"]] == [a["name"] for a in ladder["agents"]]
    for e in row["opponents"]:
        assert e["deals"] == (2 if e["opponent"] == "ismcts" else 12) and e["games"] == 2 * e["deals"]
        assert 0 <= e["ci95_low"] <= e["win_rate"] <= e["ci95_high"] <= 1
    assert np.isfinite(row["rating"]["mu"]) and row["rating"]["sigma"] > 0
    assert {"machine", "versions", "wall_seconds"} <= set(row) and row["versions"]["uno-env"]
    assert "rating on the ladder's scale" in r.stdout and "play-first.classic_2p.json" in r.stdout
    # the row beside the ladder: placed by its rating, marked as not a ladder agent
    shown = _run_command(["leaderboard", "play-first.classic_2p.json", "--markdown"], tmp_path, small_ladder)
    assert shown.returncode == 0, shown.stderr
    assert "| **play-first** | - |" in shown.stdout and "| `heuristic` |" in shown.stdout


@pytest.mark.parametrize("name", ["heuristic", "ismcts"])
def test_the_command_reproduces_the_ladders_own_rows(small, name):
    """A ladder agent benchmarked as a candidate plays the very games of its stored pairs (the heuristic's pairs
    were stored with it as the candidate or as the opponent, the search's all as the opponent)."""
    row = benchmark(name, CLASSIC, workers=1)
    stored = L.ladder_row(L.load_table(CLASSIC), name)
    assert [_same_results(e) for e in row["opponents"]] == [_same_results(e) for e in stored]
    assert row["agent"] == name and name not in [e["opponent"] for e in row["opponents"]]


@pytest.mark.parametrize("table", [Table("classic", 2), Table("pocket", 4)], ids=lambda t: t.id)
def test_a_pairs_games_do_not_depend_on_which_agent_is_the_candidate(table):
    game = P.protocol_game(table)
    a, b = (P.load_protocol_agent(n, game) for n in ("greedy", "distilled+heuristic"))
    ab, ba = P.play_pair(a, b, table, deals=16), P.play_pair(b, a, table, deals=16)
    assert ab.first == ba.second and ab.second == ba.first and ab.mean_length == ba.mean_length


def test_a_ladder_played_on_top_of_a_stored_one_plays_only_the_missing_pairs(small, monkeypatch):
    """``play_ladder(stored=...)`` (``leaderboard.py --keep-pairs``): the pairs a stored table lacks are played, the
    rest kept, and the file is what a full replay gives; a table of another protocol is refused."""
    full = L.load_table(CLASSIC)
    dropped = {("greedy", "heuristic"), ("scratch", "ismcts")}
    stored = {**full, "pairs": [p for p in full["pairs"] if (p["a"], p["b"]) not in dropped]}
    played: list[tuple[str, tuple[str, ...]]] = []
    real = B.play_candidate

    def counting(candidate, opponents, *args, **kwargs):
        played.append((candidate.name, tuple(opponents)))
        return real(candidate, opponents, *args, **kwargs)

    monkeypatch.setattr(B, "play_candidate", counting)
    again = play_ladder(CLASSIC, workers=1, stored=stored)
    assert sorted((a, b) for a, opps in played for b in opps) == sorted(dropped)
    assert [_same_results(p) for p in again["pairs"]] == [_same_results(p) for p in full["pairs"]]
    assert again["ratings"] == full["ratings"]
    with pytest.raises(ValueError, match="another protocol"):
        play_ladder(CLASSIC, workers=1, stored={**full, "seed": full["seed"] + 1})


def test_quick_is_a_labelled_look_never_a_row(small, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["benchmark", "greedy", "--game", "classic", "--quick", "-w", "1"]) == 0
    out = capsys.readouterr().out
    assert "QUICK LOOK, not a leaderboard row" in out
    assert list(tmp_path.iterdir()) == []
    quick = benchmark("greedy", CLASSIC, quick=True)
    assert {e["opponent"]: e["deals"] for e in quick["opponents"]} == {
        "random": 4, "heuristic": 4, "scratch": 4, "distilled+heuristic": 4, "ismcts": 1}
    with pytest.raises(L.ProtocolError, match="--quick look"):
        L.check_row(quick, CLASSIC, "the quick row")


def test_the_protocol_gives_each_pair_its_deals():
    game = P.protocol_game(CLASSIC)
    agent = {n: P.load_protocol_agent(n, game) for n in P.ladder_agents(CLASSIC)}
    assert P.pair_deals(CLASSIC, agent["greedy"], agent["heuristic"]) == P.DEALS == 5_000
    assert P.pair_deals(CLASSIC, agent["heuristic"], agent["random"]) == P.DEALS
    assert P.pair_deals(CLASSIC, agent["random"], agent["ismcts"]) == P.SEARCH_DEALS["classic_2p"]
    assert P.pair_deals(CLASSIC, agent["ismcts"], agent["greedy"], quick=True) == P.QUICK_SEARCH_DEALS
    assert P.ladder_agents(CLASSIC) == ["random", "greedy", "heuristic", "scratch", "distilled+heuristic", "ismcts"]
    # the from-scratch policies ship at 2 players only
    assert "scratch" not in P.ladder_agents(Table("classic", 4))
    # the shipped policy was trained under the standard rules: it is not on the rlcard preset's ladder
    assert P.ladder_agents(Table("classic", 2, "rlcard")) == ["random", "greedy", "heuristic", "rlcard-rule", "ismcts"]
    assert P.play_time_aids(agent["distilled+heuristic"]) == ["heuristic"]
    assert P.play_time_aids(agent["scratch"]) == []
    assert P.play_time_aids(agent["ismcts"]) == ["search", "heuristic"]
    assert P.play_time_aids(agent["greedy"]) == [] and P.play_time_aids(object()) is None


def test_an_agent_file_outside_the_checkout_gets_a_quick_look_within_a_minute(tmp_path):
    """The real protocol and the stored ladder, from a folder outside the checkout: the whole command, imports and
    the search's pairs included, within the minute the help promises for a fast agent."""
    (tmp_path / "my_agent.py").write_text(EXAMPLE_AGENT.read_text())
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "uno_env.cli", "benchmark", "my_agent.py:make_agent", "--game", "classic",
                        "--quick", "-w", "2"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr
    assert "QUICK LOOK, not a leaderboard row: play-first on classic, 2 players" in r.stdout
    assert "rating on the ladder's scale" in r.stdout and list(tmp_path.iterdir()) == [tmp_path / "my_agent.py"]
    assert seconds < 60, f"--quick took {seconds:.0f} s"


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.id)
def test_quick_plays_a_minute_at_most_at_the_stored_ladders_speed(table):
    """What --quick plays, timed at the speed each stored pair was played: within a minute for a candidate as fast
    as any ladder agent that does not search."""
    data = L.load_table(table)
    game = P.protocol_game(table)
    agents = {a["name"]: P.load_protocol_agent(a["name"], game) for a in data["agents"]}
    for name, agent in agents.items():
        if P.plays_from_state(agent):
            continue
        seconds = sum(p["seconds"] / p["deals"] * P.pair_deals(table, agent, agents[p["b" if p["a"] == name else "a"]],
                                                                quick=True)
                      for p in data["pairs"] if name in (p["a"], p["b"]))
        assert seconds < 60, f"{name}'s quick look on {table.id}: {seconds:.0f} s"


# ------------------------------------------------------------------------------------------------ bad input
BAD_SPECS = [
    ("missing.py:make", ["agent 'missing.py:make'", "missing.py"]),
    ("agent.py:nothing", ["has no attribute 'nothing'", "it defines Crashes, Illegal, crashes, illegal, make,"]),
    ("agent.py:NOT_CALLABLE", ["'NOT_CALLABLE'", "is a int, not a callable"]),
    ("agent.py:returns_nothing", ["returns_nothing(game) returned None", "no act(observation, action_mask)"]),
    ("agent.py:raises", ["raises(game, seed=", "raised RuntimeError at agent.py:", "no model file"]),
    ("agent.py:takes_nothing", ["cannot be called as takes_nothing(game)", "def takes_nothing(game, seed=None)"]),
    ("broken.py:make", ["running 'broken.py' raised ZeroDivisionError at broken.py:1"]),
    ("syntax.py:make", ["SyntaxError at syntax.py:1"]),
    ("no_such_package.agents:make", ["no module named 'no_such_package'"]),
    ("a_folder.py:make", ["is a directory; expected a regular file"]),
    ("a_pipe.py:make", ["agent file 'a_pipe.py' is a named pipe (FIFO); expected a regular file"]),
    ("nobody", ["unknown agent 'nobody'", "distilled+heuristic"]),
    ("ismcts:sims=-3", ["agent 'ismcts:sims=-3'", "sims"]),
    ("missing.npz", ["agent 'missing.npz': no such file"]),
    ("agent.py", ["name the factory in the file", "agent.py:make_agent"]),
]

AGENTS_PY = '''\
NOT_CALLABLE = 3


def make(game, seed=None):
    return None


def returns_nothing(game):
    return None


def raises(game, seed=None):
    raise RuntimeError("no model file")


def takes_nothing():
    return None


class Crashes:
    name = "crashes"

    def act(self, observation, action_mask):
        raise KeyError("oops")


def crashes(game, seed=None):
    return Crashes()


class Illegal:
    name = "illegal"

    def act(self, observation, action_mask):
        return len(action_mask) + 5


def illegal(game, seed=None):
    return Illegal()
'''


def _bad_input_folder(tmp_path: Path) -> Path:
    (tmp_path / "agent.py").write_text(AGENTS_PY)
    (tmp_path / "broken.py").write_text("1 / 0\n")
    (tmp_path / "syntax.py").write_text("def (:\n")
    (tmp_path / "a_folder.py").mkdir()
    os.mkfifo(tmp_path / "a_pipe.py")  # nothing writes into it: reading it would wait for good
    return tmp_path


def _one_line_error(capsys, code: int) -> str:
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err and err.startswith("uno-env benchmark: error: ")
    return err


@pytest.mark.parametrize("spec,words", BAD_SPECS, ids=[s for s, _ in BAD_SPECS])
def test_bad_agent_specs_are_one_clear_line(small, tmp_path, monkeypatch, capsys, spec, words):
    monkeypatch.chdir(_bad_input_folder(tmp_path))
    err = _one_line_error(capsys, main(["benchmark", spec, "--game", "classic", "-w", "1", "-q"]))
    for w in words:
        assert w in err, err


@pytest.mark.parametrize("spec,words", [
    ("agent.py:crashes", ["'agent.py:crashes' failed while playing: KeyError", "oops"]),
    ("agent.py:illegal", ["illegal action"]),
])
def test_an_agent_that_fails_while_playing_is_one_clear_line(small, tmp_path, monkeypatch, capsys, spec, words):
    monkeypatch.chdir(_bad_input_folder(tmp_path))
    err = _one_line_error(capsys, main(["benchmark", spec, "--game", "classic", "-w", "1", "-q"]))
    for w in words:
        assert w in err, err
    assert not list(tmp_path.glob("*.json"))


@pytest.mark.parametrize("args,words", [
    (["-n", "3"], ["no table for classic, 3 players", "--game dice -n 4"]),
    (["--rules", "official"], ["no table for classic, 2 players, official rules"]),
    (["--game", "pocket", "--rules", "rlcard"], ["no table for pocket, 2 players, rlcard rules"]),
    (["--quick", "--out", "row.json"], ["--quick results are a first look"]),
    (["--out", "."], ["--out '.' is a directory"]),
    (["--out", "no/such/folder/row.json"], ["does not exist"]),
    (["--name", "a|b"], ["--name 'a|b'"]),
    (["--workers", "0"], ["--workers must be from 1"]),
])
def test_bad_options_are_one_clear_line(small, tmp_path, monkeypatch, capsys, args, words):
    monkeypatch.chdir(tmp_path)
    err = _one_line_error(capsys, main(["benchmark", "greedy", *args, "-q"]))
    for w in words:
        assert w in err, err


def test_a_name_that_passes_for_a_ladder_agent_is_refused(small, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    err = _one_line_error(capsys, main(["benchmark", "random", "--name", "heuristic", "-q"]))
    assert "as the ladder agent it is not" in err


def test_rows_of_another_table_or_protocol_are_refused(small, tmp_path, capsys):
    row = tmp_path / "row.json"
    row.write_text(json.dumps({"format": L.ROW_FORMAT, "protocol": "uno-env benchmark v0", "table": CLASSIC.to_dict()}))
    assert main(["leaderboard", str(row)]) == 2
    assert "played under 'uno-env benchmark v0'" in capsys.readouterr().err
    row.write_text(json.dumps({"format": L.ROW_FORMAT, "protocol": SMALL["PROTOCOL"], "table": {"id": "dice_4p"}}))
    assert main(["leaderboard", str(row)]) == 2
    assert "a row of 'dice_4p', not of 'classic_2p'" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ ratings
def _flat(ratings: dict) -> dict:
    return {(name, i): x for name, pair in ratings.items() for i, x in enumerate(pair)}


def test_ratings_follow_the_results_and_hold_the_ladder_fixed():
    pairs = [{"a": "strong", "b": "weak", "a_side": {"wins": 150}, "b_side": {"wins": 50}},
             {"a": "strong", "b": "middle", "a_side": {"wins": 120}, "b_side": {"wins": 80}},
             {"a": "middle", "b": "weak", "a_side": {"wins": 120}, "b_side": {"wins": 80}}]
    ladder = L.ladder_ratings(pairs)
    assert ladder["strong"][0] > ladder["middle"][0] > ladder["weak"][0]
    assert L.ladder_ratings(pairs) == ladder  # the same results always give the same ratings
    swapped = [{"a": p["b"], "b": p["a"], "a_side": p["b_side"], "b_side": p["a_side"]} for p in pairs]
    assert _flat(L.ladder_ratings(swapped)) == pytest.approx(_flat(ladder))  # nor the order of a pair's sides
    fixed = dict(ladder)
    better = L.candidate_rating([("strong", 110, 90), ("middle", 140, 60), ("weak", 170, 30)], fixed)
    worse = L.candidate_rating([("strong", 60, 140), ("middle", 80, 120), ("weak", 100, 100)], fixed)
    assert better[0] > ladder["strong"][0] and ladder["middle"][0] > worse[0] > ladder["weak"][0] - 1
    assert fixed == ladder
    assert L.rating_order(2, 6) == [1, 1, 0, 1, 1, 1, 0, 1]  # the rare result in the middle of equal stretches
    assert L.rating_order(6, 2) == [0, 0, 1, 0, 0, 0, 1, 0]


# ------------------------------------------------------------------------------------------------ stored tables
@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.id)
def test_the_stored_tables_are_the_protocols_ladder_as_the_code_computes_it(table):
    """Every table of the leaderboard is stored, holds every pair of the table's ladder once, with the protocol's
    deals, and ratings that are what the code computes from its pairs (nothing typed in by hand)."""
    data = L.load_table(table)
    assert data["protocol"] == P.PROTOCOL and data["table"] == table.to_dict() and data["seed"] == P.SEED
    names = [a["name"] for a in data["agents"]]
    assert names == P.ladder_agents(table)
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    assert data["deals"] == P.deals_plan(table)
    game = P.protocol_game(table)
    agents = {n: P.load_protocol_agent(n, game) for n in names}
    for p in data["pairs"]:
        assert p["deals"] == P.pair_deals(table, agents[p["a"]], agents[p["b"]]) and p["games"] == 2 * p["deals"]
        assert p["a_side"]["wins"] + p["b_side"]["wins"] + p["truncated"] == p["games"]
    assert {a["name"]: a["uses_at_play_time"] for a in data["agents"]} == {
        n: P.play_time_aids(agents[n]) for n in names}
    ratings = L.ladder_ratings(data["pairs"])
    assert {n: (r["mu"], r["sigma"]) for n, r in data["ratings"].items()} == ratings


def test_the_cheapest_stored_pair_replays_to_the_same_results():
    """The stored results are the games the protocol plays: one pair replayed in full."""
    data = L.load_table(CLASSIC)
    pair = next(p for p in data["pairs"] if (p["a"], p["b"]) == ("greedy", "heuristic"))
    game = P.protocol_game(CLASSIC)
    again = P.play_pair(*(P.load_protocol_agent(n, game) for n in ("greedy", "heuristic")), CLASSIC, pair["deals"])
    assert again.first.to_dict() == pair["a_side"] and again.second.to_dict() == pair["b_side"]


def test_the_docs_example_row_is_the_commands_row_of_the_example_agent():
    """The row the docs show was written by the command for examples/benchmark_agent.py under this protocol, and its
    rating is what the code computes from its results against the stored ladder."""
    row = L.check_row(json.loads(EXAMPLE_ROW.read_text()), CLASSIC, "the example row")
    assert row["spec"] == "examples/benchmark_agent.py:make_agent" and row["agent"] == "play-first"
    ladder = L.load_table(CLASSIC)
    assert [e["opponent"] for e in row["opponents"]] == [a["name"] for a in ladder["agents"]]
    fixed = {n: (r["mu"], r["sigma"]) for n, r in ladder["ratings"].items()}
    results = [(e["opponent"], e["wins"], e["games"] - e["wins"] - e["truncated"]) for e in row["opponents"]]
    assert L.candidate_rating(results, fixed) == (row["rating"]["mu"], row["rating"]["sigma"])


def test_the_readme_headline_is_the_stored_tables():
    script = load_script("benchmarks/leaderboard.py")
    text = (ROOT / "README.md").read_text()
    block = text[text.index(script.START) + len(script.START): text.index(script.END)]
    assert block == "\n" + script.readme_block()


def test_the_docs_page_has_every_table():
    hooks = load_script("docs/hooks.py")
    page = hooks.expand("<!-- gen:leaderboard -->")
    for table in TABLES:
        assert f"**{table.title}**" in page
    assert "<!-- gen:leaderboard -->" in (ROOT / "docs" / "leaderboard.md").read_text()


# ------------------------------------------------------------------------------------------------ names
def test_the_old_name_ppo_warns_and_plays_the_distilled_policy():
    from uno_env.agents.registry import available_agents, load_agent
    from uno_env.agents.shipped import AgentRenamedWarning

    with pytest.warns(AgentRenamedWarning, match="'ppo' is now named 'distilled\\+heuristic'"):
        old = load_agent("ppo", "classic", seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = load_agent("distilled+heuristic", "classic", seed=0)
    assert old.name == new.name == "distilled+heuristic" and old.meta == new.meta
    assert "ppo" not in available_agents() and "distilled+heuristic" in available_agents()


def test_a_new_family_of_shipped_policies_is_one_entry():
    """One entry in SHIPPED_FAMILIES registers the agent's name and puts it on the ladder of every table it has a
    file for, its play-time aids read from its files; a family without files joins no ladder."""
    code = (
        "import importlib, json\n"
        "from uno_env.agents import shipped as S, registry as R\n"
        "S.SHIPPED_FAMILIES['copy'] = S.ShippedFamily(name='copy', folder='', summary='the same files',\n"
        "    requires={'algorithm': 'uno_env.distill'})\n"
        "S.SHIPPED_FAMILIES['nowhere'] = S.ShippedFamily(name='nowhere', folder='no_such_folder', requires={},\n"
        "    summary='no files')\n"
        "importlib.reload(R)  # the registry as it is built at import, with the two entries\n"
        "from uno_env.training import protocol as P\n"
        "table = P.Table('classic', 4)\n"
        "agent = P.load_protocol_agent('copy', P.protocol_game(table))\n"
        "try:\n"
        "    P.load_protocol_agent('nowhere', P.protocol_game(table)); err = None\n"
        "except R.UnknownAgentError as e:\n"
        "    err = str(e)\n"
        "print(json.dumps({'ladder': P.ladder_agents(table), 'uses': P.play_time_aids(agent), 'name': agent.name,\n"
        "                  'available': R.available_agents(), 'error': err}))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["ladder"] == ["random", "greedy", "heuristic", "distilled+heuristic", "copy", "ismcts"]
    assert out["uses"] == ["heuristic"] and out["name"] == "copy"
    assert {"copy", "nowhere"} <= set(out["available"])
    assert "agent 'nowhere': no shipped policy for 'classic' with 4 players (shipped: none)" in out["error"]
