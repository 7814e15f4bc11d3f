"""Bad input to the training commands: refused up front with one line naming the option, never run as code.

* resuming a ``maskable_ppo`` run reads only tensors from its ``model.zip`` (a crafted zip's pickles never run);
* ``uno-env train-rllib --restore`` needs ``--trust-pickle`` and a real checkpoint, checked before Ray starts;
* every size a typo can blow up (environments, layers, games, workers, threads ...) has an upper bound;
* ``uno-env evaluate`` checks its numbers and its ``--json`` path before the first game;
* a config that is not UTF-8, an opponent that cannot play the table, a name no file system takes, and a damaged
  checkpoint ``state.json`` are one-line errors that leave no half-made run directory.
"""
from __future__ import annotations

import base64
import io
import json
import pickle
import shutil
import zipfile
from pathlib import Path

import pytest

from uno_env.training.config import ConfigError, config_from_dict, load_config, load_rllib_config

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "configs" / "train" / "smoke.yaml"
SMOKE_BATCHED = ROOT / "configs" / "train" / "smoke_batched.yaml"


def _cli(argv, capsys):
    from uno_env.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _assert_one_line_error(code, err, *words):
    assert code == 2, err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    for w in words:
        assert w in err, (w, err)


class _Payload:
    """Unpickling this writes ``path``: the stand-in for the code a crafted file would run."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (exec, (f"open({self.path!r}, 'w').write('pwned')",))


# ---------------------------------------------------------------------------------------------- 1. resume
@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """A finished 1,024-step maskable_ppo run (one rollout) with its final checkpoint."""
    pytest.importorskip("sb3_contrib")
    from uno_env.cli import main

    run_dir = tmp_path_factory.mktemp("train") / "small"
    assert main(["train", "--config", str(SMOKE), "--run-dir", str(run_dir), "--no-progress", "--total-steps", "1024",
                 "--set", "evaluation.every=0", "--set", "evaluation.final_games=2",
                 "--set", "evaluation.opponents=[random]", "--set", "tensorboard=false"]) == 0
    return run_dir


def _copy_run(src: Path, dst: Path) -> tuple[Path, Path]:
    from uno_env.training.checkpoints import latest_checkpoint

    shutil.copytree(src, dst)
    ckpt = latest_checkpoint(str(dst))
    assert ckpt is not None
    return dst, Path(ckpt)


def _rewrite_zip(path: Path, change) -> None:
    """Rewrite the zip at ``path`` with ``change(name, bytes) -> bytes`` applied to every entry."""
    tmp = path.with_suffix(".new")
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for item in zin.infolist():
            zout.writestr(item, change(item.filename, zin.read(item.filename)))
    tmp.replace(path)


def _poison_data(model_zip: Path, marker: Path) -> None:
    """Add an entry to the zip's ``data`` JSON as SB3 stores pickled objects: SB3's own loader unpickles it."""
    blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode()

    def change(name, data):
        if name != "data":
            return data
        d = json.loads(data)
        d["zz_payload"] = {":type:": "<class 'int'>", ":serialized:": blob}
        return json.dumps(d).encode()

    _rewrite_zip(model_zip, change)


def test_resume_loads_only_tensors_from_the_checkpoint_model(small_run, tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    from uno_env.training.algorithms import maskable_ppo
    from uno_env.training.checkpoints import load_checkpoint_state
    from uno_env.training.pool import OpponentPool

    run_dir, ckpt = _copy_run(small_run, tmp_path / "run")
    model_zip = ckpt / "model.zip"
    marker = tmp_path / "marker"
    _poison_data(model_zip, marker)
    state = load_checkpoint_state(str(ckpt))
    cfg = config_from_dict(state["config"])
    o = cfg.opponents
    venv = maskable_ppo.make_env(cfg, OpponentPool(o.baselines, o.selfplay_prob, o.latest_prob, o.pool_size, seed=0),
                                 0)
    try:
        model = maskable_ppo.load(str(model_zip), cfg, venv, str(run_dir))
    finally:
        venv.close()
    assert not marker.exists(), "the checkpoint's pickled data was run"
    assert model.num_timesteps == state["step"] == 1024
    with zipfile.ZipFile(model_zip) as z:
        weights = torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
        optimizer = torch.load(io.BytesIO(z.read("policy.optimizer.pth")), weights_only=True)
    mine = model.policy.state_dict()
    assert set(mine) == set(weights)
    for k, v in weights.items():
        assert torch.equal(mine[k], v), k
    # the optimizer's moments come back too, so the resumed run takes the steps the uninterrupted one would
    restored = model.policy.optimizer.state_dict()["state"]
    assert restored and set(restored) == set(optimizer["state"])
    for i, s in optimizer["state"].items():
        for name, t in s.items():
            assert torch.equal(restored[i][name], t), (i, name)
    # the payload is live: SB3's own loader, which resume used to call, runs it
    try:
        MaskablePPO.load(str(model_zip), device="cpu")
    except Exception:
        pass
    assert marker.exists()


def test_resume_of_a_crafted_run_continues_without_running_its_pickles(small_run, tmp_path, capsys):
    run_dir, ckpt = _copy_run(small_run, tmp_path / "run")
    marker = tmp_path / "marker"
    _poison_data(ckpt / "model.zip", marker)
    code, out, err = _cli(["train", "--run-dir", run_dir, "--resume", "--total-steps", "2048", "--no-progress"], capsys)
    assert code == 0, out + err
    assert "resuming at step 1,024" in out
    assert not marker.exists()
    report = json.loads((run_dir / "report.json").read_text())
    assert report["steps"] == 2048 and report["sessions"] == 2


def test_a_crafted_tensor_file_in_the_checkpoint_is_refused(small_run, tmp_path, capsys):
    run_dir, ckpt = _copy_run(small_run, tmp_path / "run")
    marker = tmp_path / "marker"
    _rewrite_zip(ckpt / "model.zip",
                 lambda name, data: pickle.dumps(_Payload(marker)) if name == "policy.pth" else data)
    code, out, err = _cli(["train", "--run-dir", run_dir, "--resume", "--total-steps", "2048", "--no-progress"], capsys)
    _assert_one_line_error(code, err, "cannot load the checkpoint's model", "model.zip")
    assert not marker.exists()


# ---------------------------------------------------------------------------------------------- 2. rllib --restore
@pytest.fixture
def no_ray(monkeypatch):
    """The rllib command module, with Ray's start replaced by a failure: these checks must come first."""
    pytest.importorskip("ray.rllib")
    from uno_env.training import rllib_train

    def refuse(cfg):
        raise AssertionError("Ray was started before --restore was checked")

    monkeypatch.setattr(rllib_train, "_init_ray", refuse)
    return rllib_train


