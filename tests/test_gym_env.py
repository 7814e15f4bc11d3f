"""Gymnasium single-agent environments: registration, checkers, seeding, opponents, masks, rewards, errors."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env.gym_env import MaskedDiscrete, UnoGymEnv
from uno_env.vector import UnoSingleAgentVectorEnv

ROOT = Path(__file__).resolve().parent.parent
IDS = ["uno_env/Classic-v0", "uno_env/Pocket-v0", "uno_env/Dice-v0"]
GAME_OF = dict(zip(IDS, ["classic", "pocket", "dice"]))


def play_episode(env, rng, seed=None, max_steps=20_000):
    """Random legal learner play to the end; returns the list of (obs, reward, terminated, truncated, info)."""
    obs, info = env.reset(seed=seed)
    out = []
    for _ in range(max_steps):
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size, "the learner is asked to act with no legal action"
        obs, r, term, trunc, info = env.step(int(rng.choice(legal)))
        out.append((obs, r, term, trunc, info))
        if term or trunc:
            return out
    raise AssertionError("episode did not end")


# ---------------------------------------------------------------------------------------------- registration
def test_make_without_prior_import():
    code = ("import gymnasium, sys; env = gymnasium.make('uno_env:uno_env/Classic-v0'); "
            "obs, info = env.reset(seed=0); assert 'action_mask' in obs; "
            "print(type(env.unwrapped).__name__, env.action_space.n)")
    envvars = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=envvars, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["UnoGymEnv", str(uno_env.raw_env("classic").game.num_actions)]


@pytest.mark.parametrize("gid", IDS)
def test_registered_ids_build_the_right_game(gid):
    env = gymnasium.make(gid)
    assert env.unwrapped.game.name == GAME_OF[gid]
    assert isinstance(env.observation_space, gymnasium.spaces.Dict)
    assert set(env.observation_space.spaces) == {"observation", "action_mask"}
    assert env.action_space.n == env.unwrapped.game.num_actions


# ---------------------------------------------------------------------------------------------- checkers
@pytest.mark.parametrize("gid", IDS)
def test_gymnasium_check_env(gid):
    from gymnasium.utils.env_checker import check_env

    # check_env's step-determinism check samples an action *before* it resets with a new seed, so the action
    # is not legal in the new state; the default illegal_action="terminate" makes that a reward of -1
    env = gymnasium.make(gid)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("gid", IDS)
def test_sb3_check_env_default_kwargs(gid):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gymnasium.make(gid).unwrapped)


@pytest.mark.parametrize("gid", IDS)
def test_maskable_ppo_smoke(gid):
    """MaskablePPO learns a couple of thousand steps on each id; an illegal action would raise in step()."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = gymnasium.make(gid)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=512, batch_size=128, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]}, verbose=0)
    model.learn(2048)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
    assert obs["action_mask"][int(action)] == 1


# ---------------------------------------------------------------------------------------------- masks
@pytest.mark.parametrize("game", ["classic", "pocket", "dice"])
def test_mask_everywhere_agrees(game, rng):
    env = UnoGymEnv(game, opponents="heuristic")
    obs, info = env.reset(seed=3)
    for _ in range(2000):
        m = obs["action_mask"]
        assert m.dtype == np.int8 and m.any()
        assert np.array_equal(info["action_mask"], m)
        assert np.array_equal(env.action_masks(), m.astype(bool))
        assert obs in env.observation_space
        # the learner is the seat to act (acting block: viewer first)
        acting = obs["observation"][env.game.obs_offsets[14]: env.game.obs_offsets[15]]
        assert acting[0] == 1.0
        a = env.action_space.sample()  # mask-aware sampling: always legal
        assert m[a] == 1
        obs, r, term, trunc, info = env.step(a)
        if term or trunc:
            assert not obs["action_mask"].any() and not info["action_mask"].any() and not env.action_masks().any()
            assert "winner" in info
            break
    else:
        pytest.fail("no episode end")


def test_masked_discrete_behaves_like_discrete():
    mask = np.zeros(10, np.int8)
    mask[[2, 7]] = 1
    sp = MaskedDiscrete(10, mask, seed=0)
    assert sp == gymnasium.spaces.Discrete(10)
    assert {int(sp.sample()) for _ in range(50)} == {2, 7}
    explicit = np.zeros(10, np.int8)
    explicit[4] = 1
    assert sp.sample(mask=explicit) == 4
    copy = pickle.loads(pickle.dumps(sp))
    assert copy == sp
    # the mask is not pickled (it belongs to one state of one env): the copy samples the whole space
    assert {int(copy.sample()) for _ in range(300)} == set(range(10))


