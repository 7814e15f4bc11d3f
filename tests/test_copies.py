"""Copies of mid-game environments (pickle, copy.deepcopy, copy.copy) continue exactly as the original.

Each test plays some random steps, copies, then drives the original and the copy with the same actions to the end
(or for a fixed number of batch steps) and compares everything the caller sees.
"""
from __future__ import annotations

import copy
import pickle

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env.gym_env import UnoGymEnv
from uno_env.vector import UnoSingleAgentVectorEnv, UnoVectorEnv, make_gym_vector_env, make_sb3_vec_env

GAMES = ["classic", "pocket", "dice"]
COPIES = {
    "deepcopy": copy.deepcopy,
    "copy": copy.copy,
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
}


def _same(a, b, what: str) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), what
        for k in a:
            _same(a[k], b[k], f"{what}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), what
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{what}[{i}]")
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=what)
    else:
        assert a == b, what


def _aec_view(env) -> dict:
    return {
        "agent": env.agent_selection,
        "agents": list(env.agents),
        "observations": {a: env.observe(a) for a in env.agents},
        "rewards": dict(env.rewards),
        "cumulative": env.cumulative_rewards,
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
    }


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("factory", ["raw_env", "env"])
def test_aec_copy_continues_identically(game, how, factory):
    rng = np.random.default_rng(7)
    env = getattr(uno_env, factory)(game, num_players=3)
    env.reset(seed=11)
    for _ in range(15):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    clone = COPIES[how](env)
    assert clone is not env
    _same(_aec_view(env), _aec_view(clone), "right after the copy")
    steps = 0
    while env.agents:
        term = env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        action = None if term else int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
        env.step(action)
        clone.step(action)
        _same(_aec_view(env), _aec_view(clone), f"after step {steps}")
        steps += 1
    assert steps > 0 and not clone.agents
    # the copy is independent: a new deal of one does not move the other
    env.reset(seed=1)
    clone.reset(seed=2)
    assert env.state_dict() != clone.state_dict()


def _diverged_copy(env, obs, how):
    """A copy of the Gymnasium env ``env`` (whose observation is ``obs``), played on until an action legal in
    ``env`` is illegal in the copy; returns the copy and its observation."""
    rng = np.random.default_rng(4)
    probe, probe_obs = COPIES[how](env), obs
    for _ in range(300):
        if (obs["action_mask"] > probe_obs["action_mask"]).any():
            return probe, probe_obs
        probe_obs, _, term, trunc, _ = probe.step(int(rng.choice(np.flatnonzero(probe_obs["action_mask"]))))
        if term or trunc:
            probe_obs, _ = probe.reset()
    pytest.fail("the copy's legal actions never lost one of the original's")


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("maker", ["class", "gymnasium.make"])
def test_gym_copy_continues_identically(game, how, maker):
    if maker == "gymnasium.make" and how == "copy":
        pytest.skip("copy.copy of a gymnasium wrapper is shallow by Gymnasium's design (it shares the inner env)")
    if maker == "class":
        env = UnoGymEnv(game, num_players=3, opponents=["random", "heuristic"])
    else:
        env = gymnasium.make(f"uno_env/{game.capitalize()}-v0", num_players=3, opponents="random")
    rng = np.random.default_rng(3)
    obs, _ = env.reset(seed=5)
    for _ in range(4):
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if term or trunc:
            obs, _ = env.reset()
    clone = COPIES[how](env)
    _same(clone.unwrapped.aec.state_dict(), env.unwrapped.aec.state_dict(), "state right after the copy")
    # the action space samples legal moves of the copy's own game, not the original's
    probe, probe_obs = _diverged_copy(env, obs, how)
    probe.action_space.seed(0)
    assert all(probe_obs["action_mask"][probe.action_space.sample()] for _ in range(100))
    episodes = 0
    for step in range(3000):
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        out, out2 = env.step(action), clone.step(action)
        _same(list(out), list(out2), f"step {step}")
        obs = out[0]
        if out[2] or out[3]:
            episodes += 1
            if episodes == 2:
                break
            obs, info = env.reset()
            obs2, info2 = clone.reset()
            _same([obs, info], [obs2, info2], "reset after the end")
    assert episodes == 2


