"""The PettingZoo AEC API: PettingZoo's own api/seed/render tests over games, player counts and rule sets; the
registry, versioned modules, metadata, pickling and the action/observation tables."""
from __future__ import annotations

import importlib
import pickle

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import uno_env
from uno_env.core import engine as E
from uno_env.core.observe import B_ACTING

from conftest import make_env, random_play

HOUSE = {"stacking": True, "seven_zero": True, "jump_in": True, "force_play": True, "draw_until_playable": True}
CLASSIC_HOUSE = {**HOUSE, "first_wild": "choose_colour"}
MATCH = {"episode": "match", "reward": "points", "target_score": 100, "uno_call": "auto"}

CONFIGS = (
    [("classic", n, None) for n in (2, 3, 4, 7, 10)]
    + [("classic", 2, "rlcard")]
    + [("classic", n, CLASSIC_HOUSE) for n in (2, 3, 4, 7, 10)]
    + [("classic", 3, MATCH), ("classic", 4, {"wd4_challenge": False, "voluntary_draw": False,
                                               "uno_catch_probability": 0.5})]
    + [("pocket", n, None) for n in (2, 3, 4, 5)]
    + [("pocket", n, HOUSE) for n in (2, 5)]
    + [("pocket", 3, {**MATCH, "extra_wild": True})]
    + [("dice", n, None) for n in (2, 3, 4)]
    + [("dice", 3, {"dice_wd4_bluff": True}), ("dice", 2, MATCH)]
)
IDS = [f"{g}-{n}-{'default' if r is None else (r if isinstance(r, str) else '+'.join(sorted(r)))}"
       for g, n, r in CONFIGS]


@pytest.mark.parametrize("game,n,rules", CONFIGS, ids=IDS)
def test_pettingzoo_api_test(game, n, rules):
    api_test(uno_env.env(game, num_players=n, rules=rules), num_cycles=1000)


@pytest.mark.parametrize("game,n,rules", [c for c in CONFIGS if c[2] in (None, "rlcard", CLASSIC_HOUSE)],
                         ids=[i for c, i in zip(CONFIGS, IDS) if c[2] in (None, "rlcard", CLASSIC_HOUSE)])
def test_pettingzoo_api_test_raw_env(game, n, rules):
    api_test(uno_env.raw_env(game, num_players=n, rules=rules), num_cycles=1000)


@pytest.mark.parametrize("game,n,rules", CONFIGS, ids=IDS)
def test_pettingzoo_seed_test(game, n, rules):
    seed_test(lambda: uno_env.env(game, num_players=n, rules=rules), num_cycles=500)


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_pettingzoo_render_test(game):
    render_test(lambda render_mode=None: uno_env.env(game, render_mode=render_mode))


def test_render_ansi_shows_no_hidden_hand():
    env = uno_env.raw_env("classic", render_mode="ansi")
    env.reset(seed=0)
    out = env.render()
    assert "player_0" in out and "player_1" in out and f"top: {env.state_dict()['top']}" in out
    below_top = out.split("top:")[1].split("\n", 1)[1]
    for card in env.state_dict()["hands"][0] + env.state_dict()["hands"][1]:
        assert card not in below_top


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_pettingzoo_make(game):
    env = pettingzoo.make("aec", f"uno_env/{game}-v0")
    assert env.metadata["name"] == f"uno_{game}_v0"
    env.reset(seed=1)
    assert env.agent_selection in env.possible_agents
    env3 = pettingzoo.make("aec", f"uno_env/{game}-v0", num_players=3)
    assert env3.possible_agents == ["player_0", "player_1", "player_2"]


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_versioned_modules(game, caplog):
    mod = importlib.import_module(f"uno_env.{game}_v0")
    env = mod.env(num_players=3)
    raw = mod.raw_env(num_players=3)
    assert isinstance(env, uno_env.raw_env) and isinstance(raw, uno_env.raw_env)
    assert env.game.name == raw.game.name == game and len(env.possible_agents) == len(raw.possible_agents) == 3
    # env() terminates on an illegal move; raw_env() raises
    for e in (env, raw):
        e.reset(seed=0)
    bad = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(uno_env.IllegalActionError):
        raw.step(bad)
    env.step(bad)
    assert "Illegal move" in caplog.text  # PettingZoo's EnvLogger warning, as TerminateIllegalWrapper gives
    assert all(env.terminations.values())
    assert mod.__doc__


def test_metadata():
    for game in uno_env.GAMES:
        env = uno_env.env(game)
        assert env.metadata["name"] == f"uno_{game}_v0"
        assert env.metadata["is_parallelizable"] is False
        assert set(env.metadata["render_modes"]) == {"ansi", "human", "rgb_array"}
    from uno_env import classic_v0  # a submodule: not an attribute until something imports it

    assert classic_v0.env().metadata["name"] == "uno_classic_v0"


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_pickle_round_trip(game):
    env = uno_env.env(game, num_players=3, rules={"episode": "match"})
    env2 = pickle.loads(pickle.dumps(env))
    assert env2.rules == env.rules and env2.possible_agents == env.possible_agents
    env.reset(seed=5)
    env2.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(50):
        if not env.agents:
            break
        a = env.agent_selection
        assert env2.agent_selection == a
        o1, o2 = env.observe(a), env2.observe(a)
        assert np.array_equal(o1["observation"], o2["observation"])
        assert np.array_equal(o1["action_mask"], o2["action_mask"])
        if env.terminations[a] or env.truncations[a]:
            env.step(None)
            env2.step(None)
            continue
        act = int(rng.choice(np.flatnonzero(o1["action_mask"])))
        env.step(act)
        env2.step(act)
    # a reset env pickles too (a fresh copy of the same configuration)
    env3 = pickle.loads(pickle.dumps(env))
    assert env3.rules == env.rules


