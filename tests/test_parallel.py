"""The PettingZoo Parallel environment and the ``flat_obs`` option of the AEC environment.

PettingZoo's ``parallel_api_test`` / ``parallel_seed_test`` on every game; the Parallel env plays exactly the AEC
env's game for the same seed and actions; an observation does not change when another seat's hidden cards do; bad
actions raise the AEC env's error classes and change nothing; SuperSuit's wrappers take the flat AEC and Parallel
envs and the masks in the infos are the legal actions.
"""
from __future__ import annotations

import copy
import json
import pickle
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

import uno_env
from uno_env import ActionOutOfRangeError, IllegalActionError, OrderError

GAME_SIZES = [(game, n) for game in uno_env.GAMES for n in (2, 4)]


def _legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _acting(obs: dict) -> str:
    """The one agent whose mask is not all zeros (the Parallel env's only way to say whose turn it is)."""
    (agent,) = [a for a, o in obs.items() if o["action_mask"].any()]
    return agent


@pytest.mark.parametrize("game,n", GAME_SIZES)
def test_parallel_api_test(game, n):
    env = uno_env.parallel_env(game, num_players=n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(env, num_cycles=env.rules.max_turns + 1)
    assert not [str(w.message) for w in caught], "parallel_api_test warned"
    assert env.agents == []  # max_turns ends every game: the test played its games to the end


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_parallel_seed_test_and_the_factories(game):
    parallel_seed_test(lambda: uno_env.parallel_env(game))
    module = __import__(f"uno_env.{game}_v0", fromlist=["parallel_env"])
    for env in (module.parallel_env(num_players=3), pettingzoo.make("parallel", f"uno_env/{game}-v0", num_players=3)):
        assert isinstance(env, uno_env.parallel.UnoParallelEnv)
        assert env.possible_agents == ["player_0", "player_1", "player_2"]
        assert env.metadata["name"] == f"uno_{game}_v0"


def _aec_trajectory(game, n, seed):
    """(actions, per-step (acting agent, its observation, rewards, terminations, truncations), final infos) of a
    random legal game of the raw AEC env."""
    env = uno_env.raw_env(game, num_players=n)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, steps = [], []
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        agent = env.agent_selection
        seen = env.observe(agent)
        action = _legal(seen["action_mask"], rng)
        env.step(action)
        actions.append(action)
        steps.append((agent, seen["observation"], dict(env.rewards), dict(env.terminations), dict(env.truncations)))
    return actions, steps, {a: env.infos[a] for a in env.possible_agents}


@pytest.mark.parametrize("game,n", GAME_SIZES)
def test_same_seed_and_actions_play_the_aec_envs_game(game, n):
    actions, steps, final_infos = _aec_trajectory(game, n, seed=7)
    env = uno_env.parallel_env(game, num_players=n, illegal_action="raise")
    obs, infos = env.reset(seed=7)
    assert infos == {a: {} for a in env.possible_agents}
    noise = np.random.default_rng(1)
    for action, (agent, seen, rewards, terminations, truncations) in zip(actions, steps):
        assert _acting(obs) == agent
        np.testing.assert_array_equal(obs[agent]["observation"], seen)
        # the waiting agents' actions are checked and ignored: random ones change nothing
        given = {a: int(noise.integers(env.game.num_actions)) for a in env.agents}
        given[agent] = action
        obs, rew, term, trunc, infos = env.step(given)
        assert rew == rewards and term == terminations and trunc == truncations
    assert env.agents == [] and env.aec.agents == []
    assert infos == final_infos and infos["player_0"]["turns"] == len(actions)
    assert all(not o["action_mask"].any() for o in obs.values())


@pytest.mark.parametrize("game", ["classic", "pocket"])
def test_an_observation_ignores_another_seats_hidden_cards(game):
    """At states along a game, one waiting seat's hand is changed (one card swapped with the draw pile): every
    other seat's observation and info returned by the next step stay exactly the same."""
    env = uno_env.parallel_env(game, num_players=4, illegal_action="raise")
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    checked = seen_by_owner = 0
    while env.agents and checked < 40:
        acting = _acting(obs)
        action = _legal(obs[acting]["action_mask"], rng)
        before = env.aec.state_dict()
        plain = env.step({acting: action})
        after = env.aec.state_dict()
        env.aec.load_state_dict(before)
        state = env.aec.state_dict()
        changed = next(s for s in range(4) if f"player_{s}" != acting and state["hands"][s])
        hand, pile = list(state["hands"][changed]), list(state["draw_pile"])
        swap = next((i for i, card in enumerate(pile) if card not in hand), None)
        if swap is None:  # nothing to swap in: continue from the unchanged step
            env.aec.load_state_dict(after)
            obs = plain[0]
            continue
        hand[0], pile[swap] = pile[swap], hand[0]
        hands = [list(h) for h in state["hands"]]
        hands[changed] = hand
        env.aec.load_state_dict({"hands": hands, "draw_pile": pile})
        edited = env.step({acting: action})
        for viewer in plain[0]:
            if viewer == f"player_{changed}":  # the edit is real: the owner sees its new card
                seen_by_owner += not np.array_equal(plain[0][viewer]["observation"], edited[0][viewer]["observation"])
                continue
            for a, b in zip(plain[0][viewer].values(), edited[0][viewer].values()):
                np.testing.assert_array_equal(a, b)
            assert plain[4][viewer] == edited[4][viewer]
        checked += 1
        env.aec.load_state_dict(after)
        obs = plain[0]
    assert checked >= 20 and seen_by_owner == checked


def _unchanged(env, call, error, match=None):
    state = env.aec.state_dict()
    agents = list(env.agents)
    with pytest.raises(error, match=match):
        call()
    assert env.aec.state_dict() == state and env.agents == agents


def test_bad_actions_raise_and_change_nothing():
    env = uno_env.parallel_env("classic", num_players=3, illegal_action="raise")
    with pytest.raises(OrderError, match="reset"):
        env.step({})
    obs, _ = env.reset(seed=5)
    acting = _acting(obs)
    waiting = next(a for a in env.agents if a != acting)
    mask = obs[acting]["action_mask"]
    legal, illegal = int(np.flatnonzero(mask)[0]), int(np.flatnonzero(mask == 0)[0])
    a = env.game.num_actions
    _unchanged(env, lambda: env.step([legal]), TypeError, "dict")
    _unchanged(env, lambda: env.step({acting: legal, "player_9": 0}), KeyError, "player_9")
    _unchanged(env, lambda: env.step({waiting: 0}), ActionOutOfRangeError, f"{acting} is to act")
    _unchanged(env, lambda: env.step({acting: None}), ActionOutOfRangeError, f"{acting} is to act")
    for bad in (a, -1, 1.0, True, "play red 1"):
        _unchanged(env, lambda bad=bad: env.step({acting: bad}), ActionOutOfRangeError, acting)
    _unchanged(env, lambda: env.step({acting: legal, waiting: a}), ActionOutOfRangeError, waiting)
    _unchanged(env, lambda: env.step({acting: illegal}), IllegalActionError, "illegal action")
    env.step({acting: np.int64(legal), waiting: None})  # numpy integers and None for a waiting agent are fine

    strict = uno_env.parallel_env("classic", num_players=3, inactive_actions="require_none")
    obs, _ = strict.reset(seed=5)
    acting = _acting(obs)
    waiting = next(a for a in strict.agents if a != acting)
    _unchanged(strict, lambda: strict.step({acting: legal, waiting: 0}), OrderError, "must be None")
    strict.step({acting: legal, waiting: None})

    with pytest.raises(ValueError, match="inactive_actions"):
        uno_env.parallel_env("classic", inactive_actions="skip")
    with pytest.raises(TypeError, match="flat_obs"):
        uno_env.parallel_env("classic", flat_obs="yes")
    with pytest.raises(ValueError, match="illegal_action"):
        uno_env.parallel_env("classic", illegal_action="ignore")


def test_an_illegal_action_ends_the_game_by_default_and_then_step_refuses(caplog):
    env = uno_env.parallel_env("pocket", num_players=3)
    obs, _ = env.reset(seed=2)
    acting = _acting(obs)
    illegal = int(np.flatnonzero(obs[acting]["action_mask"] == 0)[0])
    obs, rewards, terminations, truncations, infos = env.step({acting: illegal})
    assert "Illegal move" in caplog.text  # PettingZoo's warning, as uno_env.env() gives
    assert rewards == {a: (-1.0 if a == acting else 0.0) for a in env.possible_agents}
    assert all(terminations.values()) and all(truncations.values())
    assert all(info["illegal_action"] == acting for info in infos.values())
    assert env.agents == []
    with pytest.raises(OrderError, match="game is over"):
        env.step({acting: 0})


def test_copies_continue_the_same_game():
    env = uno_env.parallel_env("dice", num_players=3, illegal_action="raise")
    obs, _ = env.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(5):
        acting = _acting(obs)
        obs = env.step({acting: _legal(obs[acting]["action_mask"], rng)})[0]
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert twin.agents == env.agents and twin.aec.state_dict() == env.aec.state_dict()
        acting = _acting(obs)
        action = _legal(obs[acting]["action_mask"], rng)
        a, b = twin.step({acting: action}), copy.deepcopy(env).step({acting: action})
        assert a[1] == b[1] and all(np.array_equal(a[0][k]["observation"], b[0][k]["observation"]) for k in a[0])


# ---------------------------------------------------------------------------------------------- flat_obs
@pytest.mark.parametrize("game", uno_env.GAMES)
def test_flat_aec_env_passes_the_api_test_with_the_mask_in_the_infos(game):
    api_test(uno_env.env(game, num_players=3, flat_obs=True), num_cycles=300)
    flat, plain = uno_env.raw_env(game, flat_obs=True), uno_env.raw_env(game)
    assert flat.observation_space("player_0") == plain.observation_space("player_0")["observation"]
    for env in (flat, plain):
        env.reset(seed=4)
    rng = np.random.default_rng(4)
    while plain.agents:
        agent = plain.agent_selection
        seen, info = plain.observe(agent), flat.infos[agent]
        np.testing.assert_array_equal(flat.observe(agent), seen["observation"])
        for other in flat.agents:  # every agent's info mask is its mask: zeros for the waiting ones
            np.testing.assert_array_equal(flat.infos[other]["action_mask"], plain.observe(other)["action_mask"])
        done = plain.terminations[agent] or plain.truncations[agent]
        action = None if done else _legal(info["action_mask"], rng)
        for env in (flat, plain):
            env.step(action)
    assert flat.agents == []


def test_flat_aec_state_dict_stays_json_and_loads_the_masks_back():
    env = uno_env.raw_env("classic", num_players=3, flat_obs=True)
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    for _ in range(6):
        env.step(_legal(env.infos[env.agent_selection]["action_mask"], rng))
    saved = json.loads(json.dumps(env.state_dict()))
    assert all("action_mask" not in info for info in saved["env"]["infos"].values())
    other = uno_env.raw_env("classic", num_players=3, flat_obs=True)
    other.load_state_dict(saved)
    for agent in env.possible_agents:
        np.testing.assert_array_equal(other.infos[agent]["action_mask"], env.infos[agent]["action_mask"])
        np.testing.assert_array_equal(other.observe(agent), env.observe(agent))


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_supersuit_frame_stack_and_padding_on_the_flat_aec_env(game):
    supersuit = pytest.importorskip("supersuit")
    base = uno_env.raw_env(game, num_players=3, flat_obs=True)  # raw: an illegal action would raise
    dim = base.observation_space("player_0").shape[0]
    env = supersuit.pad_observations_v0(supersuit.frame_stack_v1(base, 4))
    assert env.observation_space("player_0").shape == (4 * dim,)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    decisions = 0
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        assert obs.shape == (4 * dim,)
        np.testing.assert_array_equal(obs[-dim:], base.observe(agent))  # the newest frame is the observation now
        if termination or truncation:
            env.step(None)
            continue
        np.testing.assert_array_equal(info["action_mask"], base.action_mask(agent))
        env.step(_legal(info["action_mask"], rng))
        decisions += 1
    assert base.episode_info()["turns"] == decisions > 0


def test_supersuit_frame_stack_on_the_flat_parallel_env():
    supersuit = pytest.importorskip("supersuit")
    base = uno_env.parallel_env("pocket", num_players=4, flat_obs=True, illegal_action="raise")
    dim = base.observation_space("player_0").shape[0]
    env = supersuit.frame_stack_v1(base, 3)
    obs, infos = env.reset(seed=2)
    rng = np.random.default_rng(2)
    while env.agents:
        assert all(o.shape == (3 * dim,) for o in obs.values())
        (acting,) = [a for a, info in infos.items() if info["action_mask"].any()]
        obs, _, _, _, infos = env.step({acting: _legal(infos[acting]["action_mask"], rng)})
    assert base.aec.episode_info()["winner"] in range(4)
