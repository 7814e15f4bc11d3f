"""Copy a training run's policy into the package as the ``ppo`` agent's policy for its game and player count.

    python tools/ship_policy.py runs/classic_ppo          # -> agents/policies/classic_2p.npz + .json
    python tools/ship_policy.py runs/classic4_distill     # an `uno-env distill` run: -> classic_4p.npz + .json
    python tools/ship_policy.py --scratch runs/scratch/classic_scratch_seed0   # -> scratch/classic_2p.npz + .json

``--scratch`` ships a policy trained from scratch (no heuristic advice, no imitation, no search labels: the run's
config is checked for each) into ``agents/policies/scratch/``, beside the ``ppo`` agent's files rather than in
their place; its metadata says so (``from_scratch``, ``training``) and gives the training's CPU time too.  Those
files are loaded by path (``uno-env evaluate agents/policies/scratch/classic_2p.npz greedy``).

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
SCRATCH_DIR = POLICIES_DIR / "scratch"  # policies trained from scratch, loaded by path
MIN_AGREEMENT = 0.99
#: what a policy trained from scratch learned from, in its metadata
FROM_SCRATCH = ("from scratch: PPO on the observation and the legal-action mask alone, against a league of the "
                "baselines and frozen snapshots of itself; no heuristic advice, no imitation, no search labels")


def scratch_problems(report: dict) -> list[str]:
    """Why a run's policy is not a from-scratch one (empty when it is): what its config says it learned from."""
    if "labels" in report:
        return ["an `uno-env distill` run learns from search labels"]
    cfg = report.get("config") or {}
    policy, ppo = cfg.get("policy", {}), cfg.get("ppo", {})
    problems = []
    if policy.get("advice", "none") != "none":
        problems.append(f"policy.advice is {policy['advice']!r} (the network is told the heuristic's choice)")
    if ppo.get("imitation_steps", 0):
        problems.append(f"ppo.imitation_steps is {ppo['imitation_steps']} (behaviour cloning of the heuristic)")
    if ppo.get("kickstart_coef", 0):
        problems.append(f"ppo.kickstart_coef is {ppo['kickstart_coef']} (a pull towards the heuristic's choices)")
    return problems


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


def main(run_dir: str, out_dir: Path | None = None, scratch: bool = False) -> int:
    run = Path(run_dir)
    pw, meta = load_weights(run / "policy.npz")
    report = json.loads((run / "report.json").read_text())
    if scratch and scratch_problems(report):
        print(f"not shipped as a from-scratch policy: {'; '.join(scratch_problems(report))}", file=sys.stderr)
        return 1
    out_dir = Path(out_dir) if out_dir is not None else (SCRATCH_DIR if scratch else POLICIES_DIR)
    meta = {k: v for k, v in meta.items() if k not in ("format", "activation", "obs_transform", "include_mask",
                                                       "layers")}
    keys = ("opponent", "games", "wins", "win_rate", "ci_low", "ci_high", "interval")
    meta.update(name="ppo", trained_by=report.get("command", f"uno-env train --config {report['name']}"),
                training_wall_time_seconds=report["wall_time_seconds"],
                final_arena=[{k: r[k] for k in keys if k in r} for r in report["arena"]],
                stored_as="float16")
    if scratch:
        meta.update(name=f"{meta['game']}_{meta['num_players']}p_scratch", from_scratch=True, training=FROM_SCRATCH,
                    # the training alone (its periodic evaluations included, the final arena not): wall and CPU
                    train_time_seconds=report.get("train_time_seconds"),
                    train_cpu_seconds=report.get("train_cpu_seconds"))
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
    parser.add_argument("--out-dir", type=Path, default=None,
                        help="where to write GAME_Np.npz and .json (default: the package's agents/policies, or "
                             "agents/policies/scratch with --scratch)")
    parser.add_argument("--scratch", action="store_true",
                        help="a policy trained from scratch (checked: no advice, imitation, kickstarting or search "
                             "labels), shipped to agents/policies/scratch")
    args = parser.parse_args()
    if not (Path(args.run_dir) / "policy.npz").is_file() or not (Path(args.run_dir) / "report.json").is_file():
        parser.error(f"{args.run_dir}: not a finished run (policy.npz and report.json are needed)")
    raise SystemExit(main(args.run_dir, args.out_dir, args.scratch))
