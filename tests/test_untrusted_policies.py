"""Policy files from elsewhere: pickle-free by default; SB3 zips and RLlib checkpoints only when trusted."""
from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from uno_env.agents.policy import NumpyPolicyAgent, PolicyWeights, load_weights, save_policy_files
from uno_env.agents.registry import UntrustedPolicyError, load_agent


class _Payload:
    """Unpickling this writes ``path``: the stand-in for code a crafted policy file would run."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (exec, (f"open({self.path!r}, 'w').write('pwned')",))


def _evil_zip(tmp_path: Path, marker: Path) -> Path:
    """A file shaped like a Stable-Baselines3 zip whose ``data`` holds a pickled payload, as SB3 stores objects."""
    blob = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps({"policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": blob}}))
        z.writestr("_stable_baselines3_version", "2.3.0")
    return path


def _evil_rllib(tmp_path: Path, marker: Path) -> Path:
    ckpt = tmp_path / "evil_ckpt"
    mod = ckpt / "learner_group" / "learner" / "rl_module" / "main"
    mod.mkdir(parents=True)
    (ckpt / "rllib_checkpoint.json").write_text("{}")
    for name in ("class_and_ctor_args.pkl", "module_state.pkl"):
        (mod / name).write_bytes(pickle.dumps(_Payload(marker)))
    return ckpt


def test_crafted_sb3_zip_is_refused_without_opt_in(tmp_path):
    marker = tmp_path / "marker"
    evil = _evil_zip(tmp_path, marker)
    with pytest.raises(UntrustedPolicyError) as info:
        load_agent(str(evil), "classic")
    msg = str(info.value)
    assert "unpickles" in msg and "--trust-pickle" in msg and "allow_pickle=True" in msg
    assert not marker.exists()


def test_crafted_sb3_zip_does_run_code_when_trusted(tmp_path):
    """The crafted file really is dangerous, so the refusal above is what protects."""
    pytest.importorskip("sb3_contrib")
    marker = tmp_path / "marker"
    evil = _evil_zip(tmp_path, marker)
    with pytest.raises(ValueError):  # UnknownAgentError: the unpickled "model" is unusable
        load_agent(str(evil), "classic", allow_pickle=True)  # the payload runs, then the "model" is unusable
    assert marker.read_text() == "pwned"


def test_crafted_rllib_checkpoint_is_refused_without_opt_in(tmp_path):
    marker = tmp_path / "marker"
    ckpt = _evil_rllib(tmp_path, marker)
    for path in (ckpt, ckpt / "learner_group" / "learner" / "rl_module" / "main"):
        with pytest.raises(UntrustedPolicyError, match="RLlib checkpoint.*--trust-pickle"):
            load_agent(str(path), "classic")
    assert not marker.exists()


def test_cli_evaluate_and_play_refuse_a_crafted_zip(tmp_path, capsys):
    from uno_env.cli import main

    marker = tmp_path / "marker"
    evil = _evil_zip(tmp_path, marker)
    assert main(["evaluate", str(evil), "heuristic", "--games", "2", "-q"]) == 2
    err = capsys.readouterr().err
    assert "--trust-pickle" in err and "Traceback" not in err
    assert main(["play", "--opponents", str(evil)]) == 2
    assert "--trust-pickle" in capsys.readouterr().err
    assert not marker.exists()


def test_gymnasium_opponent_refuses_a_crafted_zip(tmp_path):
    import gymnasium

    import uno_env  # noqa: F401  (registers the ids)

    marker = tmp_path / "marker"
    evil = _evil_zip(tmp_path, marker)
    with pytest.raises(UntrustedPolicyError):
        gymnasium.make("uno_env/Classic-v0", opponents=str(evil))
    assert not marker.exists()


def _tiny_policy(tmp_path: Path, game) -> Path:
    rng = np.random.default_rng(0)
    d_in = game.obs_dim + game.num_actions
    pw = PolicyWeights([rng.normal(size=(8, d_in)).astype(np.float32),
                        rng.normal(size=(game.num_actions, 8)).astype(np.float32)],
                       [np.zeros(8, np.float32), np.zeros(game.num_actions, np.float32)], "tanh", "symlog", True)
    return Path(save_policy_files(pw, str(tmp_path / "policy.npz"),
                                  {"game": game.name, "num_players": game.num_players, "name": "tiny"}))


def test_npz_policy_round_trip_and_checks(tmp_path):
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    game = Game(make_rules("classic", 2, None))
    path = _tiny_policy(tmp_path, game)
    meta = json.loads((tmp_path / "policy.json").read_text())
    assert meta["format"] == "uno-env policy v1" and meta["layers"] == 2 and meta["game"] == "classic"
    agent = load_agent(str(path), game, seed=0)
    assert isinstance(agent, NumpyPolicyAgent) and agent.name == "tiny"
    assert load_agent(str(tmp_path), game, seed=0).weights.num_actions == game.num_actions  # a run directory
    with pytest.raises(ValueError, match="trained for 'classic', not 'dice'"):
        load_agent(str(path), "dice")
    # an object array (what np.save pickles) is never unpickled
    bad = tmp_path / "objects.npz"
    np.savez(bad, meta=np.array(json.dumps({"layers": 1})), W0=np.array([object()], dtype=object),
             b0=np.zeros(1))
    with pytest.raises(ValueError, match="pickle-free"):
        load_weights(bad)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="truncated.npz"):
        load_agent(str(truncated), game)
