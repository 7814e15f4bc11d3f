"""Recorded games (uno_env.record): exact replays, refusals naming the problem, the arena's --record and the
``uno-env replay`` command."""
from __future__ import annotations

import json

import numpy as np
import pytest

import uno_env
from uno_env.cli import main
from uno_env.record import GameRecord, RecordError, load_record, record_result, replay, save_record
from uno_env.training.evaluate import run_arena


def _play(game: str, n: int, seed: int, rules=None):
    """Play a random game in the AEC env; return its record and what was seen after the deal and every step."""
    env = uno_env.raw_env(game, num_players=n, rules=rules)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = [(env.observe(env.agent_selection), dict(env.rewards))]
    actions, totals = [], np.zeros(n)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        a = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        env.step(a)
        actions.append(a)
        totals += [env.rewards[x] for x in env.possible_agents]
        seen.append((env.observe(env.agent_selection), dict(env.rewards)))
    rec = GameRecord(game=game, num_players=n, rules=env.rules.to_dict(), seed=seed, actions=actions,
                     agents=["random"] * n, result=record_result(env, totals, len(actions)))
    return rec, seen


@pytest.mark.parametrize("game, n, rules", [
    ("classic", 2, None), ("classic", 4, {"seven_zero": True, "jump_in": True}), ("pocket", 3, None),
    ("dice", 2, None), ("dice", 3, {"episode": "match", "target_score": 60}),
])
def test_recorded_games_replay_exactly(tmp_path, game, n, rules):
    rec, seen = _play(game, n, seed=21, rules=rules)
    assert rec.result["winner"] is not None and len(rec.actions) > 5
    path = tmp_path / "g.json"
    save_record(path, rec)
    loaded = load_record(path)
    assert loaded == rec
    count = 0
    for step, (obs, rewards) in zip(replay(loaded), seen):  # replay yields one live env: compare as it goes
        count += 1
        env = step.env
        now = env.observe(env.agent_selection)
        np.testing.assert_array_equal(now["observation"], obs["observation"], err_msg=f"step {step.index}")
        np.testing.assert_array_equal(now["action_mask"], obs["action_mask"], err_msg=f"step {step.index}")
        assert dict(env.rewards) == rewards, f"step {step.index}"
    assert count == len(seen) == len(rec.actions) + 1


def test_record_json_is_the_shared_format(tmp_path):
    rec, _ = _play("classic", 2, seed=3)
    save_record(tmp_path / "r.json", rec)
    d = json.loads((tmp_path / "r.json").read_text())
    assert d["format"] == "uno-env-record" and d["version"] == 2
    assert set(d) == {"format", "version", "game", "num_players", "rules", "seed", "agents", "actions", "result"}
    assert d["rules"] == uno_env.RuleConfig.make("classic").to_dict()
    assert d["result"]["steps"] == len(d["actions"])
    # replaying by the written contract alone (no uno_env.record) gives the same end
    env = uno_env.env(d["game"], num_players=d["num_players"], rules=uno_env.RuleConfig.from_dict(d["rules"]))
    env.reset(seed=d["seed"])
    totals = [0.0, 0.0]
    for a in d["actions"]:
        env.step(a)
        totals = [t + env.rewards[x] for t, x in zip(totals, env.possible_agents)]
    assert totals == d["result"]["rewards"]


def _write(tmp_path, d) -> str:
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(d) if not isinstance(d, str) else d)
    return str(p)


def _good() -> dict:
    rec, _ = _play("pocket", 2, seed=5)
    return rec.to_dict()


@pytest.mark.parametrize("change, words", [
    (lambda d: d.update(format="something-else"), ["format", "something-else"]),
    (lambda d: d.update(version=3), ["version", "reads version 2", "3"]),
    (lambda d: d.pop("seed"), ["missing", "seed"]),
    (lambda d: d.update(extra=1), ["unknown field", "extra"]),
    (lambda d: d.update(game="chess"), ["game", "chess"]),
    (lambda d: d.update(seed=-4), ["seed", "-4"]),
    (lambda d: d.update(seed=True), ["seed"]),
    (lambda d: d.update(actions=[1, "x"]), ["actions", "item 1"]),
    (lambda d: d.update(num_players=3), ["num_players", "3"]),
    (lambda d: d["rules"].update(stacking="maybe"), ["rules", "stacking"]),
    (lambda d: d["result"].update(steps=1), ["result.steps"]),
    (lambda d: d["result"].update(winner=7), ["result.winner", "7"]),
    (lambda d: d.update(agents=["a"] * 40), ["agents"]),
])
def test_malformed_records_are_refused_naming_the_field(tmp_path, change, words):
    d = _good()
    change(d)
    with pytest.raises(RecordError) as info:
        load_record(_write(tmp_path, d))
    for w in words:
        assert w in str(info.value)


def test_not_json_deep_nesting_and_huge_files_are_refused(tmp_path):
    with pytest.raises(RecordError, match="not valid JSON"):
        load_record(_write(tmp_path, "{nope"))
    with pytest.raises(RecordError, match="not valid JSON"):
        load_record(_write(tmp_path, "[" * 200_000 + "]" * 200_000))
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(17 * 2**20)
    with pytest.raises(RecordError, match="bytes; at most"):
        load_record(big)
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "missing.json")


