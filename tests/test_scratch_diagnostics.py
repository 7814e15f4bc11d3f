"""tools/scratch_diagnostics.py: decisions by kind, the hidden layer, what the colour choice is worth."""
from __future__ import annotations

import numpy as np
import pytest
from scripts import load_script

from uno_env.agents.policy import PolicyWeights, save_policy_files
from uno_env.config import make_rules
from uno_env.core.game import Game


def _policy(tmp_path, activation: str, scale: float = 1.0) -> str:
    rules = make_rules("classic", 2, None)
    g = Game(rules)
    rng = np.random.default_rng(0)
    sizes = [g.obs_dim + g.num_actions, 16, 16, g.num_actions]
    ws = [scale * rng.normal(size=(b, a)).astype(np.float32) / np.sqrt(a) for a, b in zip(sizes[:-1], sizes[1:])]
    bs = [np.zeros(b, dtype=np.float32) for b in sizes[1:]]
    pw = PolicyWeights(ws, bs, activation, "symlog", True)
    return save_policy_files(pw, str(tmp_path / "p.npz"), {"game": "classic", "num_players": 2,
                                                          "rules": rules.to_dict()})


def test_the_profile_names_every_kind_of_decision(tmp_path, capsys):
    bench = load_script("tools/scratch_diagnostics.py")
    assert bench.main([_policy(tmp_path, "relu"), "--games", "20", "--decisions", "2000"]) == 0
    out = capsys.readouterr().out
    for words in ("turn", "colour", "drawn card", "most-held colour", "last hidden layer",
                  "vs greedy, as trained", "vs greedy, random colour"):
        assert words in out


def test_a_saturated_tanh_layer_shows_as_stuck(tmp_path):
    bench = load_script("tools/scratch_diagnostics.py")
    from uno_env.agents.policy import NumpyPolicyAgent

    agent = NumpyPolicyAgent.load(_policy(tmp_path, "tanh", scale=200.0), deterministic=True)
    prof = bench.decision_profile(agent, Game(make_rules("classic", 2, None)), 1000, 0)
    assert prof["hidden_stuck"] > 0.8


def test_random_colour_only_changes_colour_choices():
    bench = load_script("tools/scratch_diagnostics.py")

    class First:
        name, num_actions = "first", 4

        def reset(self, seed=None):
            pass

        def act_batch(self, obs, masks):
            return np.argmax(np.asarray(masks) != 0, axis=1)

    colour = np.array([False, True, True, True])
    wrapped = bench.RandomColour(First(), colour, seed=0)
    masks = np.array([[1, 0, 0, 0], [0, 1, 1, 1]] * 50, dtype=np.int8)
    out = wrapped.act_batch(np.zeros((100, 3)), masks)
    assert (out[::2] == 0).all() and set(out[1::2].tolist()) == {1, 2, 3}
    with pytest.raises(SystemExit):
        bench.main(["x.npz", "--games", "3"])


def test_a_run_directory_adds_its_ppo_statistics(tmp_path, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("tensorboard")
    from uno_env.training.train import main as train

    run_dir = tmp_path / "run"
    assert train(["--config", "smoke_batched", "--run-dir", str(run_dir), "--no-progress", "--set",
                  "evaluation.games=10", "--set", "evaluation.final_games=20"]) == 0
    capsys.readouterr()
    bench = load_script("tools/scratch_diagnostics.py")
    assert bench.main([str(run_dir), "--games", "20", "--decisions", "500"]) == 0
    out = capsys.readouterr().out
    assert "PPO statistics" in out and "explained_variance" in out and "hidden_spread" in out
    stats = bench.training_statistics(str(run_dir))
    assert set(stats) == set(bench.TB_KEYS) and all(set(v) == {"first", "middle", "last"} for v in stats.values())
