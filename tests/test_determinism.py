"""Determinism: the same seed and the same actions give the same game; different seeds give different deals."""
from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env.core import engine as E

from conftest import make_env, sd

CONFIGS = [
    ("classic", 2, None), ("classic", 4, {"episode": "match", "target_score": 150}),
    ("classic", 3, {"stacking": True, "seven_zero": True, "jump_in": True, "uno_catch_probability": 0.5}),
    ("pocket", 3, None), ("pocket", 2, {"episode": "match", "reward": "points"}),
    ("dice", 2, None), ("dice", 4, {"episode": "match", "target_score": 100, "dice_wd4_bluff": True}),
]


def _trajectory(env, seed, action_seed, max_steps=20000):
    """Everything the env shows, step by step, over a whole episode of random legal play."""
    env.reset(seed=seed)
    rng = np.random.default_rng(action_seed)
    out = []
    for _ in range(max_steps):
        if not env.agents:
            break
        agent = env.agent_selection
        obs, rew, term, trunc, info = env.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew, term, trunc,
                    dict(info), dict(env.rewards), dict(env.terminations), dict(env.truncations),
                    {a: env.observe(a)["observation"].tobytes() for a in env.agents}))
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def env_left(traj):
    """True if the trajectory stopped with live agents (it did not reach the end of the episode)."""
    return not (traj[-1][4] or traj[-1][5])


@pytest.mark.parametrize("game,n,rules", CONFIGS)
def test_same_seed_same_actions_same_game(game, n, rules):
    a = _trajectory(uno_env.env(game, num_players=n, rules=rules), seed=11, action_seed=5)
    b = _trajectory(uno_env.env(game, num_players=n, rules=rules), seed=11, action_seed=5)
    assert len(a) > 10 and a == b
    assert any(step[4] or step[5] for step in a) and not env_left(a)  # whole episodes: they ended
    # the same env object replays identically after a reset with the same seed
    env = uno_env.env(game, num_players=n, rules=rules)
    _trajectory(env, seed=3, action_seed=1)
    assert _trajectory(env, seed=11, action_seed=5) == a


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_different_seeds_different_deals(game):
    deals = set()
    for seed in range(20):
        s = sd(make_env(game, seed=seed))
        deals.add(repr((s["hands"], s["top"], s.get("bag"))))
    assert len(deals) == 20


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_reset_without_seed_continues_the_generator(game):
    a = make_env(game, seed=4)
    b = make_env(game, seed=4)
    a.reset()
    b.reset()
    assert sd(a) == sd(b)
    c = make_env(game, seed=4)
    assert sd(a) != sd(c)  # a new game, not a replay


@pytest.mark.parametrize("game", uno_env.GAMES)
def test_game_seed_is_documented_derivation(game):
    """reset(seed=s) runs the core's reset_one with np.random.default_rng(s).integers(0, 2**63 - 1)."""
    env = make_env(game, seed=123)
    g = env.unwrapped.game
    st, rng = g.new_states(1)
    E.reset_one(st[0], rng[0], g.cfg, g.spec, g.dice, int(np.random.default_rng(123).integers(0, 2**63 - 1)))
    assert np.array_equal(st[0], env.unwrapped.game_state.row) and rng[0, 0] == env.unwrapped.prng_state[0]


def test_trajectory_depends_on_actions_and_seed():
    a = _trajectory(uno_env.env("classic"), seed=11, action_seed=5)
    assert _trajectory(uno_env.env("classic"), seed=12, action_seed=5) != a
    assert _trajectory(uno_env.env("classic"), seed=11, action_seed=6) != a
