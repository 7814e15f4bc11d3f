"""Bad input: illegal and malformed actions, wrong call order, bad rules. Every error names what is wrong."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml

import uno_env
from uno_env import ActionOutOfRangeError, IllegalActionError, OrderError
from uno_env.config import RuleConfig

from conftest import aid, make_env, random_play, scenario, sd


def _snapshot(env):
    u = env.unwrapped
    return (copy.deepcopy(sd(env)), u.game_state.row.copy(), u.prng_state.copy(), env.agent_selection,
            dict(env.rewards),
            env.cumulative_rewards, dict(env.terminations), dict(env.truncations),
            {a: u.observe(a)["action_mask"].copy() for a in env.agents})


def _same_snapshot(a, b):
    return (a[0] == b[0] and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2]) and a[3:8] == b[3:8]
            and all(np.array_equal(a[8][k], b[8][k]) for k in a[8]))


def _illegal_action(env):
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])


# ---------------------------------------------------------------------------------------------- illegal actions
@pytest.mark.parametrize("game", uno_env.GAMES)
def test_raw_env_illegal_action_raises_and_keeps_state(game, rng):
    env = make_env(game, num_players=3, seed=1)
    for step in random_play(env, rng, 60):
        if not env.agents or all(env.terminations.values()):
            break
        if step % 7:
            continue
        before = _snapshot(env)
        bad = _illegal_action(env)
        with pytest.raises(IllegalActionError) as exc:
            env.step(bad)
        msg = str(exc.value)
        assert "illegal action" in msg and env.unwrapped.action_names[bad] in msg and "legal now" in msg
        assert env.agent_selection in msg and sd(env)["phase"] in msg
        assert isinstance(exc.value, ValueError)
        assert _same_snapshot(before, _snapshot(env))


def test_illegal_action_in_colour_phase():
    env = scenario("classic", hands=[["wild", "blue 1", "blue 2"], ["green 1"]], top="red 5")
    env.step(aid(env, "play wild"))
    before = _snapshot(env)
    for name in ("draw", "play blue 1", "accept", "keep drawn card"):
        with pytest.raises(IllegalActionError, match="choose colour"):
            env.step(aid(env, name))
    assert _same_snapshot(before, _snapshot(env))


@pytest.mark.parametrize("game,n", [("classic", 2), ("classic", 4), ("pocket", 3), ("dice", 2)])
def test_env_illegal_action_terminates_offender_minus_one(game, n, caplog):
    env = make_env(game, num_players=n, seed=2, raw=False)
    offender = env.agent_selection
    env.step(_illegal_action(env))
    assert "Illegal move" in caplog.text
    assert all(env.terminations.values()) and all(env.truncations.values())
    assert env.rewards[offender] == -1.0
    assert all(r == 0 for a, r in env.rewards.items() if a != offender)
    seen = {}
    while env.agents:
        agent = env.agent_selection
        obs, rew, term, trunc, info = env.last()
        seen[agent] = rew
        assert term and trunc and not obs["action_mask"].any()
        env.step(None)
    assert seen[offender] == -1.0 and set(seen) == set(env.possible_agents)
    assert all(r == 0 for a, r in seen.items() if a != offender)
    with pytest.raises(OrderError, match="over"):
        env.step(0)
    env.reset(seed=3)  # a new game works after that
    assert env.agents and not any(env.terminations.values())
    assert env.observe(env.agent_selection)["action_mask"].any()


# ---------------------------------------------------------------------------------------------- malformed actions
@pytest.mark.parametrize("raw", [True, False])
@pytest.mark.parametrize("action", [-1, 10**9, "A"])
def test_out_of_range_action(raw, action):
    env = make_env("classic", seed=0, raw=raw)
    n = env.action_space("player_0").n
    a = n if action == "A" else action
    before = _snapshot(env)
    with pytest.raises(ActionOutOfRangeError, match="out of range") as exc:
        env.step(a)
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, AssertionError)
    assert str(n) in str(exc.value)
    assert _same_snapshot(before, _snapshot(env))


@pytest.mark.parametrize("raw", [True, False])
@pytest.mark.parametrize("action", [1.0, 2.5, "3", None, True, False, np.float32(1), [1], np.array([1])])
def test_non_integer_action(raw, action):
    env = make_env("pocket", seed=0, raw=raw)
    before = _snapshot(env)
    with pytest.raises(ActionOutOfRangeError, match="integer") as exc:
        env.step(action)
    assert type(action).__name__ in str(exc.value)
    assert _same_snapshot(before, _snapshot(env))


def test_numpy_integer_actions_accepted():
    env = make_env("classic", seed=0)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(np.int64(legal[0]))
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(np.array(legal[0], dtype=np.int32))  # a 0-d integer array, as policies return
    assert sd(env)["turns"] == 2


# ---------------------------------------------------------------------------------------------- call order
@pytest.mark.parametrize("method", ["step", "observe", "last", "state_dict", "load_state_dict", "render"])
def test_calls_before_reset(method):
    env = uno_env.raw_env("classic", render_mode="ansi")
    calls = {"step": lambda: env.step(0), "observe": lambda: env.observe("player_0"), "last": env.last,
             "state_dict": env.state_dict, "load_state_dict": lambda: env.load_state_dict({}),
             "render": env.render}
    with pytest.raises(OrderError, match="reset"):
        calls[method]()


def test_step_after_the_end():
    env = scenario("classic", hands=[["red 2"], ["blue 9", "wild"]], top="red 5")
    env.step(aid(env, "play red 2"))
    assert all(env.terminations.values())
    with pytest.raises(OrderError, match="None"):
        env.step(0)  # a live action for a finished agent
    env.step(None)
    env.step(None)
    assert env.agents == []
    with pytest.raises(OrderError, match="over"):
        env.step(None)
    with pytest.raises(OrderError, match="over"):
        env.step(0)


def test_core_refuses_steps_after_the_end():
    from uno_env.core import engine as E

    env = scenario("classic", hands=[["red 2"], ["blue 9", "wild"]], top="red 5")
    env.step(aid(env, "play red 2"))
    u = env.unwrapped
    g = u.game
    st = u.game_state.row.copy()
    rew = np.zeros(E.MAX_PLAYERS, np.float32)
    scratch = np.zeros(g.num_actions, np.int8)
    assert E.step_one(st, u.prng_state.copy(), g.cfg, g.spec, g.dice, 0, scratch, rew) == E.ERR_OVER
    assert np.array_equal(st, u.game_state.row)


def test_bad_seed():
    env = uno_env.raw_env("classic")
    for seed in ("1", 1.5, True):
        with pytest.raises(TypeError, match="seed"):
            env.reset(seed=seed)


# ---------------------------------------------------------------------------------------------- bad rules
def test_unknown_game():
    with pytest.raises(ValueError, match="unknown game 'poker'"):
        uno_env.raw_env("poker")
    with pytest.raises(ValueError, match="unknown game"):
        uno_env.action_names("poker")


def test_unknown_option():
    with pytest.raises(ValueError, match=r"unknown rule option 'stackin'.*did you mean 'stacking'"):
        uno_env.env("classic", rules={"stackin": True})
    with pytest.raises(ValueError, match="does not apply to game 'classic'"):
        uno_env.env("classic", rules={"extra_wild": True})
    with pytest.raises(ValueError, match="does not apply to game 'dice'"):
        uno_env.env("dice", rules={"stacking": True})


@pytest.mark.parametrize("option,value,words", [
    ("seven_zero", "yes", "must be a bool"),
    ("stacking", "yes", "must be one of 'off', 'same', 'any'"),
    ("reward", "score", "must be one of 'win_loss', 'points'"),
    ("episode", "Round", "must be one of 'round', 'match'"),
    ("uno_catch_probability", 1.5, "range 0.0..1.0"),
    ("target_score", 0, "range 1..100000"),
    ("max_turns", 2.0, "must be an int"),
    ("first_wild", "choose", "must be one of 'redeal', 'reshuffle', 'choose_colour', 'random_colour'"),
])
def test_bad_option_value(option, value, words):
    with pytest.raises(ValueError, match=f"'{option}'") as exc:
        uno_env.env("classic", rules={option: value})
    assert words in str(exc.value)


def test_unknown_preset():
    with pytest.raises(ValueError, match=r"unknown preset 'rlcardd'.*did you mean 'rlcard'"):
        uno_env.env("classic", rules="rlcardd")
    with pytest.raises(ValueError, match="unknown preset 'rlcard' for game 'pocket'"):
        uno_env.env("pocket", rules="rlcard")


def test_bad_rules_type():
    with pytest.raises(TypeError, match="rules must be"):
        uno_env.env("classic", rules=3.5)


def test_malformed_yaml(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("game: classic\nstacking: [true\n", encoding="utf-8")
    with pytest.raises(ValueError, match="malformed YAML") as exc:
        uno_env.env("classic", rules=str(p))
    assert "bad.yaml" in str(exc.value) and "line" in str(exc.value)
    p.write_text("- game\n- classic\n", encoding="utf-8")
    with pytest.raises(ValueError, match="mapping"):
        uno_env.env("classic", rules=str(p))
    p.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match="empty"):
        uno_env.env("classic", rules=str(p))
    with pytest.raises(ValueError, match="cannot read"):
        uno_env.env("classic", rules=str(tmp_path / "missing.yaml"))


def test_yaml_bad_option(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text(yaml.safe_dump({"game": "classic", "stacking": "maybe"}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"r\.yaml.*'stacking' must be one of 'off', 'same', 'any'"):
        uno_env.env("classic", rules=str(p))


def test_rules_file_for_another_game(tmp_path):
    p = tmp_path / "pocket.yaml"
    p.write_text(yaml.safe_dump({"game": "pocket", "extra_wild": True}), encoding="utf-8")
    with pytest.raises(ValueError, match="is for game 'pocket', but the environment is 'classic'"):
        uno_env.env("classic", rules=str(p))
    with pytest.raises(ValueError, match="for game 'dice', but the environment is 'classic'"):
        uno_env.env("classic", rules={"game": "dice"})
    with pytest.raises(ValueError, match="for game 'pocket', but the environment is 'dice'"):
        uno_env.env("dice", rules=RuleConfig.make("pocket"))


@pytest.mark.parametrize("game,n,allowed", [("pocket", 6, "2..5"), ("pocket", 1, "2..5"), ("dice", 5, "2..4"),
                                            ("dice", 1, "2..4"), ("classic", 11, "2..10"), ("classic", 1, "2..10")])
def test_wrong_player_count(game, n, allowed):
    with pytest.raises(ValueError, match="num_players") as exc:
        uno_env.env(game, num_players=n)
    assert allowed in str(exc.value) and f"'{game}'" in str(exc.value)


def test_bad_render_mode_and_illegal_action_option():
    with pytest.raises(ValueError, match="render_mode"):
        uno_env.raw_env("classic", render_mode="rgb")
    with pytest.raises(ValueError, match="illegal_action"):
        uno_env.raw_env("classic", illegal_action="ignore")


# ---------------------------------------------------------------------------------------------- bad states
def test_load_state_dict_rejects_and_keeps_state():
    env = make_env("classic", seed=0)
    before = _snapshot(env)
    s = sd(env)
    with pytest.raises(ValueError, match="unknown state keys"):
        env.unwrapped.load_state_dict({"handz": []})
    bad = [list(h) for h in s["hands"]]
    bad[0].append("wild")  # an invented card
    with pytest.raises(ValueError, match="conservation"):
        env.unwrapped.load_state_dict({"hands": bad})
    with pytest.raises(ValueError, match="unknown card kind 'purple 3'"):
        env.unwrapped.load_state_dict({"draw_pile": ["purple 3"]})
    with pytest.raises(ValueError, match="expected 2 hands"):
        env.unwrapped.load_state_dict({"hands": [[]]})
    assert _same_snapshot(before, _snapshot(env))
