"""The training pipeline: config checking, the opponent pool, snapshots, checkpoints/resume and the smoke run.

The smoke run (configs/train/smoke.yaml: a few thousand steps) goes through everything ``make train`` does:
environments with the opponent pool, self-play snapshots, periodic arena evaluation, checkpoints, the final
policy, the final arena table, report.md/report.json and learning_curve.png.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from uno_env.training.config import ConfigError, TrainConfig, config_from_dict, load_config

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "configs" / "train" / "smoke.yaml"
# the configs of `uno-env train` (MaskablePPO and batched_ppo; configs/train/ also holds rllib_*.yaml)
CONFIGS = [ROOT / "configs" / "train" / f"{n}.yaml"
           for n in ("classic_ppo", "classic_ppo_long", "pocket_ppo", "dice_ppo", "smoke", "classic_sb3",
                     "classic4_ppo", "smoke_batched")]


# ---------------------------------------------------------------------------------------------- config
@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_are_valid(path):
    cfg = load_config(path)
    assert isinstance(cfg, TrainConfig)
    assert cfg.name == path.stem
    assert cfg.total_steps >= cfg.rollout_size


def test_every_game_has_a_config():
    games = {load_config(p).env.game for p in CONFIGS}
    assert games == {"classic", "pocket", "dice"}
    long, default = load_config(CONFIGS[1]), load_config(CONFIGS[0])
    # the default run is the batched trainer's; the long classic run keeps the SB3 recipe, as long as the default
    assert default.algorithm == "batched_ppo" and long.algorithm == "maskable_ppo"
    assert long.env.game == "classic" and long.total_steps >= default.total_steps


def test_defaults_and_overrides():
    cfg = load_config(SMOKE, ["ppo.learning_rate=1e-4", "env.n_envs=8", "policy.net_arch=[32, 32]",
                              "env.rules={stacking: true}", "opponents.baselines.random=2"], total_steps=8192)
    assert cfg.ppo.learning_rate == pytest.approx(1e-4)  # YAML reads 1e-4 as a string; the float key accepts it
    assert cfg.env.n_envs == 8 and cfg.policy.net_arch == [32, 32]
    assert cfg.env.rules == {"stacking": True}
    assert cfg.opponents.baselines["random"] == 2.0
    assert cfg.total_steps == 8192
    assert config_from_dict({}).env.game == "classic"


@pytest.mark.parametrize("data, words", [
    ({"totl_steps": 5}, ["'totl_steps'", "did you mean 'total_steps'", "known keys"]),
    ({"ppo": {"learnig_rate": 0.1}}, ["'ppo.learnig_rate'", "learning_rate", "known keys in ppo"]),
    ({"ppo": {"n_steps": "many"}}, ["'ppo.n_steps'", "expected int", "'many'"]),
    ({"total_steps": 1.5}, ["'total_steps'", "expected int", "1.5"]),
    ({"progress_bar": "yes"}, ["'progress_bar'", "expected bool", "'yes'"]),
    ({"env": {"game": "poker"}}, ["'env.game'", "'classic'", "'poker'"]),
    ({"env": {"learner_seat": 5}}, ["'env.learner_seat'", "0..1"]),
    ({"env": "classic"}, ["'env'", "mapping"]),
    ({"policy": {"net_arch": [64, "wide"]}}, ["'policy.net_arch[1]'", "expected int"]),
    ({"ppo": {"gamma": 1.5}}, ["'ppo.gamma'", "<= 1.0"]),
    ({"ppo": {"batch_size": 100000}}, ["'ppo.batch_size'", "rollout"]),
    ({"opponents": {"baselines": {"grandmaster": 1.0}}}, ["'opponents.baselines'", "'grandmaster'"]),
    ({"evaluation": {"opponents": ["randmo"]}}, ["'evaluation.opponents'", "'randmo'"]),
    ({"env": {"rules": {"stacking": "sometimes"}}}, ["'env.rules'", "stacking"]),
    ({"env": {"rules": "no/such/rules.yaml"}}, ["'env.rules'", "does not exist"]),
    ({"env": {"vec_env": "batched"}}, ["'env.vec_env'", "one baseline"]),
])
def test_bad_config_is_named(data, words):
    with pytest.raises(ConfigError) as info:
        config_from_dict(data)
    msg = str(info.value)
    for w in words:
        assert w in msg, (w, msg)


# the reproducers of values that used to pass the checks and then crash training with a traceback
BAD_VALUES = [
    ("seed=-1", ["'seed'", ">= 0", "-1"]),
    ("seed=5000000000", ["'seed'", f"<= {2**32 - 1}", "5000000000"]),
    ("device=banana", ["'device'", "cpu", "cuda", "'banana'"]),
    ("ppo.learning_rate=.nan", ["'ppo.learning_rate'", "finite", "nan"]),
    ("ppo.gamma=.nan", ["'ppo.gamma'", "finite", "nan"]),
    ("ppo.gamma=.inf", ["'ppo.gamma'", "finite", "inf"]),
    ("evaluation.seed=-5", ["'evaluation.seed'", ">= 0"]),
    ("runs_dir=/proc/nope", ["'runs_dir'", "/proc/nope"]),
    ("algorithm=dqn", ["'algorithm'", "'dqn'", "maskable_ppo"]),
]


@pytest.mark.parametrize("override, words", BAD_VALUES, ids=[b[0] for b in BAD_VALUES])
def test_bad_values_are_refused_before_anything_starts(override, words, tmp_path, capsys):
    from uno_env.cli import main

    with pytest.raises(ConfigError) as info:
        load_config(SMOKE, [override])
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    argv = ["train", "--config", str(SMOKE), "--set", override]
    if not override.startswith("runs_dir"):
        argv += ["--run-dir", str(tmp_path / "r")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words[0] in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("override", ["seed=-1", "seed=5000000000", "ppo.lr=.nan", "ppo.gamma=.nan",
                                      "runs_dir=/proc/nope"])
def test_rllib_config_refuses_the_same_values(override):
    from uno_env.training.config import load_rllib_config

    key = override.split("=")[0]
    with pytest.raises(ConfigError, match=f"'{key}'"):
        load_rllib_config("rllib_classic", [override])


def test_run_dir_that_cannot_be_written(tmp_path, capsys):
    from uno_env.cli import main

    assert main(["train", "--config", str(SMOKE), "--run-dir", "/proc/nope/run"]) == 2
    assert "--run-dir" in capsys.readouterr().err


def test_configs_by_name():
    from uno_env.training.config import packaged_configs, resolve_config

    names = packaged_configs()
    assert {"classic_ppo", "classic_ppo_long", "pocket_ppo", "dice_ppo", "smoke", "rllib_classic"} <= set(names)
    assert load_config("smoke") == load_config(SMOKE)
    assert Path(resolve_config("classic_ppo")).read_text() == (ROOT / "configs/train/classic_ppo.yaml").read_text()
    with pytest.raises(ConfigError, match="did you mean 'classic_ppo'.*packaged configs"):
        load_config("clasic_ppo")


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: [1, 2\n")
    with pytest.raises(ConfigError, match="malformed YAML"):
        load_config(bad)
    top = tmp_path / "list.yaml"
    top.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(top)
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        load_config(SMOKE, ["ppo.learning_rate"])


def _cli(*args, cwd=None, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "uno_env.cli", "train", *args], cwd=cwd or ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_cli_bad_config_fails_before_training(tmp_path):
    from uno_env.cli import main

    t0 = time.time()
    assert main(["train", "--config", str(tmp_path / "missing.yaml")]) == 2
    assert main(["train", "--config", str(SMOKE), "--set", "ppo.nepochs=3", "--run-dir", str(tmp_path / "r")]) == 2
    assert main(["train", "--config", str(SMOKE), "--set", "env.n_envs=two", "--run-dir", str(tmp_path / "r")]) == 2
    assert time.time() - t0 < 30
    assert not (tmp_path / "r").exists()  # nothing was started


def test_cli_error_message(tmp_path):
    r = _cli("--config", str(SMOKE), "--set", "ppo.clip=0.1", "--run-dir", str(tmp_path / "r"), timeout=120)
    assert r.returncode == 2
    assert "unknown config key 'ppo.clip'" in r.stderr and "clip_range" in r.stderr
    assert "Traceback" not in r.stderr


# ---------------------------------------------------------------------------------------------- pool and snapshots
def test_opponent_pool_schedule_and_state():
    from uno_env.training.selfplay import SNAPSHOT_PREFIX, OpponentPool

    pool = OpponentPool({"random": 1.0, "heuristic": 3.0}, selfplay_prob=0.5, latest_prob=0.5, pool_size=2, seed=1)
    draws = pool.sample(4000)
    assert set(draws) == {"random", "heuristic"}
    assert 0.7 < draws.count("heuristic") / 4000 < 0.8
    pool.add_snapshot("/tmp/a.npz", 10)
    assert all(not d.startswith(SNAPSHOT_PREFIX) for d in pool.sample(200))  # self-play not started yet
    pool.selfplay_active = True
    assert pool.add_snapshot("/tmp/b.npz", 20) == []
    assert pool.add_snapshot("/tmp/c.npz", 30) == [os.path.abspath("/tmp/a.npz")]  # pool_size 2
    draws = pool.sample(4000)
    snaps = [d for d in draws if d.startswith(SNAPSHOT_PREFIX)]
    assert 0.45 < len(snaps) / 4000 < 0.55  # baselines stay in the mix
    assert snaps.count(SNAPSHOT_PREFIX + "/tmp/c.npz") > snaps.count(SNAPSHOT_PREFIX + "/tmp/b.npz")
    assert abs(sum(pool.probabilities().values()) - 1.0) < 1e-9
    state = json.loads(json.dumps(pool.state_dict()))
    other = OpponentPool({"random": 1.0, "heuristic": 3.0}, 0.5, 0.5, 2, seed=99)
    other.load_state_dict(state)
    assert other.sample(50) == pool.sample(50)  # the random stream is part of the state


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_snapshot_agent_matches_the_torch_policy(tmp_path, activation):
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    import uno_env  # noqa: F401  (registers the ids)
    from uno_env.agents.policy import load_weights, save_weights
    from uno_env.training.algorithms.maskable_ppo import build
    from uno_env.training.selfplay import SnapshotAgent, export_policy

    cfg = load_config(SMOKE, ["policy.net_arch=[32, 16]", f"policy.activation={activation}"])
    venv = DummyVecEnv([lambda: gym.make("uno_env/Classic-v0", opponents="random")])
    model = build(cfg, venv, str(tmp_path))
    path = str(tmp_path / "w.npz")
    save_weights(export_policy(model.policy), path, {"name": "t"})
    agent = SnapshotAgent(load_weights(path)[0], deterministic=True)
    env = gym.make("uno_env/Classic-v0", opponents="random")
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        mask = obs["action_mask"]
        want, _ = model.predict({k: v[None] for k, v in obs.items()}, action_masks=mask[None].astype(bool),
                                deterministic=True)
        assert agent.act(obs["observation"], mask) == int(want[0])
        assert mask[agent.act(obs["observation"], mask)]
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            obs, _ = env.reset()
    sampler = SnapshotAgent(load_weights(path)[0], deterministic=False, seed=1)
    acts = {sampler.act(obs["observation"], obs["action_mask"]) for _ in range(50)}
    assert all(obs["action_mask"][a] for a in acts)


def test_latest_checkpoint_ignores_incomplete(tmp_path):
    from uno_env.training.checkpoints import COMPLETE_MARK, latest_checkpoint

    root = tmp_path / "checkpoints"
    for name, complete in (("step_000000001024", True), ("step_000000002048", True),
                           ("step_000000003072", False), (".tmp_step_000000004096_1", True)):
        (root / name).mkdir(parents=True)
        if complete:
            (root / name / COMPLETE_MARK).write_text("x")
    assert latest_checkpoint(str(tmp_path)).endswith("step_000000002048")
    assert latest_checkpoint(str(tmp_path / "none")) is None


# ---------------------------------------------------------------------------------------------- the pipeline
def _check_policy_loads(policy: Path, game="classic", num_players=2, allow_pickle=False):
    from uno_env.agents.registry import load_agent
    from uno_env.training.evaluate import run_arena

    agent = load_agent(str(policy), game, seed=0, allow_pickle=allow_pickle)
    env = __import__("uno_env").raw_env(game, num_players=num_players)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])]
    res = run_arena([agent if allow_pickle else str(policy), "random"], game=game, num_players=num_players,
                    rules={"max_turns": 600}, games=4, seed=0)
    assert res.games == 4


def _check_plays_without_torch(policy: Path):
    """The pickle-free policy loads and plays in a process that never imports torch."""
    code = (
        "import sys\n"
        "from uno_env.training.evaluate import run_arena\n"
        f"res = run_arena([{str(policy)!r}, 'random'], rules={{'max_turns': 600}}, games=4, seed=0)\n"
        "assert res.games == 4, res\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_smoke_run_end_to_end(tmp_path):
    pytest.importorskip("sb3_contrib")
    from uno_env.cli import main

    run_dir = tmp_path / "smoke"
    t0 = time.time()
    assert main(["train", "--config", str(SMOKE), "--run-dir", str(run_dir), "--no-progress"]) == 0
    assert time.time() - t0 < 120
    for name in ("report.md", "report.json", "learning_curve.png", "policy.zip", "policy.json", "policy.npz",
                 "config.yaml"):
        assert (run_dir / name).is_file(), name
    assert (run_dir / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"
    report = json.loads((run_dir / "report.json").read_text())
    cfg = load_config(SMOKE)
    assert report["command"] == "uno-env train --config smoke"  # the checkout's path of a packaged config: its name
    assert report["steps"] == cfg.total_steps
    assert report["seed"] == cfg.seed and report["wall_time_seconds"] > 0
    assert [r["opponent"] for r in report["arena"]] == cfg.evaluation.opponents
    for r in report["arena"]:
        assert r["games"] == cfg.evaluation.final_games
        assert 0.0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1.0
    assert len(report["eval_history"]) >= 1
    assert report["pool"], "self-play snapshots were taken"
    md = (run_dir / "report.md").read_text()
    assert "| random |" in md and "| heuristic |" in md and "learning_curve.png" in md
    assert list((run_dir / "tb").rglob("events.out.tfevents*")), "TensorBoard logs"
    meta = json.loads((run_dir / "policy.json").read_text())
    assert meta["game"] == "classic" and meta["num_players"] == 2 and meta["num_actions"] == 181
    _check_policy_loads(run_dir / "policy.npz")
    _check_policy_loads(run_dir, allow_pickle=False)  # the run directory names its policy.npz
    _check_policy_loads(run_dir / "policy.zip", allow_pickle=True)
    _check_plays_without_torch(run_dir / "policy.npz")
    # the same run directory again without --resume is refused, with the way out in the message
    assert main(["train", "--config", str(SMOKE), "--run-dir", str(run_dir)]) == 2


def test_resume_after_kill(tmp_path):
    """A run killed (SIGKILL) right after its first checkpoint resumes and ends with the same step count."""
    pytest.importorskip("sb3_contrib")
    run_dir = tmp_path / "killed"
    total = 8192
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "uno_env.cli", "train", "--config", str(SMOKE), "--run-dir", str(run_dir),
           "--total-steps", str(total), "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ckpt_root = run_dir / "checkpoints"
    deadline = time.time() + 300
    try:
        while time.time() < deadline and proc.poll() is None:
            if ckpt_root.is_dir() and any((p / "COMPLETE").exists() for p in ckpt_root.glob("step_*")):
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed:\n" + (proc.stdout.read() or "")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
        if proc.stdout:
            proc.stdout.close()
    assert not (run_dir / "report.json").exists()
    from uno_env.cli import main

    # what the saved model depends on cannot change on resume; the rest (e.g. evaluation) can
    assert main(["train", "--run-dir", str(run_dir), "--resume", "--set", "ppo.n_epochs=9"]) == 2
    r = _cli("--config", str(SMOKE), "--run-dir", str(run_dir), "--resume", "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "resuming at step" in r.stdout
    report = json.loads((run_dir / "report.json").read_text())
    assert report["steps"] == total
    assert report["sessions"] == 2
    assert report["config"]["total_steps"] == total  # the run's own config came back from the checkpoint
    _check_policy_loads(run_dir / "policy.npz")
    # resuming a finished run only redoes the final evaluation and the report
    r = _cli("--run-dir", str(run_dir), "--config", str(SMOKE), "--resume", "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads((run_dir / "report.json").read_text())["steps"] == total


def test_resume_without_a_run_is_an_error(tmp_path):
    from uno_env.cli import main

    assert main(["train", "--config", str(SMOKE), "--run-dir", str(tmp_path / "nothing"), "--resume"]) == 2


FAKE_TRAINER = '''
"""A stand-in trainer: what a second algorithm must provide (training/algorithms/__init__.py)."""
import json
import numpy as np
from uno_env.agents.policy import PolicyWeights

LABEL = "fake"
ROLLOUT = 512


class _Venv:
    def seed(self, seed):
        self.seeded = seed

    def close(self):
        pass

    def env_method(self, name, *args):
        return [None]


def make_env(cfg, pool, seed):
    return _Venv()


def _weights(game_dims, step):
    obs_dim, num_actions = game_dims
    rng = np.random.default_rng(step)
    return PolicyWeights([rng.normal(size=(num_actions, obs_dim + num_actions)).astype(np.float32)],
                         [np.zeros(num_actions, np.float32)], "tanh", "symlog", True)


def build(cfg, venv, run_dir):
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    g = Game(make_rules(cfg.env.game, cfg.env.num_players, cfg.env.rules))
    return {"steps": 0, "dims": [g.obs_dim, g.num_actions]}


def load(path, cfg, venv, run_dir):
    with open(path) as f:
        return json.load(f)


def learn(model, steps, run):
    target = model["steps"] + steps
    while model["steps"] < target:
        run.between_rollouts(model, model["steps"], lambda key, value: None)
        model["steps"] += ROLLOUT
        run.advance(ROLLOUT)


def num_steps(model):
    return model["steps"]


def save(model, path):
    with open(path, "w") as f:
        json.dump(model, f)


def export(model):
    return _weights(model["dims"], model["steps"])
'''


def test_a_second_algorithm_is_one_module_and_one_entry(tmp_path, monkeypatch):
    """A trainer plugs in through training.algorithms.ALGORITHMS alone: the run directory, pool snapshots,
    evaluations, checkpoints, the pickle-free policy and the report come from the shared modules."""
    from uno_env.cli import main
    from uno_env.training.algorithms import ALGORITHMS

    (tmp_path / "fake_trainer.py").write_text(FAKE_TRAINER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(ALGORITHMS, "fake", "fake_trainer")
    run_dir = tmp_path / "run"
    assert main(["train", "--config", str(SMOKE), "--set", "algorithm=fake", "--run-dir", str(run_dir),
                 "--no-progress", "--set", "tensorboard=false"]) == 0
    report = json.loads((run_dir / "report.json").read_text())
    assert report["steps"] == 4096 and report["config"]["algorithm"] == "fake"
    assert report["pool"] and report["eval_history"]
    assert json.loads((run_dir / "policy.json").read_text())["algorithm"] == "fake"
    assert (run_dir / "policy.zip").is_file()  # the trainer's own save, whatever its format
    _check_policy_loads(run_dir / "policy.npz")


def test_a_device_this_machine_lacks_is_an_error_before_training(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    from uno_env.cli import main

    assert main(["train", "--config", str(SMOKE), "--set", "device=cuda:0", "--run-dir", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "'device'" in err and "not available" in err
    assert not (tmp_path / "r").exists()


def test_the_pool_in_rllib_mode_draws_snapshots_baselines_and_the_learner():
    from uno_env.training.pool import SELF, SNAPSHOT_PREFIX, OpponentPool

    pool = OpponentPool({"random": 1.0, "heuristic": 1.0}, selfplay_prob=0.3, latest_prob=1.0, pool_size=2,
                        seed=3, baseline_prob=0.3)
    before = pool.sample(4000)
    assert before.count(SELF) / 4000 == pytest.approx(0.7, abs=0.03)  # no snapshot yet: the learner instead
    pool.selfplay_active = True
    pool.snapshots = [{"name": "old", "path": "slot0", "step": 0}, {"name": "new", "path": "slot1", "step": 0}]
    draws = pool.sample(8000)
    assert set(draws) == {SELF, "random", "heuristic", SNAPSHOT_PREFIX + "slot1"}  # latest_prob 1: the newest
    share = {k: draws.count(k) / 8000 for k in set(draws)}
    assert share[SNAPSHOT_PREFIX + "slot1"] == pytest.approx(0.3, abs=0.03)
    assert share["random"] + share["heuristic"] == pytest.approx(0.3, abs=0.03)
    assert share[SELF] == pytest.approx(0.4, abs=0.03)
    probs = pool.probabilities()
    assert sum(probs.values()) == pytest.approx(1.0) and probs[SELF] == pytest.approx(0.4)