def test_replay_refuses_an_illegal_action_naming_the_step():
    rec = GameRecord.from_dict(_good())
    env = uno_env.raw_env("pocket")
    env.reset(seed=rec.seed)
    for a in rec.actions[:4]:
        env.step(a)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    rec.actions[4] = illegal
    rec.result = None
    with pytest.raises(RecordError, match=r"^step 4: action .* is not legal for player_\d; legal now"):
        list(replay(rec))
    rec.actions[4] = 10**6
    with pytest.raises(RecordError, match=r"step 4: action 1000000 \(out of range\)"):
        list(replay(rec))


def test_replay_refuses_actions_after_the_end_and_a_different_result():
    d = _good()
    n = len(d["actions"])
    rec = GameRecord.from_dict({**d, "actions": d["actions"] + [0], "result": None})
    with pytest.raises(RecordError, match=f"step {n}: the game is over after {n} actions"):
        list(replay(rec))
    wrong = dict(d["result"], winner=1 - d["result"]["winner"])
    with pytest.raises(RecordError, match=f"step {n}: the replay ends with winner"):
        list(replay(GameRecord.from_dict({**d, "result": wrong})))


@pytest.mark.parametrize("game", ["classic", "pocket", "dice"])
def test_arena_records_every_game_and_they_replay(tmp_path, game):
    res = run_arena(["heuristic", "random"], game=game, games=3, seed=2, record_dir=tmp_path / "games")
    files = sorted((tmp_path / "games").iterdir())
    assert [f.name for f in files] == ["game_000000.json", "game_000001.json", "game_000002.json"]
    wins = {"heuristic": 0, "random": 0}
    for f in files:
        rec = load_record(f)
        assert sorted(rec.agents) == ["heuristic", "random"]
        *_, last = replay(rec)  # replay() raises if the end differs from the recorded result
        assert last.index == len(rec.actions)
        assert all(last.env.terminations.values()) or all(last.env.truncations.values())
        if rec.result["winner"] >= 0:
            wins[rec.agents[rec.result["winner"]]] += 1
    assert wins == {s.name: s.wins for s in res.agents}


def test_evaluate_record_flag_and_replay_command(tmp_path, capsys):
    out = tmp_path / "rec"
    assert main(["evaluate", "heuristic", "greedy", "--games", "2", "--seed", "1", "-q", "--record", str(out)]) == 0
    path = str(out / "game_000001.json")
    capsys.readouterr()
    assert main(["replay", path, "--no-pause"]) == 0
    every = capsys.readouterr().out
    rec = load_record(path)
    assert every.count("== step ") == len(rec.actions)
    assert "player_0 hand:" in every and "player_1 hand:" in every and "result: " in every
    assert main(["replay", path, "--seat", "1", "--no-pause"]) == 0
    seat = capsys.readouterr().out
    assert "player_1 hand:" in seat and "player_0 hand:" not in seat
    assert f"seed {rec.seed}" in every and str(rec.seed) not in seat  # the seed re-deals every hidden card
    assert main(["replay", path, "--seat", "5"]) == 2
    assert "--seat must be a seat in 0..1" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "none.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_seat_view_hides_the_card_given_by_another_seat(tmp_path, capsys):
    env = uno_env.raw_env("pocket", num_players=2)
    for seed in range(300):  # find a deal where a Wild Dip Into Deck leads to a give
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        actions = []
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            mask = env.observe(env.agent_selection)["action_mask"]
            gives = [a for a in np.flatnonzero(mask) if env.action_names[a].startswith("give ")]
            a = int(gives[0]) if gives else int(rng.choice(np.flatnonzero(mask)))
            giver = env.agent_selection
            env.step(a)
            actions.append(a)
            if gives:
                break
        if gives:
            break
    assert gives, "no give in 300 deals"
    rec = GameRecord(game="pocket", num_players=2, rules=env.rules.to_dict(), seed=seed, actions=actions)
    save_record(tmp_path / "g.json", rec)
    other = 1 - int(giver.split("_")[1])
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "g.json"), "--seat", str(other), "--no-pause"]) == 0
    out = capsys.readouterr().out
    assert "give a card to the next player" in out and env.action_names[actions[-1]] not in out


def test_evaluate_record_into_an_unwritable_place_fails_before_playing(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["evaluate", "random", "random", "--games", "2", "-q", "--record", str(blocker / "sub")]) == 2
    assert "uno-env evaluate: error:" in capsys.readouterr().err


def test_version_1_records_load_for_card_games_but_not_for_dice(tmp_path):
    """Version 2 changed UNO Dice's actions (a play names the die), so a version-1 dice record would replay other
    moves; card games' action ids did not change."""
    d = _good()
    d["version"] = 1
    assert load_record(_write(tmp_path, d)).actions == d["actions"]
    rec, _ = _play("dice", 2, seed=2)
    d = rec.to_dict()
    d["version"] = 1
    with pytest.raises(RecordError, match="version-1 UNO Dice records play dice by face"):
        load_record(_write(tmp_path, d))
