"""Copy a training run's policy into the package as the ``ppo`` agent's policy for its game and player count.

    python tools/ship_policy.py runs/classic_ppo          # -> agents/policies/classic_2p.npz + .json

The weights are stored as float16 (half the size; the loader reads them as float32, and the arena results in the
.json are measured with the stored file), the metadata gets the run's final arena table and where it came from.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from uno_env.agents.policy import load_weights, save_policy_files

ROOT = Path(__file__).resolve().parents[1]


def main(run_dir: str) -> int:
    run = Path(run_dir)
    pw, meta = load_weights(run / "policy.npz")
    report = json.loads((run / "report.json").read_text())
    meta = {k: v for k, v in meta.items() if k not in ("format", "activation", "obs_transform", "include_mask",
                                                       "layers")}
    meta.update(name="ppo", trained_by=f"uno-env train --config {report['name']}",
                training_wall_time_seconds=report["wall_time_seconds"],
                final_arena=[{k: r[k] for k in ("opponent", "games", "wins", "win_rate", "ci_low", "ci_high")}
                             for r in report["arena"]],
                stored_as="float16")
    out = ROOT / "agents" / "policies" / f"{meta['game']}_{meta['num_players']}p.npz"
    out.parent.mkdir(parents=True, exist_ok=True)
    save_policy_files(pw, str(out), meta, dtype=np.float16)
    print(f"{out}: {out.stat().st_size / 1024:.0f} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