def _fake_checkpoint(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "rllib_checkpoint.json").write_text("{}")
    return path


def test_rllib_restore_needs_trust_pickle(no_ray, tmp_path, capsys):
    ckpt = _fake_checkpoint(tmp_path / "ckpt")
    code, _, err = _cli(["train-rllib", "--set", f"runs_dir={tmp_path}", "--restore", ckpt], capsys)
    _assert_one_line_error(code, err, "--restore", "unpickles", "--trust-pickle")
    # a run directory names its final/ checkpoint, and is refused the same way
    run = tmp_path / "run"
    _fake_checkpoint(run / "final")
    code, _, err = _cli(["train-rllib", "--set", f"runs_dir={tmp_path}", "--restore", run], capsys)
    _assert_one_line_error(code, err, "--trust-pickle")
    assert no_ray.check_restore(run, trust_pickle=True) == run / "final"
    with pytest.raises(no_ray.RestoreError, match="--trust-pickle"):
        no_ray.train(load_rllib_config("rllib_classic"), tmp_path / "r", restore=str(ckpt))
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("what", ["missing", "not_a_checkpoint", "file"])
def test_rllib_restore_of_a_bad_path_is_one_line(no_ray, what, tmp_path, capsys):
    path = tmp_path / "x"
    if what == "not_a_checkpoint":
        path.mkdir()
    elif what == "file":
        path.write_text("hello")
    code, _, err = _cli(["train-rllib", "--set", f"runs_dir={tmp_path}", "--restore", path, "--trust-pickle"], capsys)
    words = {"missing": "no such file", "not_a_checkpoint": "not an RLlib algorithm checkpoint",
             "file": "not an RLlib algorithm checkpoint"}[what]
    _assert_one_line_error(code, err, "--restore", words)


