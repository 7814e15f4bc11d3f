"""Ray RLlib integration (needs the ``rllib`` extra; skipped without it).

* the adapter: RLlib's own multi-agent env check, turn-by-turn observations of the acting seat only, the
  renamed float observation, rewards at the end for every seat, ``render()``;
* the modules: masking never picks an illegal action, the baseline module plays its agent;
* the seat mapping: one anchor seat is always ``main``; opponents drawn as configured;
* the smoke run: two PPO iterations in local mode (no EnvRunner or Learner actors) on 2-player classic, a
  checkpoint saved and restored, and the policy played in the arena.
"""
from __future__ import annotations

import json
import pickle
import time
from types import SimpleNamespace

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from uno_env.training.rllib_adapter import UnoMultiAgentEnv  # noqa: E402
from uno_env.training.rllib_module import (  # noqa: E402
    METADATA_FILE,
    BaselineRLModule,
    MaskedActorCriticModule,
    is_rllib_checkpoint,
    load_rllib_agent,
)
from uno_env.training.rllib_train import (  # noqa: E402
    BASELINE_PREFIX,
    MAIN,
    SNAPSHOT_PREFIX,
    SeatMapping,
    build_algorithm_config,
    load_rllib_config,
    restore_checkpoint,
    save_checkpoint,
    summarize,
)

SMALL = {"game": "classic", "num_players": 2, "rules": "rlcard"}


def _spaces(env_cfg=SMALL):
    env = UnoMultiAgentEnv(env_cfg)
    a0 = env.possible_agents[0]
    return env.observation_spaces[a0], env.action_spaces[a0]


# ---------------------------------------------------------------------------------------------- adapter
@pytest.mark.parametrize("game,n", [("classic", 2), ("pocket", 3), ("dice", 4)])
def test_adapter_passes_rllib_env_check(game, n):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    check_multiagent_environments(UnoMultiAgentEnv({"game": game, "num_players": n}))


def test_adapter_turns_observations_and_rewards():
    env = UnoMultiAgentEnv(dict(SMALL, render_mode="ansi"))
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["action_mask"].dtype == np.float32 and space["observations"].dtype == np.float32
    obs, _ = env.reset(seed=7)
    rng = np.random.default_rng(0)
    for _ in range(3):
        steps = 0
        while True:
            assert len(obs) == 1  # only the acting seat observes between turns
            (agent, o), = obs.items()
            assert agent == env.aec.agent_selection
            assert space.contains(o)
            assert o["action_mask"].sum() >= 1
            obs, rew, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
            steps += 1
            if term["__all__"] or trunc["__all__"]:
                break
            assert set(rew.values()) <= {0.0}
        # the end: every seat gets its last observation (no legal action) and its reward; win_loss sums to 0
        assert set(obs) == set(env.possible_agents) == set(rew)
        assert all(not o["action_mask"].any() for o in obs.values())
        assert sorted(rew.values()) == [-1.0, 1.0]
        assert steps > 5
        obs, _ = env.reset()
    text = env.render()
    assert isinstance(text, str) and "player_0" in text
    assert UnoMultiAgentEnv(SMALL).render() is None


def test_adapter_rejects_out_of_turn_action_and_unknown_keys():
    env = UnoMultiAgentEnv(SMALL)
    obs, _ = env.reset(seed=1)
    (agent,) = obs
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match="turn"):
        env.step({other: 0})
    with pytest.raises(ValueError, match="unknown env_config"):
        UnoMultiAgentEnv({"gaem": "classic"})


# ---------------------------------------------------------------------------------------------- modules
def _batch(obs_list):
    return {"obs": {"observations": torch.as_tensor(np.stack([o["observations"] for o in obs_list])),
                    "action_mask": torch.as_tensor(np.stack([o["action_mask"] for o in obs_list]))}}


def _some_observations(k=16, seed=0):
    env = UnoMultiAgentEnv(SMALL)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < k:
        (agent, o), = obs.items()
        out.append(o)
        obs, _, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        if term["__all__"]:
            obs, _ = env.reset()
    return out


