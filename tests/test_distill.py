"""``uno-env distill``: labels, fit, arena and report from a config; resume keeps whole label files; bad configs
are refused by key before any labelling."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from uno_env.cli import main
from uno_env.training.config import ConfigError, load_distill_config

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("torch")

SMALL = ["--set", "labels.games=4", "--set", "labels.chunk=2", "--set", "labels.workers=1",
         "--set", "labels.teacher=ismcts:sims=8", "--set", "fit.epochs=1", "--set", "evaluation.games=40",
         "--set", "evaluation.workers=1", "--no-progress"]


def _run(capsys, *argv):
    code = main(["distill", "--config", "classic4_distill", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _scalars(log_dir):
    """Every scalar of the TensorBoard logs under ``log_dir``, by tag."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(log_dir))
    acc.Reload()
    return {tag: [e.value for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def _arrays(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def test_a_small_run_labels_fits_evaluates_and_resumes(tmp_path, capsys):
    from uno_env.agents.policy import NumpyPolicyAgent
    from uno_env.training.evaluate import run_arena

    run_dir = tmp_path / "run"
    code, out, err = _run(capsys, "--run-dir", run_dir, *SMALL)
    assert code == 0, err
    assert "vs heuristic, 2 seats each" in out
    labels = run_dir / "labels"
    assert sorted(p.name for p in labels.iterdir()) == ["cpu_seconds.json", "labels_0000000.npz",
                                                        "labels_0000002.npz"]
    first = {p.name: _arrays(p) for p in labels.glob("labels_*.npz")}
    assert set(first["labels_0000000.npz"]) == {"obs", "mask", "heur", "search", "q", "n"}
    d = first["labels_0000000.npz"]
    assert len(d["heur"]) > 20 and d["mask"][np.arange(len(d["heur"])), d["heur"]].all()
    assert (d["mask"].sum(1) > 1).all()  # only decisions with a choice are labelled

    report = json.loads((run_dir / "report.json").read_text())
    assert report["labels"]["games"] == 4 and report["fit"]["decisions"] == sum(len(a["heur"]) for a in first.values())
    assert [r["opponent"] for r in report["arena"]] == ["random", "greedy", "heuristic"]
    assert all(r["games"] == 40 and r["interval"] == "over deals" for r in report["arena"])
    assert report["evaluation"]["head_to_head"]["seats_each"] == 2
    assert "| heuristic (2 seats each) |" in (run_dir / "report.md").read_text()
    cpu = json.loads((labels / "cpu_seconds.json").read_text())
    assert set(cpu) == set(first) and all(v > 0 for v in cpu.values())
    assert report["labels"]["cpu_seconds_all"] == pytest.approx(sum(cpu.values()), abs=0.1)
    assert report["labels"]["files_without_cpu_seconds"] == 0
    events = _scalars(run_dir / "tb" / "distill")
    assert {"fit/train_loss", "fit/held_out_loss", "fit/departs", "fit/mean_gain"} <= set(events)
    assert events["fit/held_out_loss"] == [pytest.approx(report["fit"]["epochs"][0]["held_out_loss"])]
    meta = json.loads((run_dir / "policy.json").read_text())
    small_sets = " ".join(a for a in SMALL if a not in ("--no-progress",))
    assert meta["trained_by"] == f"uno-env distill --config classic4_distill {small_sets}" == report["command"]
    assert meta["num_players"] == 4
    agent = NumpyPolicyAgent.load(run_dir / "policy.npz", deterministic=True)
    res = run_arena([agent, "random"], num_players=4, games=8, seed=0)
    assert res.agents[0].games == 8  # it plays legal moves in every seat

    # a margin no predicted gain reaches: the policy is the heuristic, choice for choice (the bonus on its choice is
    # what the margin is measured against, so a policy exported without it would play the network's noise)
    code, _, err = _run(capsys, "--run-dir", run_dir, "--resume", *SMALL, "--set", "fit.margin=1.0",
                        "--set", "tensorboard=false")
    assert code == 0, err
    assert len(list((run_dir / "tb").rglob("events.out.tfevents*"))) == 1  # the first run's log, no new one
    # nothing labelled by this command, yet the report still counts what every file took
    report = json.loads((run_dir / "report.json").read_text())
    assert report["labels"]["labelled_now"] == 0
    assert report["labels"]["cpu_seconds_all"] == pytest.approx(sum(cpu.values()), abs=0.1)
    agent = NumpyPolicyAgent.load(run_dir / "policy.npz", deterministic=True)
    for arrays in first.values():
        assert (agent.act_batch(arrays["obs"], arrays["mask"].astype(np.int8)) == arrays["heur"]).all()

    # the same run directory again: refused without --resume
    code, _, err = _run(capsys, "--run-dir", run_dir, *SMALL)
    assert code == 2 and "already exists" in err and "--resume" in err

    # a stopped run: one file gone, one damaged, the rest whole; --resume labels the two again, the same way
    (labels / "labels_0000000.npz").unlink()
    (labels / "labels_0000002.npz").write_bytes(b"not a label file")
    code, _, err = _run(capsys, "--run-dir", run_dir, "--resume", *SMALL)
    assert code == 0, err
    for name, arrays in first.items():
        again = _arrays(labels / name)
        assert all(np.array_equal(arrays[k], again[k]) for k in arrays), name
    kept = (labels / "labels_0000000.npz").stat().st_mtime_ns
    # more games: only the new file is labelled
    code, _, err = _run(capsys, "--run-dir", run_dir, "--resume", *SMALL, "--set", "labels.games=6")
    assert code == 0, err
    # the policy names one command that makes it: the first one's options, the resumes' on top, the last value wins
    assert json.loads((run_dir / "policy.json").read_text())["trained_by"] == (
        f"uno-env distill --config classic4_distill {small_sets.replace('labels.games=4', 'labels.games=6')} "
        "--set fit.margin=1.0 --set tensorboard=false")
    assert (labels / "labels_0000004.npz").is_file() and (labels / "labels_0000000.npz").stat().st_mtime_ns == kept
    report = json.loads((run_dir / "report.json").read_text())
    assert report["labels"]["labelled_now"] == 1
    cpu = json.loads((labels / "cpu_seconds.json").read_text())
    assert sorted(cpu) == ["labels_0000000.npz", "labels_0000002.npz", "labels_0000004.npz"]
    assert report["labels"]["cpu_seconds_all"] == pytest.approx(sum(cpu.values()), abs=0.1)
    assert "over all the run's commands" in (run_dir / "report.md").read_text()
    # what the labels depend on cannot change in a run
    for override, key in (("seed=1", "seed"), ("labels.teacher=ismcts:sims=9", "labels.teacher"),
                          ("env.num_players=2", "env")):
        code, _, err = _run(capsys, "--run-dir", run_dir, "--resume", *SMALL, "--set", override)
        assert code == 2 and f"--resume: {key} cannot change" in err, err
    # the fit's own seed can: the same labels refitted
    code, _, err = _run(capsys, "--run-dir", run_dir, "--resume", *SMALL, "--set", "labels.games=6",
                        "--set", "fit.seed=3")
    assert code == 0, err
    assert json.loads((run_dir / "report.json").read_text())["labels"]["labelled_now"] == 0


def test_a_small_dice_run_labels_the_dice_heuristics_states(tmp_path, capsys):
    """UNO Dice's labels hold the dice heuristic's choices (the network's advice input there) and the tree search's
    per-action figures, and the policy fitted to them plays the 4-player game."""
    from uno_env.agents.policy import NumpyPolicyAgent, heuristic_advisor
    from uno_env.config import make_rules
    from uno_env.core.game import Game
    from uno_env.training.evaluate import run_arena

    run_dir = tmp_path / "dice"
    code = main(["distill", "--config", "dice4_distill", "--run-dir", str(run_dir), *SMALL])
    out, err = capsys.readouterr()
    assert code == 0, err
    d = _arrays(run_dir / "labels" / "labels_0000000.npz")
    meta = json.loads((run_dir / "policy.json").read_text())
    assert (meta["game"], meta["num_players"]) == ("dice", 4)
    advise = heuristic_advisor(Game(make_rules("dice", 4, "standard")))
    assert (advise(d["obs"], d["mask"]) == d["heur"]).all()
    legal = d["mask"] & (d["n"] > 0)  # the tree visits only legal actions, and some of them
    assert (d["n"][~d["mask"]] == 0).all() and legal.any(axis=1).all()
    assert ((d["q"][legal] >= 0) & (d["q"][legal] <= 1)).all()
    agent = NumpyPolicyAgent.load(run_dir / "policy.npz", deterministic=True)
    res = run_arena([agent, "random"], game="dice", num_players=4, games=8, seed=0)
    assert res.agents[0].games == 8


@pytest.mark.parametrize("target", ["advantage", "choice"])
def test_the_fit_loads_every_file_in_order_and_only_what_it_reads(tmp_path, target):
    from uno_env.training.distill import LABEL_KEYS, DistillError, load_labels

    rng = np.random.default_rng(0)
    labels = tmp_path / "labels"
    labels.mkdir()
    files = []
    for first, rows in ((0, 3), (2, 0), (4, 5)):  # a file of a chunk whose games had no decision with a choice
        arrays = {"obs": rng.random((rows, 7), np.float32), "mask": rng.random((rows, 4)) < 0.5,
                  "heur": rng.integers(0, 4, rows), "search": rng.integers(0, 4, rows),
                  "q": rng.random((rows, 4), np.float32), "n": rng.integers(0, 9, (rows, 4)).astype(np.int16)}
        np.savez(labels / f"labels_{first:07d}.npz", **arrays)
        files.append(arrays)
    cfg = load_distill_config(None, ["labels.games=6", "labels.chunk=2", f"fit.target={target}"])
    got = load_labels(cfg, str(labels))
    expected = ["obs", "mask", "heur", "search"] if target == "choice" else list(LABEL_KEYS)
    assert list(got) == expected
    joined = {k: np.concatenate([f[k] for f in files]) for k in LABEL_KEYS}
    # the choice fit reads no win rates or sample counts: the decisions it leaves out (the heuristic's choice not
    # sampled) are left out here, in game order
    sampled = joined["n"][np.arange(len(joined["heur"])), joined["heur"]] > 0
    assert 0 < sampled.sum() < len(sampled)
    for k in expected:
        want = joined[k][sampled] if target == "choice" else joined[k]
        assert got[k].dtype == want.dtype and np.array_equal(got[k], want), k
    (labels / "labels_0000002.npz").write_bytes(b"damaged")
    with pytest.raises(DistillError, match="labels_0000002.npz is missing or damaged"):
        load_labels(cfg, str(labels))


def _write_label_file(path, obs: np.ndarray, actions: int) -> None:
    """A whole label file of ``obs`` whose other arrays hold nothing the observation tests read."""
    rows = len(obs)
    np.savez(path, obs=obs, mask=np.ones((rows, actions), bool), heur=np.zeros(rows, np.int64),
             search=np.zeros(rows, np.int64), q=np.zeros((rows, actions), np.float32),
             n=np.ones((rows, actions), np.int16))


@pytest.mark.parametrize("fractional_file", [None, 0, 4])
def test_whole_number_observations_are_loaded_as_int8_and_others_keep_their_values(tmp_path, fractional_file):
    from uno_env.training.distill import load_labels

    rng = np.random.default_rng(1)
    labels = tmp_path / "labels"
    labels.mkdir()
    observations = []
    for first in (0, 2, 4):
        obs = rng.integers(-128, 128, (3, 5)).astype(np.float32)  # every int8 value, the ends included
        obs[0, :2] = -128, 127
        if first == fractional_file:
            obs[1, 1] = 0.5
        _write_label_file(labels / f"labels_{first:07d}.npz", obs, actions=4)
        observations.append(obs)
    cfg = load_distill_config(None, ["labels.games=6", "labels.chunk=2"])
    got = load_labels(cfg, str(labels))["obs"]
    assert got.dtype == (np.int8 if fractional_file is None else np.float32)
    assert np.array_equal(got.astype(np.float32), np.concatenate(observations))  # fractional file first or last


def test_an_observation_outside_int8_keeps_float32(tmp_path):
    from uno_env.training.distill import load_labels

    labels = tmp_path / "labels"
    labels.mkdir()
    obs = np.array([[128.0, -1.0], [0.0, 3.0]], np.float32)  # whole, but 128 does not fit an int8
    _write_label_file(labels / "labels_0000000.npz", obs, actions=3)
    got = load_labels(load_distill_config(None, ["labels.games=2", "labels.chunk=2"]), str(labels))["obs"]
    assert got.dtype == np.float32 and np.array_equal(got, obs)


def _random_labels(rng, rows: int, game: str = "dice", players: int = 2) -> dict[str, np.ndarray]:
    """Label arrays of ``rows`` made-up decisions shaped for ``game``'s network: whole-number observations, legal
    masks holding the heuristic's choice, a teacher that plays the first legal action, and the heuristic's choice
    unsampled on some rows."""
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    g = Game(make_rules(game, players, "standard"))
    mask = rng.random((rows, g.num_actions)) < 0.05
    heur = rng.integers(0, g.num_actions, rows)
    mask[np.arange(rows), heur] = True
    search = mask.argmax(axis=1)  # a teacher a small network learns to follow in a few epochs: the first legal action
    n = np.where(mask, rng.integers(0, 5, mask.shape), 0).astype(np.int16)
    return {"obs": rng.integers(-1, 6, (rows, g.obs_dim)).astype(np.float32), "mask": mask, "heur": heur,
            "search": search, "q": np.where(n > 0, rng.random(mask.shape), -1.0).astype(np.float32), "n": n}


@pytest.mark.parametrize("target", ["advantage", "choice"])
def test_the_held_out_figures_are_the_same_in_slices_and_the_weights_do_not_depend_on_them(tmp_path, monkeypatch,
                                                                                            target):
    from uno_env.training import distill

    labels = _random_labels(np.random.default_rng(2), 600)
    cfg = load_distill_config(None, ["env.game=dice", "env.num_players=2", "env.rules=standard", "fit.epochs=2",
                                     "fit.net_arch=[16]", "fit.batch_size=64", "fit.validation=0.25",
                                     f"fit.target={target}", "fit.margin=0.0001", "fit.learning_rate=0.01"])
    whole = distill.fit_policy(cfg, labels, str(tmp_path / "whole.npz"))
    monkeypatch.setattr(distill, "HELD_OUT_SLICE", 7)  # over a hundred held-out decisions, in slices of 7
    sliced = distill.fit_policy(cfg, labels, str(tmp_path / "sliced.npz"))
    assert (tmp_path / "whole.npz").read_bytes() == (tmp_path / "sliced.npz").read_bytes()
    assert whole["held_out"] > 3 * 7 and len(whole["epochs"]) == 2
    for a, b in zip(whole["epochs"], sliced["epochs"]):
        assert a.keys() == b.keys() and a["held_out_loss"] > 0 and 0 < a["departs"] < 1
        assert all(a[k] == pytest.approx(b[k], rel=1e-5, abs=1e-6) for k in a), (a, b)  # float32 sums


def test_a_linear_schedule_decays_the_learning_rate_to_zero_over_the_fit(tmp_path):
    from uno_env.training.distill import fit_policy

    labels = _random_labels(np.random.default_rng(4), 300)
    sets = ["env.game=dice", "env.num_players=2", "env.rules=standard", "fit.epochs=4", "fit.net_arch=[16]",
            "fit.batch_size=32", "fit.target=choice", "fit.learning_rate=0.01"]
    rates = {}
    for schedule in ("constant", "linear"):
        cfg = load_distill_config(None, [*sets, f"fit.lr_schedule={schedule}"])
        fit_policy(cfg, labels, str(tmp_path / f"{schedule}.npz"), log_dir=str(tmp_path / schedule))
        rates[schedule] = _scalars(tmp_path / schedule)["fit/learning_rate"]  # after each epoch
    assert rates["constant"] == [pytest.approx(0.01)] * 4
    assert rates["linear"] == [pytest.approx(0.01 * r) for r in (0.75, 0.5, 0.25, 0.0)]
    assert (tmp_path / "constant.npz").read_bytes() != (tmp_path / "linear.npz").read_bytes()


def test_the_fit_seed_defaults_to_the_runs_and_changes_only_the_fit(tmp_path):
    from uno_env.training.distill import fit_policy

    labels = _random_labels(np.random.default_rng(5), 300)
    sets = ["seed=7", "env.game=dice", "env.num_players=2", "env.rules=standard", "fit.epochs=1",
            "fit.net_arch=[16]", "fit.batch_size=32", "fit.target=choice"]
    figures = {}
    for name, extra in (("default", []), ("same", ["fit.seed=7"]), ("other", ["fit.seed=8"])):
        figures[name] = fit_policy(load_distill_config(None, [*sets, *extra]), labels, str(tmp_path / f"{name}.npz"))
    assert (tmp_path / "default.npz").read_bytes() == (tmp_path / "same.npz").read_bytes()
    assert (tmp_path / "other.npz").read_bytes() != (tmp_path / "default.npz").read_bytes()
    assert figures["other"]["epochs"] != figures["default"]["epochs"]  # another held-out split and initialisation


def test_the_choice_fit_learns_the_same_from_the_loaded_labels_as_from_every_array(tmp_path):
    """load_labels leaves out, for the choice fit, the decisions the fit itself leaves out, and the win rates and
    sample counts it does not read: the same policy, byte for byte."""
    from uno_env.training.distill import DistillError, fit_policy, load_labels

    labels = _random_labels(np.random.default_rng(3), 400)
    sampled = labels["n"][np.arange(400), labels["heur"]] > 0
    assert 0 < sampled.sum() < 400
    (tmp_path / "labels").mkdir()
    np.savez_compressed(tmp_path / "labels" / "labels_0000000.npz", **labels)
    cfg = load_distill_config(None, ["env.game=dice", "env.num_players=2", "env.rules=standard", "fit.epochs=2",
                                     "fit.net_arch=[16]", "fit.batch_size=64", "fit.target=choice",
                                     "labels.games=2", "labels.chunk=2"])
    loaded = load_labels(cfg, str(tmp_path / "labels"))
    assert "n" not in loaded and "q" not in loaded and len(loaded["heur"]) == sampled.sum()
    every = fit_policy(cfg, labels, str(tmp_path / "every.npz"))
    fitted = fit_policy(cfg, loaded, str(tmp_path / "loaded.npz"))
    assert every["decisions"] == fitted["decisions"] == sampled.sum()
    assert (tmp_path / "every.npz").read_bytes() == (tmp_path / "loaded.npz").read_bytes()
    advantage = load_distill_config(None, ["env.game=dice", "env.num_players=2", "fit.target=advantage"])
    with pytest.raises(DistillError, match="needs the labels' win rates and sample counts"):
        fit_policy(advantage, loaded, str(tmp_path / "never.npz"))


def test_resume_needs_a_run(tmp_path, capsys):
    code, _, err = _run(capsys, "--run-dir", tmp_path / "none", "--resume", *SMALL)
    assert code == 2 and "--resume: no distillation run at" in err


@pytest.mark.parametrize("override, words", [
    ("env.game=chess", "'env.game'"),
    ("labels.teacher=heuristic", "'labels.teacher': an ismcts agent spec"),
    ("labels.teacher=ismcts:sims=-1", "'labels.teacher'"),
    ("labels.teacher=ismcts:simz=10", "'labels.teacher'"),
    ("fit.target=imitation", "'fit.target'"),
    ("fit.margin=0", "'fit.margin'"),
    ("fit.net_arch=[]", "'fit.net_arch'"),
    ("fit.lr_schedule=cosine", "'fit.lr_schedule'"),
    ("fit.seed=-1", "'fit.seed'"),
    ("fit.lr=0.1", "unknown config key 'fit.lr'; known keys in fit: target, margin"),
    ("evaluation.opponents=[champion]", "unknown baseline 'champion'"),
    ("evaluation.games=10", "'evaluation.games': with evaluation.duplicate, a multiple of env.num_players (4)"),
    ("labels.games=0", "'labels.games'"),
    ("name=a/b", "'name'"),
    ("env.num_players=11", "num_players"),
])
def test_bad_configs_are_refused_by_key(override, words):
    with pytest.raises(ConfigError) as info:
        load_distill_config("classic4_distill", [override])
    assert words in str(info.value)


@pytest.mark.parametrize("config, game", [("classic4_distill", "classic"), ("pocket4_distill", "pocket")])
def test_the_packaged_config_is_the_shipped_policys(config, game):
    from importlib import resources

    cfg = load_distill_config(config)
    assert (cfg.env.game, cfg.env.num_players, cfg.labels.teacher) == (game, 4, "ismcts")
    meta = json.loads(resources.files("uno_env.agents.policies").joinpath(f"{game}_4p.json").read_text())
    assert meta["trained_by"] == f"uno-env distill --config {config}"
    margin = cfg.fit.margin if cfg.fit.target == "advantage" else None  # the choice fit has no margin
    assert (meta["margin"], meta["target"]) == (margin, cfg.fit.target)
    assert meta["policy"]["net_arch"] == list(cfg.fit.net_arch)


# each shipped policy made by expert iteration: its packaged config, game, players and run, then the policies its
# teachers' searches started from, newest first, with the search's arguments other than its prior in that round and
# the round's other config overrides, and the command (and run) that made the first of them
CHAINS = [
    ("dice2_distill", "dice", 2, "dice2_distill", [("dice_2p_distill2_policy", "sims=300", ()),
                                                   ("dice_2p_distill1_policy", "", ()), ("dice_2p_ppo_policy", "", ())],
     "uno-env train --config dice_ppo"),
    ("pocket2_distill", "pocket", 2, "pocket2_distill", [("pocket_2p_distill1_policy", "sims=300", ()),
                                                         ("pocket_2p_ppo_policy", "", ())],
     "uno-env train --config pocket_ppo"),
    ("classic2_distill", "classic", 2, "classic2_distill", [("classic_2p_distill1_policy", "sims=300", ()),
                                                            ("classic_2p_ppo_policy", "", ())],
     "uno-env train --config classic_ppo"),
    ("dice4_distill", "dice", 4, "dice4_distill_round2",
     [("dice_4p_distill1_policy", "mode=flat", ("labels.games=614400", "torch_threads=2"))],
     "uno-env distill --config dice4_distill"),
]


def _teacher(search: str, prior: str) -> str:
    return "ismcts:" + (f"{search}," if search else "") + f"prior={prior}"


def _sets(teacher: str, overrides: tuple[str, ...]) -> str:
    return " ".join(f"--set {o}" for o in (f"labels.teacher={teacher}", *overrides))


@pytest.mark.parametrize("config, game, players, run, chain, origin", CHAINS, ids=[c[3] for c in CHAINS])
def test_a_shipped_policy_names_the_chain_of_rounds_that_made_it(config, game, players, run, chain, origin):
    """Expert iteration, each round's teacher the search from the round before's policy, every file in the chain
    kept so that each round is reproducible: a policy names its teacher's base policy by file, and the chain ends at
    the policy the PPO trainer (or, at 4 players, a first distillation) made; the packaged config's fit is the one
    every round used."""
    from importlib import resources

    from uno_env.agents.policy import load_weights

    cfg = load_distill_config(config)
    assert (cfg.env.game, cfg.env.num_players, cfg.labels.teacher) == (game, players, "ismcts")
    kept = ROOT / "agents" / "policies" / "training"
    meta = json.loads(resources.files("uno_env.agents.policies").joinpath(f"{game}_{players}p.json").read_text())
    for prior, search, overrides in chain:
        # the metadata name the folder the chain was kept in when each round was trained
        teacher = _teacher(search, f"benchmarks/results/training/{prior}.npz")
        assert meta["teacher"] == teacher
        assert meta["trained_by"] == f"uno-env distill --config {config} {_sets(teacher, overrides)}"
        assert (meta["target"], meta["policy"]["net_arch"]) == (cfg.fit.target, list(cfg.fit.net_arch))
        meta = load_weights(kept / f"{prior}.npz")[1]
        assert meta == json.loads((kept / f"{prior}.json").read_text())
    assert meta["trained_by"] == origin


def test_make_train_all_runs_every_round_of_the_shipped_policies(tmp_path):
    """`make train-all` remakes each chain above from its own runs: the same rounds, configs and search arguments,
    each round's search starting from the run of the round before, the first from the run the origin makes."""
    import shutil
    import subprocess

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "uno-env").write_text('#!/bin/sh\necho "uno-env $*"\n')
    (fake / "uno-env").chmod(0o755)
    # STAMP= drops the set-up prerequisite; runs/ of the checkout only decides the --resume flags
    out = subprocess.run(["make", "-s", "train-all", f"BIN={fake}", "STAMP="], cwd=ROOT, capture_output=True,
                         text=True, check=True, timeout=60).stdout
    teacher_of = {}
    for line in out.splitlines():
        words = line.split()
        if words[:2] == ["uno-env", "distill"] and "--name" in words:
            name, config = words[words.index("--name") + 1], words[words.index("--config") + 1]
            sets = tuple(words[i + 1] for i, w in enumerate(words) if w == "--set")
            teacher_of[name] = (config, sets[0].removeprefix("labels.teacher="), sets[1:])
    for config, _game, _players, run, chain, origin in CHAINS:
        for _, search, overrides in chain:
            got_config, teacher, got_overrides = teacher_of[run]
            prior_run = teacher.rpartition("prior=runs/")[2].removesuffix("/policy.npz")
            assert (got_config, teacher) == (config, _teacher(search, f"runs/{prior_run}/policy.npz"))
            assert got_overrides == overrides
            run = prior_run
        assert run == origin.rpartition(" ")[2]  # the origin's run is named as its config
        assert run not in teacher_of  # the origin is no round of a chain: its own command, with --resume or not
        assert any(line.split()[:4] == origin.split() and set(line.split()[4:]) <= {"--resume"}
                   for line in out.splitlines())


def test_a_damaged_timing_file_leaves_its_files_untimed(tmp_path):
    from uno_env.training.distill import CPU_FILE, _read_cpu_seconds

    (tmp_path / CPU_FILE).write_text('{"a.npz": 1.5, "b.npz": NaN, "c.npz": Infinity, "d.npz": -1, "e.npz": true, '
                                     '"f.npz": "2"}')
    assert _read_cpu_seconds(str(tmp_path)) == {"a.npz": 1.5}
    (tmp_path / CPU_FILE).write_text('{"a.npz": 1.')
    assert _read_cpu_seconds(str(tmp_path)) == {}
    (tmp_path / CPU_FILE).unlink()
    assert _read_cpu_seconds(str(tmp_path)) == {}


def test_the_command_names_a_packaged_config_by_name_and_any_other_file_by_path(tmp_path):
    """``trained_by`` must be a command a user can run: the packaged config's name, also when it was given as the
    checkout's path of that file, but a path when the file says something else; a resume adds its options."""
    import argparse

    from uno_env.training.checkpoints import COMMAND_FILE, run_command, save_command

    def command(config, *sets, resume=False, tool="distill", total_steps=None):
        args = argparse.Namespace(config=config, overrides=list(sets), resume=resume, total_steps=total_steps)
        return run_command(args, str(tmp_path), tool)

    packaged = ROOT / "configs" / "distill" / "pocket2_distill.yaml"
    first = command(str(packaged), "labels.teacher=ismcts:prior=a b.npz", "fit.epochs=3")
    assert first == ("uno-env distill --config pocket2_distill --set 'labels.teacher=ismcts:prior=a b.npz' "
                     "--set fit.epochs=3")
    edited = tmp_path / "pocket2_distill.yaml"
    edited.write_text(packaged.read_text().replace("games: 76800", "games: 100"))
    assert command(str(edited)) == f"uno-env distill --config {edited}"
    assert command(str(ROOT / "configs" / "train" / "smoke.yaml"), tool="train", total_steps=64) == (
        "uno-env train --config smoke --set total_steps=64")

    save_command(str(tmp_path), first)  # a resume starts from the saved command, whatever --config it is given
    assert command(None, "fit.epochs=5", "seed=2", resume=True) == (
        "uno-env distill --config pocket2_distill --set 'labels.teacher=ismcts:prior=a b.npz' --set fit.epochs=5 "
        "--set seed=2")
    (tmp_path / COMMAND_FILE).write_text("{not json")  # a run from before the file, or a damaged one
    assert command("pocket2_distill", "fit.epochs=5", resume=True) == (
        "uno-env distill --config pocket2_distill --set fit.epochs=5")


def test_ship_policy_stores_a_distilled_run_as_float16_with_what_its_labels_cost(tmp_path, capsys):
    import subprocess
    import sys

    run_dir, out_dir = tmp_path / "run", tmp_path / "policies"
    code, _, err = _run(capsys, "--run-dir", run_dir, *SMALL)
    assert code == 0, err
    ship = [sys.executable, str(ROOT / "tools" / "ship_policy.py")]
    done = subprocess.run([*ship, str(run_dir), "--out-dir", str(out_dir)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out_dir.iterdir()) == ["classic_4p.json", "classic_4p.npz"]  # no check files left
    report = json.loads((run_dir / "report.json").read_text())
    meta = json.loads((out_dir / "classic_4p.json").read_text())
    assert meta["name"] == "ppo" and meta["stored_as"] == "float16" and meta["float16_agreement"] >= 0.99
    assert meta["trained_by"] == report["command"]
    assert meta["training_wall_time_seconds"] == report["wall_time_seconds"]
    assert meta["labelling_cpu_seconds"] == report["labels"]["cpu_seconds_all"] > 0
    assert [r["win_rate"] for r in meta["final_arena"]] == [r["win_rate"] for r in report["arena"]]
    assert meta["head_to_head"] == report["evaluation"]["head_to_head"]
    with np.load(out_dir / "classic_4p.npz", allow_pickle=False) as z:
        assert {z[k].dtype for k in z.files if z[k].dtype.kind == "f"} == {np.dtype(np.float16)}

    not_a_run = subprocess.run([*ship, str(tmp_path), "--out-dir", str(out_dir)], capture_output=True, text=True)
    assert not_a_run.returncode == 2 and "not a finished run" in not_a_run.stderr


def test_a_planted_pipe_or_crafted_label_file_is_labelled_again_not_waited_on(tmp_path):
    """A resumed run reads its label files back: a FIFO in their place is refused at once (never waited on), and a
    file whose .npy header is not a dict literal counts as not whole, as a truncated one does (it is labelled again)."""
    import os
    import threading
    import zipfile

    from uno_env.training import distill

    fifo = tmp_path / "labels_0000000.npz"
    os.mkfifo(fifo)
    crafted = tmp_path / "labels_0001000.npz"
    with zipfile.ZipFile(crafted, "w") as z:
        z.writestr("heur.npy", b"\x93NUMPY\x01\x00\x10\x00{'descr': '<i8',  \n")
    (tmp_path / distill.CPU_FILE).unlink(missing_ok=True)
    os.mkfifo(tmp_path / distill.CPU_FILE)
    results: list = []
    worker = threading.Thread(target=lambda: results.extend([
        distill._read_labels(str(fifo)), distill._label_rows(str(fifo)), distill._read_labels(str(crafted)),
        distill._label_rows(str(crafted)), distill._read_cpu_seconds(str(tmp_path))]), daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # release the stuck reader before failing
        for path in (fifo, tmp_path / distill.CPU_FILE):
            try:  # a writer opening the pipe lets a reader blocked in open() go on
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        pytest.fail("reading a label file or the labelling times waited on a pipe")
    assert results == [None, None, None, None, {}]
