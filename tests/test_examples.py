"""The examples in examples/ run unchanged in a short form (``--quick`` or small sizes) and report their result."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _run(script: str, tmp_path: Path, *args: str) -> str:
    result = subprocess.run([sys.executable, str(EXAMPLES / script), "--quick", *args], cwd=tmp_path,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"{script} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    return result.stdout


def test_every_example_has_a_test():
    tested = {"tianshou_dqn.py", "torchrl_pettingzoo.py", "rllib_ppo.py"}
    assert {p.name for p in EXAMPLES.glob("*.py")} >= tested
    for name in tested:
        assert "--quick" in (EXAMPLES / name).read_text(encoding="utf-8")


def test_tianshou_masked_dqn(tmp_path):
    pytest.importorskip("tianshou")
    out = _run("tianshou_dqn.py", tmp_path, "--game", "dice")
    assert re.search(r"dice: DQN learner vs random, 2 games: win rate [\d.]+%, mean return [-+][\d.]+", out), out


def test_torchrl_pettingzoo_wrapper_with_masks(tmp_path):
    pytest.importorskip("torchrl")
    out = _run("torchrl_pettingzoo.py", tmp_path)
    assert re.search(r"update 1: 2 games, \d+ steps, loss [-+][\d.]+", out), out
    assert re.search(r"classic: TorchRL policy vs random, 3 games: win rate [\d.]+%", out), out


def test_rllib_ppo_with_the_masking_module(tmp_path):
    pytest.importorskip("ray.rllib")
    out = _run("rllib_ppo.py", tmp_path)
    assert len(re.findall(r"^iteration \d+: ", out, re.M)) == 2, out


def test_cleanrl_masked_ppo_runs(tmp_path):
    pytest.importorskip("torch")
    save = tmp_path / "agent.pt"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "cleanrl_masked_ppo.py"), "--total-timesteps", "2048", "--num-envs", "4",
         "--num-steps", "256", "--update-epochs", "2", "--save-path", str(save)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("iteration ")]
    assert len(lines) == 2 and "global_step=2048" in lines[-1]
    assert save.stat().st_size > 0