def test_masked_module_only_legal_actions_and_values():
    from ray.rllib.core.columns import Columns

    obs_space, act_space = _spaces()
    module = MaskedActorCriticModule(observation_space=obs_space, action_space=act_space,
                                     model_config={"hiddens": [32]})
    obs = _some_observations()
    batch = _batch(obs)
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    dist = torch.distributions.Categorical(logits=logits)
    masks = batch["obs"]["action_mask"]
    for _ in range(20):
        a = dist.sample()
        assert bool((masks.gather(1, a[:, None]) == 1).all())
    assert module.compute_values(_batch(obs)).shape == (len(obs),)
    # an all-zero mask (a terminal observation) must not produce NaNs
    zero = {"obs": {"observations": batch["obs"]["observations"][:1], "action_mask": torch.zeros_like(masks[:1])}}
    assert torch.isfinite(torch.softmax(module.forward_train(zero)[Columns.ACTION_DIST_INPUTS], -1)).all()
    # the EnvRunners' inference-only copy has no value network
    small = MaskedActorCriticModule(observation_space=obs_space, action_space=act_space, inference_only=True,
                                    model_config={"hiddens": [32]})
    assert not hasattr(small, "vf")


def test_baseline_module_plays_its_agent():
    from ray.rllib.core.columns import Columns

    obs_space, act_space = _spaces()
    module = BaselineRLModule(observation_space=obs_space, action_space=act_space,
                              model_config=dict(SMALL, agent="greedy", seed=0))
    obs = _some_observations()
    actions = module.forward_exploration(_batch(obs))[Columns.ACTIONS].numpy()
    for a, o in zip(actions, obs):
        assert o["action_mask"][a] == 1
    expected = module.agent.act_batch(np.stack([o["observations"] for o in obs]),
                                      np.stack([o["action_mask"] for o in obs]).astype(np.int8))
    assert list(actions) == list(expected)


# ---------------------------------------------------------------------------------------------- seats
def test_seat_mapping():
    ep = lambda i: SimpleNamespace(id_=f"episode-{i}")  # noqa: E731
    shared = SeatMapping(3, {"random": 1.0}, baseline_prob=0.0, selfplay_prob=0.0, pool_size=2, latest_prob=0.5)
    assert shared.module_ids() == [MAIN]
    assert all(shared(f"player_{s}", ep(i)) == MAIN for i in range(20) for s in range(3))

    vs = SeatMapping(3, {"random": 1.0, "greedy": 0.0}, baseline_prob=1.0, selfplay_prob=0.0, pool_size=2,
                     latest_prob=0.5)
    assert vs.module_ids() == [MAIN, BASELINE_PREFIX + "random"]
    anchors = set()
    for i in range(60):
        ids = [vs(f"player_{s}", ep(i)) for s in range(3)]
        assert ids.count(MAIN) == 1 and ids.count(BASELINE_PREFIX + "random") == 2
        anchors.add(ids.index(MAIN))
    assert anchors == {0, 1, 2}

    sp = SeatMapping(2, {"random": 1.0}, baseline_prob=0.0, selfplay_prob=1.0, pool_size=2, latest_prob=0.0)
    assert all(MAIN == sp(f"player_{s}", ep(i)) for i in range(10) for s in range(2))  # no snapshot yet
    sp.snapshots_taken = 3
    seen = {sp(f"player_{s}", ep(i)) for i in range(60) for s in range(2)}
    assert seen == {MAIN, SNAPSHOT_PREFIX + "0", SNAPSHOT_PREFIX + "1"}
    clone = pickle.loads(pickle.dumps(sp))
    assert clone.snapshots_taken == 3 and clone.pool.rng is None


def test_shipped_config_is_valid():
    cfg = load_rllib_config("configs/train/rllib_classic.yaml")
    assert cfg.env.game == "classic" and cfg.resources.num_env_runners >= 1


# ---------------------------------------------------------------------------------------------- smoke run
@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield
    if started:
        ray.shutdown()