# ---------------------------------------------------------------------------------------------- tables
@pytest.mark.parametrize("game,n", [("classic", 2), ("classic", 10), ("pocket", 5), ("dice", 4), ("dice", 2)])
def test_observation_layout_tiles_the_vector(game, n):
    env = make_env(game, num_players=n)
    rows = env.unwrapped.observation_layout
    pos = 0
    names = []
    for off, length, name, meaning in rows:
        assert off == pos and length > 0 and meaning
        pos += length
        names.append(name)
    assert pos == env.unwrapped.game.obs_dim == env.observation_space("player_0")["observation"].shape[0]
    assert len(set(names)) == len(names)
    expect = {"hand", "top", "colour", "phase", "direction", "hand_sizes", "called_uno", "draw_size", "pending",
              "drawn", "scores", "acting"}
    expect |= {"other_hands", "bag", "die_place", "die_face"} if game == "dice" else {"discarded"}
    if env.unwrapped.rules.wd4_challenge and game != "dice":  # a challenge shows the challenged hand
        expect |= {"shown_hand", "shown_from"}
    assert set(names) == expect
    sizes = {name: length for _, length, name, _ in rows}
    k = env.unwrapped.game.num_kinds
    assert sizes["hand"] == sizes["top"] == sizes["drawn"] == k
    assert sizes["hand_sizes"] == sizes["scores"] == sizes["acting"] == sizes["called_uno"] == n
    assert sizes["phase"] == E.NUM_PHASES and sizes["colour"] == 4
    if game == "dice":
        assert sizes["other_hands"] == (n - 1) * k and sizes["bag"] == 24
        assert sizes["die_place"] == 24 * (n + 2) and sizes["die_face"] == 24 * 6


@pytest.mark.parametrize("game,k,d", [("classic", 54, 0), ("pocket", 51, 0), ("dice", 38, 24)])
def test_action_names_table(game, k, d):
    names = uno_env.action_names(game)
    env = make_env(game)
    assert names == env.unwrapped.action_names
    assert len(names) == len(set(names)) == env.action_space("player_0").n == 3 * k + 19 + 2 * d
    for i, name in enumerate(names):
        assert uno_env.action_id(game, name) == i
        assert env.unwrapped.action_id(name) == i
    off = E.action_offsets(k)
    assert names[off["play"]].startswith("play ") and names[off["play_uno"]].endswith("+ UNO")
    assert names[off["colour"]: off["colour"] + 4] == [f"choose colour {c}" for c in ("red", "yellow", "green",
                                                                                       "blue")]
    assert [names[off[s]] for s in ("draw", "keep", "challenge", "accept", "pass", "reroll")] == [
        "draw", "keep drawn card", "challenge", "accept", "pass", "reroll"]
    assert names[off["give"]].startswith("give ") and names[off["swap"]] == "swap hands with seat +1"
    assert names[3 * k + 18] == "swap hands with seat +9"
    assert names[-1] == ("play die 23 + UNO" if d else "swap hands with seat +9")
    kinds = env.unwrapped.game.kinds.names
    assert names[:k] == [f"play {x}" for x in kinds]
    with pytest.raises(ValueError, match="unknown action"):
        uno_env.action_id(game, "play purple 11")


def test_action_table_same_for_every_option():
    base = uno_env.raw_env("classic").action_names
    for rules in ("rlcard", CLASSIC_HOUSE, {"num_players": 10}):
        assert uno_env.raw_env("classic", rules=rules).action_names == base


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_mask_zero_for_waiting_seats_and_obs_in_space(game, rng):
    env = make_env(game, num_players=3, seed=2)
    for _ in random_play(env, rng, 200):
        if not env.agents:
            break
        for a in env.agents:
            o = env.observe(a)
            assert env.observation_space(a).contains(o)
            if a != env.agent_selection:
                assert not o["action_mask"].any()
            acting = o["observation"][env.unwrapped.game.obs_offsets[B_ACTING]:][:3]
            assert acting[0] == (1.0 if a == env.agent_selection and not env.terminations[a] else 0.0)


def test_infos_and_last():
    env = make_env("classic", seed=0)
    obs, rew, term, trunc, info = env.last()
    assert set(obs) == {"observation", "action_mask"} and rew == 0 and not term and not trunc
    assert isinstance(info, dict)
    assert env.agents == env.possible_agents == ["player_0", "player_1"]


def test_dead_agents_step_none_then_removed(rng):
    env = make_env("classic", {"max_turns": 10}, seed=0)
    for _ in random_play(env, rng, 100):
        pass
    assert all(env.truncations.values())
    while env.agents:
        env.step(None)
    assert env.agents == []
