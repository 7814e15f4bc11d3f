"""The batched PPO trainer (``algorithm: batched_ppo``): a smoke run, an exact resume, its config checks, the pool's
win-rate sampling, and the torch thread count left alone by the environments."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from uno_env.training.config import ConfigError, load_config
from uno_env.training.pool import SNAPSHOT_PREFIX, OpponentPool

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "configs" / "train" / "smoke_batched.yaml"
FAST = ["--set", "evaluation.games=10", "--set", "evaluation.final_games=20", "--no-progress"]


def _train(run_dir: Path, *extra: str) -> int:
    from uno_env.training.train import main

    return main(["--config", str(SMOKE), "--run-dir", str(run_dir), *FAST, *extra])


def _weights(run_dir: Path) -> list[np.ndarray]:
    with np.load(run_dir / "policy.npz", allow_pickle=False) as z:
        return [z[k] for k in sorted(z.files) if k != "meta"]


def test_smoke_run_then_an_exact_resume(tmp_path):
    """A run stopped at its first checkpoint and resumed ends with the very weights of the uninterrupted run."""
    whole = tmp_path / "whole"
    assert _train(whole) == 0
    report = json.loads((whole / "report.json").read_text())
    assert report["steps"] == 4096 and report["config"]["algorithm"] == "batched_ppo"
    assert {r["opponent"] for r in report["arena"]} == {"random", "heuristic"}
    assert report["pool"], "self-play snapshots joined the pool"
    assert any((whole / "tb").rglob("events.out.tfevents.*"))
    assert (whole / "learning_curve.png").stat().st_size > 0
    meta = json.loads((whole / "policy.json").read_text())
    assert meta["algorithm"] == "uno_env.batched_ppo" and meta["game"] == "classic"

    # the same run, as if stopped after its checkpoint at step 2048: remove what came later, then --resume
    uninterrupted = _weights(whole)
    for name in ("policy.npz", "policy.json", "policy.zip", "report.json", "report.md", "learning_curve.png"):
        (whole / name).unlink()
    shutil.rmtree(whole / "checkpoints" / "step_000000004096")
    assert _train(whole, "--resume") == 0
    resumed = json.loads((whole / "report.json").read_text())
    assert resumed["sessions"] == 2 and resumed["steps"] == 4096
    for a, b in zip(uninterrupted, _weights(whole)):
        np.testing.assert_array_equal(a, b)


def test_shipped_batched_configs_are_valid():
    for name in ("smoke_batched", "classic_ppo"):
        cfg = load_config(name)
        if cfg.algorithm == "batched_ppo":
            assert cfg.env.vec_env == "batched"


@pytest.mark.parametrize("override, words", [
    (["algorithm=batched_ppo", "env.vec_env=dummy"], ["'env.vec_env'", "batched_ppo", "batched"]),
    (["algorithm=maskable_ppo", "env.vec_env=dummy", "opponents.sampling=win_rate"],
     ["'opponents.sampling'", "batched_ppo"]),
    (["algorithm=maskable_ppo", "env.vec_env=dummy", "policy.shared_trunk=true"],
     ["'policy.shared_trunk'", "batched_ppo"]),
    (["opponents.sampling=often"], ["'opponents.sampling'", "'fixed'", "'win_rate'"]),
    (["algorithm=maskable_ppo", "env.vec_env=dummy", "policy.advice=heuristic"], ["'policy.advice'", "batched_ppo"]),
    (["policy.advice=greedy"], ["'policy.advice'", "'none'", "'heuristic'"]),
    (["policy.advice_gain=-1"], ["'policy.advice_gain'"]),
])
def test_config_checks_name_the_key(override, words):
    with pytest.raises(ConfigError) as e:
        load_config(SMOKE, override)
    for w in words:
        assert w in str(e.value)


def test_pool_draws_more_often_the_members_that_beat_the_learner():
    pool = OpponentPool({"random": 1.0, "heuristic": 1.0}, selfplay_prob=0.0, seed=0, sampling="win_rate")
    for _ in range(400):
        pool.record_result("random", True)
        pool.record_result("heuristic", False)
    draws = [pool.draw() for _ in range(2000)]
    assert draws.count("heuristic") > 10 * draws.count("random") > 0
    assert pool.win_rates()["random"] > 0.9 > 0.1 > pool.win_rates()["heuristic"]
    state = pool.state_dict()
    other = OpponentPool({"random": 1.0, "heuristic": 1.0}, seed=1, sampling="win_rate")
    other.load_state_dict(state)
    assert other.win_rates() == pool.win_rates()
    assert [other.draw() for _ in range(50)] == [pool.draw() for _ in range(50)]
    fixed = OpponentPool({"random": 1.0, "heuristic": 1.0}, seed=0)
    fixed.record_result("random", True)
    assert not fixed.track_results


def test_snapshots_in_the_pool_are_weighted_too(tmp_path):
    pool = OpponentPool({"random": 1.0}, selfplay_prob=1.0, latest_prob=0.0, seed=0, sampling="win_rate")
    pool.selfplay_active = True
    pool.add_snapshot(str(tmp_path / "a.npz"), 1)
    pool.add_snapshot(str(tmp_path / "b.npz"), 2)
    for _ in range(300):
        pool.record_result(SNAPSHOT_PREFIX + str(tmp_path / "a.npz"), True)
    draws = [pool.draw() for _ in range(1000)]
    assert sum(d.endswith("b.npz") for d in draws) > 10 * sum(d.endswith("a.npz") for d in draws)


def test_environments_leave_torch_threads_alone():
    """Only the trainer sets torch's thread count (from ``torch_threads``); the simulator's threads are its own."""
    from uno_env.vector import RandomLegalPolicy, UnoSingleAgentVectorEnv

    before = torch.get_num_threads()
    env = UnoSingleAgentVectorEnv("classic", 64, opponents="heuristic", seed=0, num_threads=2)
    obs, masks = env.reset()
    pol = RandomLegalPolicy(0)
    for _ in range(20):
        obs, masks, *_ = env.step(pol.act_batch(obs, masks))
    assert torch.get_num_threads() == before


class _NoRun:
    def between_rollouts(self, model, step, record):
        pass

    def advance(self, n):
        pass


def _agreement_with_heuristic(model, env, decisions: int, advised: bool = False) -> float:
    """Share of the learner's decisions with a choice (two legal actions or more) on which the policy's most likely
    action is the compiled heuristic's (``advised``: the network is told the heuristic's choice)."""
    obs, masks = env.reset()
    teacher = np.zeros(env.num_envs, dtype=np.int64)
    same = total = 0
    while total < decisions:
        env.teacher_actions(obs, masks, teacher)
        with torch.no_grad():
            m = torch.from_numpy(masks != 0)
            advice = torch.from_numpy(teacher.copy()) if advised else None
            logits, _ = model.net.heads(model.net.features(torch.from_numpy(obs.copy()), m, advice))
            mine = logits.masked_fill(~m, -1e9).argmax(-1).numpy()
        choice = (masks != 0).sum(1) > 1
        same += int((mine == teacher)[choice].sum())
        total += int(choice.sum())
        obs, masks, *_ = env.step(teacher)
    return same / total


@pytest.fixture
def one_torch_thread():
    """What the trainer sets from ``torch_threads``: small ops on 2 threads crawl on a loaded machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_vf_coef_weighs_the_critic_as_in_maskable_ppo():
    """One config gives the critic the same weight in both trainers: the value loss is the mean squared error, as
    SB3's PPO computes it (``F.mse_loss``), not half of it as CleanRL's."""
    from uno_env.training.algorithms.batched_ppo import value_loss

    g = torch.Generator().manual_seed(0)
    values, returns = torch.randn(64, generator=g, requires_grad=True), torch.randn(64, generator=g)
    ours = value_loss(values, returns)
    sb3 = torch.nn.functional.mse_loss(returns, values)
    assert ours.item() == pytest.approx(sb3.item(), rel=1e-6)
    (grad_ours,) = torch.autograd.grad(0.5 * ours, values)
    (grad_sb3,) = torch.autograd.grad(0.5 * torch.nn.functional.mse_loss(returns, values), values)
    torch.testing.assert_close(grad_ours, grad_sb3)