# ---------------------------------------------------------------------------------------------- 3. bounds
TOO_BIG = [
    ("env.n_envs=1000000000", "'env.n_envs'", "1048576"),
    ("ppo.n_steps=1000000000", "'ppo.n_steps'", "1048576"),
    ("ppo.n_epochs=1000000000", "'ppo.n_epochs'", "10000"),
    ("policy.net_arch=[64, 10000000]", "'policy.net_arch[1]'", "16384"),
    (f"policy.net_arch=[{', '.join(['8'] * 65)}]", "'policy.net_arch'", "64 layers"),
    ("evaluation.workers=100000", "'evaluation.workers'", "1024"),
    ("evaluation.final_workers=100000", "'evaluation.final_workers'", "1024"),
    ("evaluation.games=1000000000", "'evaluation.games'", "100000000"),
    ("evaluation.final_games=1000000000", "'evaluation.final_games'", "100000000"),
    ("total_steps=10000000000000", "'total_steps'", "1000000000000"),
    ("torch_threads=5000", "'torch_threads'", "1024"),
    ("env.num_threads=5000", "'env.num_threads'", "1024"),
    ("keep_checkpoints=1000000", "'keep_checkpoints'", "1000"),
    ("ppo.learning_rate=1000", "'ppo.learning_rate'", "<= 1.0"),
    ("ppo.clip_range=1e9", "'ppo.clip_range'", "<= 10.0"),
    ("ppo.target_kl=0", "'ppo.target_kl'", "(or null)"),
    ("ppo.target_kl=-0.5", "'ppo.target_kl'", "> 0"),
    ("env.n_envs=5000", "'env.n_envs'", "'dummy'"),
    ("env.vec_env=subproc", "'env.n_envs'", "'subproc'"),  # with n_envs=2000 below: a process each
    ("env.n_envs=4096", "'ppo.n_steps' x 'env.n_envs'", "4194304"),  # with n_steps=2048 below
]


@pytest.mark.parametrize("override, key, bound", TOO_BIG, ids=[t[0][:40] for t in TOO_BIG])
def test_sizes_have_upper_bounds(override, key, bound):
    extra = {"env.vec_env=subproc": ["env.n_envs=2000", "ppo.batch_size=256"],
             "env.n_envs=4096": ["ppo.n_steps=2048"]}.get(override, [])
    with pytest.raises(ConfigError) as info:
        load_config(SMOKE, [override, *extra])
    msg = str(info.value)
    assert key in msg and bound in msg, msg


def test_bounds_leave_real_sizes_alone():
    cfg = load_config(SMOKE_BATCHED, ["env.n_envs=1048576", "ppo.n_steps=4", "env.num_threads=1024",
                                      "torch_threads=1024", "policy.net_arch=[16384, 16384]", "ppo.target_kl=0.02",
                                      "evaluation.games=100000000", "evaluation.workers=1024"])
    assert cfg.env.n_envs == 1 << 20 and cfg.ppo.target_kl == pytest.approx(0.02)
    assert load_config(SMOKE, ["ppo.target_kl=null"]).ppo.target_kl is None