def test_smoke_train_checkpoint_restore_arena(local_ray, tmp_path):
    from uno_env.training.evaluate import run_arena

    torch.set_num_threads(1)
    t0 = time.time()
    cfg = load_rllib_config(None, [
        "env.game=classic", "env.num_players=2", "env.rules=rlcard",
        "resources.num_env_runners=0", "resources.num_envs_per_env_runner=2",  # local mode: no actors
        "module.hiddens=[32, 32]",
        "ppo.train_batch_size_per_learner=256", "ppo.minibatch_size=128", "ppo.num_epochs=1",
        # every kind of opponent: main itself, a snapshot (taken after iteration 1), the random baseline
        "opponents.baselines={random: 1.0}", "opponents.baseline_prob=0.3", "opponents.selfplay_prob=0.3",
        "opponents.selfplay_start=1", "opponents.snapshot_every=1", "opponents.pool_size=2",
        "evaluation.every=2", "evaluation.games=4", "evaluation.opponents=[random]",
        f"runs_dir={tmp_path}", "stop.iterations=2",
    ])
    algo = build_algorithm_config(cfg).build_algo()
    try:
        results = [summarize(algo.train()) for _ in range(2)]
        assert [r["iteration"] for r in results] == [1, 2]
        assert all(r["env_steps"] and r["env_steps"] >= 256 for r in results)
        assert results[-1]["policy_loss"] is not None
        assert results[-1]["selfplay"]["snapshots_taken"] == 2
        arena = results[-1]["arena"]  # the periodic arena evaluation at iteration 2
        assert arena is not None and 0.0 <= arena["win_rate_vs_random"] <= 1.0
        saved = algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        ckpt = save_checkpoint(algo, cfg, tmp_path / "ckpt")
    finally:
        algo.stop()
    assert is_rllib_checkpoint(ckpt) and json.loads((ckpt / METADATA_FILE).read_text())["game"] == "classic"

    # restore into a fresh Algorithm: same iteration, weights and snapshot count
    algo2 = build_algorithm_config(cfg).build_algo()
    try:
        restore_checkpoint(algo2, ckpt)
        assert algo2.iteration == 2
        assert algo2.config.policy_mapping_fn.snapshots_taken == 2
        restored = algo2.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        assert set(restored) == set(saved)
        for k in saved:
            np.testing.assert_array_equal(np.asarray(restored[k]), np.asarray(saved[k]))
    finally:
        algo2.stop()

    # the trained policy as an arena agent
    agent = load_rllib_agent(ckpt, "classic", seed=0)
    assert agent.act(_some_observations(1)[0]["observations"],
                     _some_observations(1)[0]["action_mask"].astype(np.int8)) >= 0
    # the checkpoint's pickle-free policy.npz plays the same actions with numpy; by path it is what loads by
    # default, the RLlib checkpoint itself only when trusted
    from uno_env.agents.policy import NumpyPolicyAgent
    from uno_env.agents.registry import load_agent
    from uno_env.agents.rllib_policy import RllibPolicyAgent

    npz_agent = load_agent(str(ckpt), "classic")
    assert isinstance(npz_agent, NumpyPolicyAgent)
    assert isinstance(load_agent(str(ckpt), "classic", allow_pickle=True), RllibPolicyAgent)
    obs = np.stack([o["observations"] for o in _some_observations(8)])
    masks = np.stack([o["action_mask"] for o in _some_observations(8)]).astype(np.int8)
    np.testing.assert_array_equal(npz_agent.act_batch(obs, masks), agent.act_batch(obs, masks))
    # the arena finds it by path, as `uno-env evaluate CHECKPOINT random` does
    res = run_arena([str(ckpt), "random"], game="classic", num_players=2, rules="rlcard", games=4, seed=0)
    assert res.games == 4 and res.truncated == 0
    assert sum(a.wins for a in res.agents) == 4
    assert pickle.loads(pickle.dumps(agent)).act_batch(
        np.stack([o["observations"] for o in _some_observations(4)]),
        np.stack([o["action_mask"] for o in _some_observations(4)]).astype(np.int8)).shape == (4,)
    with pytest.raises(ValueError, match="observations"):
        load_rllib_agent(ckpt, "dice")
    assert time.time() - t0 < 120