def test_learn_goes_on_with_the_games_where_the_last_call_left_them(tmp_path, one_torch_thread):
    """``learn(model, steps)`` trains for ``steps`` more steps of the same games, as MaskablePPO's does: two calls
    give the very weights of one call as long. (It restarted every game from the env's seed on each call, so a
    caller training in chunks saw the same deals' openings again and again.)"""
    from uno_env.training.algorithms import batched_ppo as algo

    cfg = load_config(SMOKE, ["env.n_envs=16", "ppo.n_steps=16", "ppo.batch_size=64", "tensorboard=false",
                              "opponents.selfplay_start=1.0"])

    def trained(chunks: list[int]):
        torch.manual_seed(0)
        env = algo.make_env(cfg, OpponentPool(cfg.opponents.baselines, 0.0, seed=0), 0)
        model = algo.build(cfg, env, str(tmp_path))
        for steps in chunks:
            algo.learn(model, steps, _NoRun())
        return model

    rollout = 16 * 16
    whole, chunked = trained([8 * rollout]), trained([3 * rollout, 5 * rollout])
    assert algo.num_steps(whole) == algo.num_steps(chunked) == 8 * rollout
    for a, b in zip(whole.net.parameters(), chunked.net.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    np.testing.assert_array_equal(whole.games[0], chunked.games[0])
    restarted = trained([3 * rollout])
    restarted.games = None  # what every call did before
    algo.learn(restarted, 5 * rollout, _NoRun())
    assert any(not torch.equal(a, b) for a, b in zip(whole.net.parameters(), restarted.net.parameters()))


def test_imitation_learns_the_heuristics_choices(tmp_path, one_torch_thread):
    """``ppo.imitation_steps``: the heuristic plays the learner's seat and the network learns to choose as it does."""
    from uno_env.training.algorithms import batched_ppo as algo

    cfg = load_config(SMOKE, ["env.n_envs=64", "ppo.n_steps=32", "ppo.batch_size=1024", "ppo.n_epochs=4",
                              "ppo.learning_rate=3e-3", "ppo.imitation_steps=100000", "tensorboard=false",
                              "opponents.baselines={heuristic: 1.0}", "opponents.selfplay_start=1.0"])
    torch.manual_seed(0)
    pool = OpponentPool(cfg.opponents.baselines, 0.0, seed=0)
    env = algo.make_env(cfg, pool, 0)
    model = algo.build(cfg, env, str(tmp_path))
    before = _agreement_with_heuristic(model, env, 4096)
    algo.learn(model, 6 * 2048, _NoRun())
    after = _agreement_with_heuristic(model, env, 4096)
    assert before < 0.4 and after > 0.75, (before, after)


def test_the_numpy_player_chooses_as_the_torch_policy_also_in_float16(tmp_path, one_torch_thread):
    """The exported actor, stored as float16 (as the shipped policies are) and played with numpy, gives the torch
    network's logits within a small tolerance and the same most likely action on observations of real games."""
    from uno_env.agents.policy import NumpyPolicyAgent, save_policy_files
    from uno_env.training.algorithms import batched_ppo as algo

    cfg = load_config(SMOKE, ["env.n_envs=256", "policy.net_arch=[128, 128]", "policy.activation=relu",
                              "policy.shared_trunk=true", "tensorboard=false"])
    torch.manual_seed(0)
    env = algo.make_env(cfg, OpponentPool(cfg.opponents.baselines, 0.0, seed=0), 0)
    net = algo.build(cfg, env, str(tmp_path)).net
    with torch.no_grad():  # logits as spread out as a trained policy's (the initial last layer is near zero)
        net.actor[-1].weight.mul_(300.0)
    obs, masks = env.reset()
    teacher = np.zeros(env.num_envs, dtype=np.int64)
    batches = []
    for _ in range(8):
        batches.append((obs.copy(), masks.copy()))
        env.teacher_actions(obs, masks, teacher)
        obs, masks, *_ = env.step(teacher)
    obs, masks = (np.concatenate(x) for x in zip(*batches))
    path = save_policy_files(net.export(), str(tmp_path / "p.npz"), {"game": "classic", "num_players": 2},
                             dtype=np.float16)
    agent = NumpyPolicyAgent.load(path, "classic", deterministic=True)
    m = torch.from_numpy(masks != 0)
    with torch.no_grad():
        ref = net.heads(net.features(torch.from_numpy(obs), m))[0].masked_fill(~m, -1e9).numpy()
    mine = agent.weights.logits(obs, masks)
    legal = masks != 0
    spread = ref[legal].std()
    assert np.abs(mine[legal] - ref[legal]).max() < 0.02 * spread
    same = agent.act_batch(obs, masks) == ref.argmax(1)
    assert same.mean() > 0.99, same.mean()


def test_the_residual_policy_exports_the_torch_logits_with_its_advice(tmp_path, one_torch_thread):
    """``policy.advice: heuristic`` with ``advice_gain``: the torch network and its numpy export (which computes
    the advice with the compiled heuristic) give the same logits on real games; the untrained policy's most likely
    action is the heuristic's, and the imitation steps warm up the critic only."""
    from uno_env.agents.policy import NumpyPolicyAgent, heuristic_advisor, save_policy_files
    from uno_env.config import make_rules
    from uno_env.training.algorithms import batched_ppo as algo

    cfg = load_config(SMOKE, ["env.n_envs=128", "policy.advice=heuristic", "policy.advice_gain=3.0",
                              "policy.shared_trunk=true", "ppo.imitation_steps=4096", "tensorboard=false",
                              "opponents.selfplay_start=1.0"])
    torch.manual_seed(0)
    env = algo.make_env(cfg, OpponentPool(cfg.opponents.baselines, 0.0, seed=0), 0)
    model = algo.build(cfg, env, str(tmp_path))
    actor_before = [p.detach().clone() for p in model.net.actor[-1].parameters()]
    assert _agreement_with_heuristic(model, env, 2048, advised=True) == 1.0
    algo.learn(model, 4096, _NoRun())
    for a, b in zip(actor_before, model.net.actor[-1].parameters()):
        torch.testing.assert_close(a, b.detach())  # imitation left the policy's own output layer alone
    obs, masks = env.reset()
    teacher = np.zeros(env.num_envs, dtype=np.int64)
    env.teacher_actions(obs, masks, teacher)
    path = save_policy_files(model.net.export(), str(tmp_path / "p.npz"), {"game": "classic", "num_players": 2})
    rules = make_rules("classic", 2, cfg.env.rules)
    agent = NumpyPolicyAgent.load(path, rules, deterministic=True)
    advice = heuristic_advisor(rules)(obs, masks)
    np.testing.assert_array_equal(advice, teacher)  # the player's advice is the trainer's teacher
    m = torch.from_numpy(masks != 0)
    with torch.no_grad():
        x = model.net.features(torch.from_numpy(obs.copy()), m, torch.from_numpy(teacher))
        ref = model.net.heads(x)[0].numpy()
    mine = agent.weights.logits(obs, masks, advice)
    legal = masks != 0
    np.testing.assert_allclose(mine[legal], ref[legal], atol=1e-4)


