"""Copy a training run's policy into the package as the ``ppo`` agent's policy for its game and player count.

    python tools/ship_policy.py runs/classic_ppo          # -> agents/policies/classic_2p.npz + .json
    python tools/ship_policy.py runs/classic4_distill     # an `uno-env distill` run: -> classic_4p.npz + .json

The weights are stored as float16 (half the size; the loader reads them as float32).  Before it is kept, the stored
file plays the learner's seat of real games (against the heuristic) beside the run's float32 policy: on the
decisions with a choice, the two must pick the same action at least 99% of the time (the share is saved in the
metadata as ``float16_agreement``).  The metadata also gets the run's final arena table and where it came from, and
what it cost: ``training_wall_time_seconds`` is the wall time of the command that finished the run (for a resumed
``uno-env distill`` run, its last session only), so a distilled policy also gets ``labelling_cpu_seconds``, what
labelling every file took over all the run's sessions.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from uno_env.agents.policy import NumpyPolicyAgent, load_weights, save_policy_files
from uno_env.config import RuleConfig

ROOT = Path(__file__).resolve().parents[1]
POLICIES_DIR = ROOT / "agents" / "policies"  # the ppo agent's shipped policies
MIN_AGREEMENT = 0.99


def float16_agreement(full: Path, half: Path, rules: RuleConfig, games: int = 256, steps: int = 60) -> float:
    """Share of the learner's decisions with two legal actions or more on which ``half`` picks ``full``'s action
    (both deterministic), over ``steps`` decisions of ``games`` games against the heuristic."""
    from uno_env.vector import UnoSingleAgentVectorEnv

    a = NumpyPolicyAgent.load(full, deterministic=True)
    b = NumpyPolicyAgent.load(half, deterministic=True)
    env = UnoSingleAgentVectorEnv(rules.game, games, rules=rules, opponents="heuristic", learner_seat="rotate",
                                  seed=0, num_threads=1)
    obs, masks = env.reset(0)
    same = total = 0
    for _ in range(steps):
        mine = a.act_batch(obs, masks)
        choice = (masks != 0).sum(1) > 1
        same += int((b.act_batch(obs, masks) == mine)[choice].sum())
        total += int(choice.sum())
        obs, masks, *_ = env.step(mine)
    env.close()
    return same / max(total, 1)


def main(run_dir: str, out_dir: Path = POLICIES_DIR) -> int:
    run = Path(run_dir)
    pw, meta = load_weights(run / "policy.npz")
    report = json.loads((run / "report.json").read_text())
    meta = {k: v for k, v in meta.items() if k not in ("format", "activation", "obs_transform", "include_mask",
                                                       "layers")}
    keys = ("opponent", "games", "wins", "win_rate", "ci_low", "ci_high", "interval")
    meta.update(name="ppo", trained_by=report.get("command", f"uno-env train --config {report['name']}"),
                training_wall_time_seconds=report["wall_time_seconds"],
                final_arena=[{k: r[k] for k in keys if k in r} for r in report["arena"]],
                stored_as="float16")
    if "labels" in report:  # uno-env distill: labelled over one session or several
        meta["labelling_cpu_seconds"] = report["labels"]["cpu_seconds_all"]
    head_to_head = report.get("evaluation", {}).get("head_to_head")  # uno-env distill at 3 or more players
    if head_to_head:
        meta["head_to_head"] = head_to_head
    out = Path(out_dir) / f"{meta['game']}_{meta['num_players']}p.npz"
    out.parent.mkdir(parents=True, exist_ok=True)
    rules = RuleConfig.from_dict(meta["rules"])
    tmp = out.with_name(out.stem + ".check.npz")
    save_policy_files(pw, str(tmp), meta, dtype=np.float16)
    agreement = float16_agreement(run / "policy.npz", tmp, rules)
    tmp.unlink()
    tmp.with_suffix(".json").unlink()
    if agreement < MIN_AGREEMENT:
        print(f"not shipped: the float16 copy picks the float32 policy's action on only {agreement:.2%} of the "
              f"decisions (at least {MIN_AGREEMENT:.0%} needed)", file=sys.stderr)
        return 1
    meta["float16_agreement"] = round(agreement, 5)
    save_policy_files(pw, str(out), meta, dtype=np.float16)
    print(f"{out}: {out.stat().st_size / 1024:.0f} KB; float16 agrees with float32 on {agreement:.2%} of the "
          f"decisions with a choice")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="copy a training run's policy into the package as the ppo agent's "
                                                 "policy for its game and player count (float16, checked)")
    parser.add_argument("run_dir", help="the run directory: its policy.npz and report.json")
    parser.add_argument("--out-dir", type=Path, default=POLICIES_DIR,
                        help="where to write GAME_Np.npz and .json (default: the package's agents/policies)")
    args = parser.parse_args()
    if not (Path(args.run_dir) / "policy.npz").is_file() or not (Path(args.run_dir) / "report.json").is_file():
        parser.error(f"{args.run_dir}: not a finished run (policy.npz and report.json are needed)")
    raise SystemExit(main(args.run_dir, args.out_dir))