def test_a_billion_environments_is_refused_at_once(tmp_path, capsys):
    code, _, err = _cli(["train", "--config", SMOKE, "--set", "env.n_envs=1000000000", "--run-dir", tmp_path / "r"],
                        capsys)
    _assert_one_line_error(code, err, "'env.n_envs'", "1048576")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("override, key", [("module.hiddens=[100000]", "'module.hiddens[0]'"),
                                           ("evaluation.games=1000000000", "'evaluation.games'"),
                                           ("evaluation.final_workers=5000", "'evaluation.final_workers'"),
                                           ("resources.torch_threads=5000", "'resources.torch_threads'"),
                                           ("ppo.lr=5", "'ppo.lr'")])
def test_rllib_sizes_have_upper_bounds(override, key):
    with pytest.raises(ConfigError, match=key.replace("[", r"\[").replace("]", r"\]")):
        load_rllib_config("rllib_classic", [override])


# ---------------------------------------------------------------------------------------------- 4. evaluate
@pytest.mark.parametrize("argv, words", [
    (["-g", "2", "-w", "100000"], ["--workers", "1024", "100000"]),
    (["-g", "1000000000000"], ["--games", "100,000,000"]),
    (["-g", "2", "--seed", "-1"], ["--seed", "from 0", "-1"]),
    (["-g", "2", "--seed", str(2**64)], ["--seed"]),
    (["-g", "2", "--batch-size", "0"], ["--batch-size"]),
])
def test_evaluate_numbers_are_checked_before_playing(argv, words, capsys):
    code, out, err = _cli(["evaluate", "random", "random", *argv], capsys)
    _assert_one_line_error(code, err, *words)
    assert out == ""


def test_evaluate_json_path_is_checked_before_playing(tmp_path, capsys):
    code, out, err = _cli(["evaluate", "random", "random", "-g", "2", "--json", tmp_path / "no" / "x.json"], capsys)
    _assert_one_line_error(code, err, "--json", "does not exist")
    assert out == ""  # no table: not a game was played
    code, out, err = _cli(["evaluate", "random", "random", "-g", "2", "--json", tmp_path], capsys)
    _assert_one_line_error(code, err, "--json", "is a directory")
    assert out == ""
    good = tmp_path / "res.json"
    code, out, err = _cli(["evaluate", "random", "random", "-g", "2", "-q", "--json", good], capsys)
    assert code == 0 and json.loads(good.read_text())["games"] == 2


def test_evaluate_write_failure_after_the_games_is_one_line(tmp_path, capsys, monkeypatch):
    from uno_env.training import evaluate

    monkeypatch.setattr(evaluate, "_check_output_file", lambda option, path: None)
    code, _, err = _cli(["evaluate", "random", "random", "-g", "2", "-q", "--json", tmp_path / "no" / "x.json"],
                        capsys)
    _assert_one_line_error(code, err, "--json", "cannot write it")


def test_arena_checks_its_arguments():
    from uno_env.training.evaluate import run_arena

    with pytest.raises(ValueError, match="games must be"):
        run_arena(["random", "random"], games=10**12)
    with pytest.raises(ValueError, match="workers must be"):
        run_arena(["random", "random"], games=2, workers=100_000)
    with pytest.raises(ValueError, match="seed must be"):
        run_arena(["random", "random"], games=2, seed=-1)