def _vector_run(env, actions_rng, steps: int, multi: bool) -> list:
    out = []
    for _ in range(steps):
        masks = env.masks
        acts = np.array([actions_rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)
        result = env.step(acts)
        out.append(copy.deepcopy(result))
    return out


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("cls", [UnoVectorEnv, UnoSingleAgentVectorEnv])
def test_vector_copy_continues_identically(game, how, cls):
    # random 2-player classic runs ~1,300 decisions a game: a turn limit makes episodes end (and restart) inside
    # the 800 compared steps whatever the deal
    env = cls(game, num_envs=4, num_players=2, seed=9, rules={"max_turns": 300})
    env.reset()
    _vector_run(env, np.random.default_rng(1), 20, cls is UnoVectorEnv)
    clone = COPIES[how](env)
    np.testing.assert_array_equal(clone.states, env.states)
    a = _vector_run(env, np.random.default_rng(2), 800, cls is UnoVectorEnv)
    b = _vector_run(clone, np.random.default_rng(2), 800, cls is UnoVectorEnv)
    assert int(sum(r[-3].sum() + r[-2].sum() for r in a)) > 0, "no game ended: the test compares too little"
    for i, (x, y) in enumerate(zip(a, b)):
        _same(list(x), list(y), f"vector step {i}")
    # the copy's infos are its own arrays
    for key, value in clone.infos.items():
        if isinstance(value, np.ndarray):
            assert not np.shares_memory(value, env.infos[key]), key


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("face", ["gymnasium", "sb3"])
def test_gym_and_sb3_vector_copy_continues_identically(how, face):
    if face == "gymnasium":
        env = make_gym_vector_env("dice", num_envs=3, opponents="heuristic", seed=4)
        obs, _ = env.reset(seed=4)
    else:
        env = make_sb3_vec_env("dice", num_envs=3, opponents="heuristic", seed=4)
        obs = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        obs = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]]))[0]
    clone = COPIES[how](env)
    assert type(clone) is type(env)
    for i in range(100):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        out, out2 = env.step(acts), clone.step(acts)
        if face == "sb3":  # the episode's wall-clock time is the only thing allowed to differ
            for info in out[3] + out2[3]:
                info.get("episode", {}).pop("t", None)
        _same(list(out), list(out2), f"step {i}")
        obs = out[0]


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("game", GAMES)
def test_a_copy_runs_the_kernels_compiled_for_the_original(game, how):
    """A copy hands the compiled core arrays of the original's types: the options and card tables read-only.  A
    writable copy made numba compile the rules core again for the new signature, outside what `uno-env precompile`
    caches (57 s before a copied AEC env could step, once per cache)."""
    from uno_env.core.observe import step_and_observe

    env = uno_env.raw_env(game)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    compiled = list(step_and_observe.signatures)
    clone = COPIES[how](env)
    g = clone.unwrapped.game
    assert not g.cfg.flags.writeable and not g.spec.flags.writeable and not g.kinds.table.flags.writeable
    clone.step(int(np.flatnonzero(clone.observe(clone.agent_selection)["action_mask"])[0]))
    assert list(step_and_observe.signatures) == compiled


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_soak_copies_at_random_steps(game):
    """Many games: copy (by each method) at a random step, play both on, and compare every step to the end."""
    rng = np.random.default_rng(99)
    methods = list(COPIES.values())
    for g in range(150):
        env = uno_env.raw_env(game, num_players=int(rng.integers(2, 5)))
        env.reset(seed=g)
        cut = int(rng.integers(0, 60))
        clone = None
        step = 0
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            if step == cut:
                clone = methods[g % len(methods)](env)
            action = int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
            env.step(action)
            if clone is not None:
                clone.step(action)
                _same(_aec_view(env), _aec_view(clone), f"game {g} step {step}")
            step += 1