# ---------------------------------------------------------------------------------------------- seeding
def trajectory(env, seed, steps=300):
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = [obs["observation"].copy()]
    for _ in range(steps):
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        out.append(obs["observation"].copy())
        out.append(np.array([r, term, trunc, info["learner_seat"]]))
        if term or trunc:
            obs, info = env.reset()
            out.append(obs["observation"].copy())
    return np.concatenate(out)


@pytest.mark.parametrize("opponents", ["random", "greedy", "heuristic"])
def test_seeded_reset_is_reproducible(opponents):
    a = UnoGymEnv("classic", num_players=3, opponents=opponents, learner_seat="random")
    b = UnoGymEnv("classic", num_players=3, opponents=opponents, learner_seat="random")
    assert np.array_equal(trajectory(a, 11), trajectory(b, 11))
    assert not np.array_equal(trajectory(a, 11), trajectory(a, 12))


def test_learner_seat_fixed_and_random():
    env = UnoGymEnv("classic", num_players=4, learner_seat=2)
    for s in range(5):
        env.reset(seed=s)
        assert env.learner_seat == 2 and env.aec.game_state.cur == 2
    env = UnoGymEnv("classic", num_players=4, learner_seat="random")
    seats = set()
    for s in range(40):
        _, info = env.reset(seed=s)
        seats.add(info["learner_seat"])
        assert env.aec.game_state.cur == info["learner_seat"]
    assert seats == {0, 1, 2, 3}


# ---------------------------------------------------------------------------------------------- rewards
def test_rewards_are_the_learners(rng):
    env = UnoGymEnv("classic", num_players=3, opponents="heuristic", learner_seat="random")
    outcomes = set()
    for ep in range(12):
        steps = play_episode(env, rng, seed=ep)
        *_, (obs, r, term, trunc, info) = steps
        assert all(s[1] == 0.0 for s in steps[:-1])
        if trunc:
            assert r == 0.0 and info["winner"] == -1
        else:
            assert term
            assert r == (1.0 if info["winner"] == info["learner_seat"] else -0.5)
            outcomes.add(r)
    assert outcomes == {1.0, -0.5} or outcomes == {-0.5}


def test_points_reward_and_match_episode(rng):
    env = UnoGymEnv("pocket", rules={"episode": "match", "reward": "points", "target_score": 60},
                    opponents="greedy")
    steps = play_episode(env, rng, seed=5)
    rewarded = [s[1] for s in steps if s[1] != 0.0]
    assert len(rewarded) >= 1  # one reward per finished round (points), not only at the end
    assert steps[-1][2] or steps[-1][3]


def test_truncation():
    env = UnoGymEnv("classic", rules={"max_turns": 6}, opponents="random")
    obs, _ = env.reset(seed=0)
    for _ in range(10):
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
        if term or trunc:
            break
    assert trunc and not term and r == 0.0 and info["winner"] == -1


# ---------------------------------------------------------------------------------------------- opponents
class Scripted:
    """Plays the first legal action (an agent object without a game attribute)."""

    name = "first"

    def __init__(self):
        self.calls = 0

    def act(self, observation, action_mask):
        self.calls += 1
        return int(np.flatnonzero(action_mask)[0])


def test_opponent_forms():
    from uno_env.agents.greedy import GreedyAgent
    from uno_env.agents.heuristic import HeuristicAgent

    env = UnoGymEnv("classic", num_players=4, opponents=["random", "greedy", "heuristic"], learner_seat=1)
    assert [o.name for o in env.opponents] == ["random", "greedy", "heuristic"]
    s = Scripted()
    env = UnoGymEnv("classic", num_players=3, opponents=s)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert s.calls >= 1
    g = env.game
    env = UnoGymEnv("classic", num_players=3, opponents=[GreedyAgent(g, seed=1), "heuristic"])
    env.reset(seed=0)
    env.set_opponents("random")
    assert [o.name for o in env.opponents] == ["random", "random"]
    assert isinstance(UnoGymEnv("classic", opponents=HeuristicAgent("classic")).opponents[0], HeuristicAgent)


