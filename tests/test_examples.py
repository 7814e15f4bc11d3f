"""The examples in examples/ run unchanged (in a short form)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


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