def test_arena_starts_no_more_processes_than_it_can_use(monkeypatch):
    import concurrent.futures
    import os

    from uno_env.training.evaluate import run_arena

    started = []
    real = concurrent.futures.ProcessPoolExecutor

    def recording(*args, max_workers=None, **kwargs):
        started.append(max_workers)
        return real(*args, max_workers=max_workers, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", recording)
    res = run_arena(["random", "greedy"], games=3, seed=5, workers=64, chunk=1)
    assert started and started[0] <= min(3, len(os.sched_getaffinity(0)))
    alone = run_arena(["random", "greedy"], games=3, seed=5)
    assert res.to_dict() == alone.to_dict()


# ---------------------------------------------------------------------------------------------- 5. non-UTF-8 config
def test_a_config_that_is_not_utf8_is_one_line(tmp_path, capsys):
    path = tmp_path / "bin.yaml"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_rllib_config(path)
    code, _, err = _cli(["train", "--config", path, "--run-dir", tmp_path / "r"], capsys)
    _assert_one_line_error(code, err, "bin.yaml", "not UTF-8")
    assert not (tmp_path / "r").exists()


def test_train_rllib_config_that_is_not_utf8_is_one_line(tmp_path, capsys):
    pytest.importorskip("ray.rllib")
    path = tmp_path / "bin.yaml"
    path.write_bytes(b"name: \xff\n")
    code, _, err = _cli(["train-rllib", "--config", path], capsys)
    _assert_one_line_error(code, err, "not UTF-8")


# ---------------------------------------------------------------------------------------------- 6. setups that fail
@pytest.mark.parametrize("config, overrides, words", [
    (SMOKE, ["env.num_players=3", "opponents.baselines={ppo: 1.0}"],
     ["'opponents.baselines'", "'ppo'", "3 players"]),
    (SMOKE, ["env.num_players=3", "evaluation.opponents=[random, ppo]"],
     ["'evaluation.opponents'", "'ppo'", "3 players"]),
    (SMOKE_BATCHED, ["opponents.baselines={ismcts: 1.0}"], ["'opponents.baselines'", "'ismcts'", "game state"]),
    (SMOKE, ["env.vec_env=batched", "opponents.baselines={ismcts: 1.0}", "opponents.selfplay_start=1.0"],
     ["'opponents.baselines'", "'ismcts'", "batched simulator"]),
])
def test_opponents_that_cannot_play_the_table_are_config_errors(config, overrides, words, tmp_path, capsys):
    with pytest.raises(ConfigError) as info:
        load_config(config, overrides)
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    argv = ["train", "--config", config, "--run-dir", tmp_path / "r"]
    for o in overrides:
        argv += ["--set", o]
    code, _, err = _cli(argv, capsys)
    _assert_one_line_error(code, err, words[0])
    assert not (tmp_path / "r").exists()


def test_opponents_that_can_play_the_table_pass():
    # the Gymnasium environments hand a searching agent the game state, so ismcts may be a baseline there
    cfg = load_config(SMOKE, ["opponents.baselines={ismcts: 1.0, random: 1.0}", "evaluation.opponents=[ppo, ismcts]"])
    assert set(cfg.opponents.baselines) == {"ismcts", "random"}
    # a baseline with weight 0 is never played
    assert load_config(SMOKE, ["env.num_players=3", "opponents.baselines={ppo: 0.0, random: 1.0}"])


def test_rllib_baseline_modules_need_observation_players():
    with pytest.raises(ConfigError, match="'ismcts'.*RLlib"):
        load_rllib_config("rllib_classic", ["opponents.baselines={ismcts: 1.0}", "opponents.baseline_prob=0.5"])
    with pytest.raises(ConfigError, match="'ppo'.*3 players"):
        load_rllib_config("rllib_classic", ["env.num_players=3", "evaluation.opponents=[ppo]"])


def test_names_and_paths_no_file_system_takes(tmp_path, capsys):
    with pytest.raises(ConfigError, match="'name'.*255 bytes"):
        config_from_dict({"name": "a" * 300, "runs_dir": str(tmp_path)})
    with pytest.raises(ConfigError, match="'name'.*NUL"):
        config_from_dict({"name": "a\0b", "runs_dir": str(tmp_path)})
    with pytest.raises(ConfigError, match="'runs_dir'.*NUL"):
        config_from_dict({"runs_dir": str(tmp_path) + "/a\0b"})
    with pytest.raises(ConfigError, match="'runs_dir'.*255 bytes"):
        config_from_dict({"runs_dir": str(tmp_path / ("d" * 300) / "runs")})
    with pytest.raises(ConfigError, match="'name'.*255 bytes"):
        load_rllib_config("rllib_classic", ["name=" + "a" * 300])
    code, _, err = _cli(["train", "--config", SMOKE, "--set", f"runs_dir={tmp_path}", "--name", "a" * 300], capsys)
    _assert_one_line_error(code, err, "'name'", "255 bytes")
    assert list(tmp_path.iterdir()) == []


def test_a_setup_failure_is_one_line_and_leaves_no_run_directory(tmp_path, capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from uno_env.agents.registry import UnknownAgentError
    from uno_env.training.algorithms import maskable_ppo

    def broken(cfg, pool, seed):
        raise UnknownAgentError("agent 'x': cannot play this table")

    monkeypatch.setattr(maskable_ppo, "make_env", broken)
    run_dir = tmp_path / "r"
    code, _, err = _cli(["train", "--config", SMOKE, "--run-dir", run_dir, "--no-progress"], capsys)
    _assert_one_line_error(code, err, "cannot set up the run", "agent 'x'")
    assert not run_dir.exists()  # so the same command runs again without --overwrite


# ---------------------------------------------------------------------------------------------- 7. damaged state.json
def _state(tmp_path: Path) -> dict:
    from uno_env.training.run_state import RunState

    cfg = load_config(SMOKE, [f"runs_dir={tmp_path}"])
    return RunState(cfg, str(tmp_path / "run"), algo=None).state(1024)


def _damaged_run(tmp_path: Path, state) -> Path:
    ckpt = tmp_path / "run" / "checkpoints" / "step_000000001024"
    ckpt.mkdir(parents=True)
    (ckpt / "state.json").write_text(json.dumps(state))
    (ckpt / "COMPLETE").write_text("1024\n")
    return ckpt


def _drop(key):
    return lambda s: {k: v for k, v in s.items() if k != key}


DAMAGE = [
    ("empty", lambda s: {}, "'step' is missing"),
    ("a list", lambda s: [], "expected a JSON object"),
    ("no pool", _drop("pool"), "'pool' is missing"),
    ("no config", _drop("config"), "'config' is missing"),
    ("no rng", _drop("rng"), "'rng' is missing"),
    ("bad pool", lambda s: {**s, "pool": {"snapshots": 3}}, "'pool' must be"),
    ("bad step", lambda s: {**s, "step": "many"}, "'step' must be"),
    ("bad rng", lambda s: {**s, "rng": {"python": [3, [1, 2], None], "numpy": []}}, "'rng' must be"),
    ("bad config", lambda s: {**s, "config": {**s["config"], "ppo": {"gamma": 7}}}, "'ppo.gamma'"),
]


@pytest.mark.parametrize("damage, words", [(d[1], d[2]) for d in DAMAGE], ids=[d[0] for d in DAMAGE])
def test_a_damaged_checkpoint_state_is_one_line(damage, words, tmp_path, capsys):
    ckpt = _damaged_run(tmp_path, damage(_state(tmp_path)))
    code, _, err = _cli(["train", "--run-dir", tmp_path / "run", "--resume", "--no-progress"], capsys)
    _assert_one_line_error(code, err, str(ckpt / "state.json"), words)


def test_run_state_refuses_a_damaged_state_naming_the_file(tmp_path):
    from uno_env.training.checkpoints import TrainError
    from uno_env.training.run_state import RunState

    good = _state(tmp_path)
    run = RunState(load_config(SMOKE), str(tmp_path / "run"), algo=None)
    with pytest.raises(TrainError, match=r"somewhere/state\.json: key 'pool' is missing"):
        run.load_state(_drop("pool")(good), "somewhere/state.json")
    with pytest.raises(TrainError, match="'pool'"):
        run.load_state({**good, "pool": {**good["pool"], "rng": {"bit_generator": "nonsense"}}}, "state.json")
    run.load_state(good, "state.json")
    assert run.sessions == 2