@pytest.mark.parametrize("kwargs, err, words", [
    ({"opponents": "nobody"}, ValueError, "unknown agent 'nobody'"),
    ({"opponents": ["random"], "num_players": 3}, ValueError, "each of the 2 other seats"),
    ({"opponents": 3}, TypeError, "opponents must be"),
    ({"opponents": ["random", 5], "num_players": 3}, TypeError, "each opponent"),
    ({"learner_seat": 2}, ValueError, "out of range"),
    ({"learner_seat": "left"}, ValueError, "'random'"),
    ({"learner_seat": 1.0}, TypeError, "learner_seat"),
    ({"render_mode": "rgb"}, ValueError, "render_mode"),
    ({"flat_obs": "yes"}, TypeError, "flat_obs"),
    ({"illegal_action": "ignore"}, ValueError, "illegal_action"),
    ({"rules": 5}, TypeError, "rules must be"),
    ({"num_players": 11}, ValueError, "num_players"),
])
def test_bad_kwargs(kwargs, err, words):
    with pytest.raises(err, match=words):
        UnoGymEnv("classic", **kwargs)


def test_opponent_for_another_game_is_refused():
    from uno_env.agents.greedy import GreedyAgent

    with pytest.raises(ValueError, match="built for game 'pocket'"):
        UnoGymEnv("classic", opponents=GreedyAgent("pocket"))


def test_bad_opponent_action_is_reported():
    class Bad(Scripted):
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask == 0)[0])

    env = UnoGymEnv("classic", opponents=Bad())
    obs, _ = env.reset(seed=0)
    with pytest.raises(RuntimeError, match="opponent .* seat 1 chose an illegal action"):
        for _ in range(5):
            obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))


# ---------------------------------------------------------------------------------------------- errors
def test_illegal_action_raises_and_keeps_state():
    env = UnoGymEnv("classic", opponents="random", illegal_action="raise")
    obs, _ = env.reset(seed=4)
    before = env.aec.state_dict()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(uno_env.IllegalActionError, match="illegal action"):
        env.step(bad)
    assert env.aec.state_dict() == before
    with pytest.raises(uno_env.ActionOutOfRangeError):
        env.step(env.game.num_actions)
    with pytest.raises(uno_env.ActionOutOfRangeError):
        env.step("draw")
    assert env.aec.state_dict() == before
    env.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))  # still playable


def test_illegal_action_terminate_mode_is_the_default():
    env = UnoGymEnv("classic")
    obs, _ = env.reset(seed=4)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="illegal action"):
        obs, r, term, trunc, info = env.step(bad)
    assert (r, term, trunc, info["illegal_action"]) == (-1.0, True, False, True)
    assert not obs["action_mask"].any()


def test_order_errors():
    env = UnoGymEnv("classic", rules={"max_turns": 2})
    with pytest.raises(uno_env.OrderError):
        env.step(0)
    obs, _ = env.reset(seed=0)
    while True:
        obs, r, term, trunc, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if term or trunc:
            break
    with pytest.raises(uno_env.OrderError, match="call reset"):
        env.step(0)


# ---------------------------------------------------------------------------------------------- misc
def test_render_and_pickle(capsys):
    env = UnoGymEnv("dice", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "UNO dice" in text and "learner (player_0) hand:" in text
    human = UnoGymEnv("classic", render_mode="human")
    human.reset(seed=0)
    assert "learner (player_0) hand:" in capsys.readouterr().out
    copy = pickle.loads(pickle.dumps(UnoGymEnv("pocket", num_players=3, opponents=["greedy", "heuristic"])))
    assert copy.game.num_players == 3 and [o.name for o in copy.opponents] == ["greedy", "heuristic"]
    assert env.action_names == env.game.action_names and env.observation_layout == env.game.observation_layout


def test_a_learner_seat_that_never_acts_is_refused_when_the_env_is_built():
    """Seat 2 of 3 never acts before ``max_turns=1`` ends the game: the env is refused when it is built, with the
    batched single-agent env's words (one check for both), not by every ``reset()``."""
    with pytest.raises(ValueError, match=r"learner_seat: seat\(s\) \[2\] never act.*max_turns=1") as gym_error:
        UnoGymEnv("classic", num_players=3, rules={"max_turns": 1}, learner_seat=2)
    with pytest.raises(ValueError) as vector_error:
        UnoSingleAgentVectorEnv("classic", 2, num_players=3, rules={"max_turns": 1}, learner_seat=2)
    assert str(gym_error.value) == str(vector_error.value)
    for seat in (0, "random"):  # seats that some deal reaches are kept
        env = UnoGymEnv("classic", num_players=3, rules={"max_turns": 1}, learner_seat=seat)
        assert env.reset(seed=1)[0]["action_mask"].any()
