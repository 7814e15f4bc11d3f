"""What a ``uno-env train`` run keeps besides the model: the opponent pool, the schedule of snapshots,
evaluations and checkpoints, the evaluation history, the wall clock and the progress display.

The trainer calls :meth:`RunState.between_rollouts` whenever the model is consistent (trained on every rollout
it has seen) and :meth:`RunState.advance` as environment steps are taken; :meth:`RunState.state` /
:meth:`RunState.load_state` are what a checkpoint stores and a resume restores.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from uno_env.agents.policy import NumpyPolicyAgent, save_weights
from uno_env.config import make_rules

from .arena import against_baselines
from .checkpoints import STATE_FILE, TrainError, check_state, rng_states, save_checkpoint
from .config import TrainConfig, config_to_dict
from .envs import broadcast_pool
from .pool import OpponentPool

__all__ = ["RunState", "next_multiple", "show_path"]

Record = Callable[[str, Any], None]


def next_multiple(step: int, every: int) -> int:
    """The first multiple of ``every`` after ``step``."""
    return (step // every + 1) * every


def show_path(path: str) -> str:
    """``path`` relative to the working directory when it is inside it, else absolute."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


class RunState:
    """One run's state besides the model: the opponent pool and the schedule of snapshots, evaluations and checkpoints.
    """
    def __init__(self, cfg: TrainConfig, run_dir: str, algo):
        self.cfg = cfg
        self.run_dir = run_dir
        self.algo = algo
        o = cfg.opponents
        self.pool = OpponentPool(o.baselines, o.selfplay_prob, o.latest_prob, o.pool_size, seed=cfg.seed + 17,
                                 sampling=o.sampling, pfsp=o.pfsp)
        self.eval_history: list[dict] = []
        self.selfplay_start = int(round(o.selfplay_start * cfg.total_steps))
        self.next_snapshot = max(self.selfplay_start, 1) if o.selfplay_start < 1.0 else None
        self.next_eval = cfg.evaluation.every if cfg.evaluation.every > 0 else None
        self.next_checkpoint = cfg.checkpoint_every
        self.wall_time_before = 0.0  # seconds spent in earlier sessions of this run
        self.session_start = time.time()
        # CPU seconds of this process (all its threads), earlier sessions included: on a shared machine the wall
        # time says more about the neighbours than about the run
        self.cpu_time_before = 0.0
        self.session_cpu_start = time.process_time()
        self.sessions = 1
        self.venv = None
        self.pbar = None

    # -- checkpoint state -----------------------------------------------------------------------
    def state(self, step: int) -> dict:
        """The run's state at ``step`` as plain data, saved with each checkpoint."""
        return {
            "step": int(step),
            "config": config_to_dict(self.cfg),
            "pool": self.pool.state_dict(),
            "eval_history": self.eval_history,
            "next_snapshot": self.next_snapshot,
            "next_eval": self.next_eval,
            "next_checkpoint": self.next_checkpoint,
            "wall_time": self.wall_time(),
            "cpu_time": self.cpu_time(),
            "sessions": self.sessions,
            "rng": rng_states(),
            "seed": self.cfg.seed,
        }

    def load_state(self, d: dict, source: str = STATE_FILE) -> None:
        """Restore the run's state from :meth:`state` output (when resuming); ``source`` names the file it came from
        in the TrainError a damaged state raises."""
        check_state(d, source)
        try:
            self.pool.load_state_dict(d["pool"])
        except (KeyError, TypeError, ValueError) as e:
            raise TrainError(f"{source}: key 'pool': not an opponent pool's state ({e})") from None
        # snapshot paths are stored absolute; re-anchor them if the run directory moved
        for s in self.pool.snapshots:
            if not os.path.exists(s["path"]):
                s["path"] = os.path.join(self.run_dir, "pool", os.path.basename(s["path"]))
        self.eval_history = list(d["eval_history"])
        self.next_snapshot = d["next_snapshot"]
        self.next_eval = d["next_eval"]
        self.next_checkpoint = d["next_checkpoint"]
        self.wall_time_before = float(d["wall_time"])
        cpu = d.get("cpu_time", 0.0)  # checkpoints written before it was kept have none
        self.cpu_time_before = float(cpu) if isinstance(cpu, (int, float)) and not isinstance(cpu, bool) else 0.0
        self.sessions = int(d.get("sessions", 1)) + 1

    def wall_time(self) -> float:
        """Seconds spent training in this run, earlier commands of the run (before a resume) included."""
        return self.wall_time_before + (time.time() - self.session_start)

    def cpu_time(self) -> float:
        """CPU seconds this run's training process used, earlier commands of the run included (the arena's worker
        processes, with ``evaluation.workers`` above 1, are not counted)."""
        return self.cpu_time_before + (time.process_time() - self.session_cpu_start)

    def checkpoint(self, model, step: int) -> str:
        """Write a checkpoint of ``model`` and the run's state at ``step``; returns its directory."""
        return save_checkpoint(self.run_dir, lambda path: self.algo.save(model, path), self.state(step),
                               self.cfg.keep_checkpoints)

    # -- progress -------------------------------------------------------------------------------
    def start_progress(self, step: int) -> None:
        """Show a progress bar from ``step`` on (with ``progress_bar`` in the config and tqdm installed)."""
        if self.cfg.progress_bar:
            try:  # tqdm is in the train extra: without it, no bar
                from tqdm import tqdm
            except ImportError:
                return
            self.pbar = tqdm(total=self.cfg.total_steps, initial=min(step, self.cfg.total_steps), unit="step",
                             unit_scale=True, dynamic_ncols=True, desc=self.cfg.name, mininterval=1.0,
                             smoothing=0.05)

    def advance(self, steps: int) -> None:
        """Move the progress bar on by ``steps``."""
        if self.pbar is not None:
            self.pbar.update(steps)

    def stop_progress(self) -> None:
        """Close the progress bar."""
        if self.pbar is not None:
            self.pbar.close()
            self.pbar = None

    def write(self, text: str) -> None:
        """Print a line without breaking the progress bar."""
        if self.pbar is not None:
            self.pbar.write(text)
        else:
            print(text, flush=True)

    # -- between rollouts -----------------------------------------------------------------------
    def between_rollouts(self, model, step: int, record: Record) -> None:
        """Between two rollouts: start self-play, take snapshots, evaluate and checkpoint when due."""
        cfg = self.cfg
        changed = False
        if not self.pool.selfplay_active and cfg.opponents.selfplay_start < 1.0 and step >= self.selfplay_start \
                and step > 0:
            self.pool.selfplay_active = True
            changed = True
        if self.next_snapshot is not None and step >= self.next_snapshot and step > 0:
            self.add_snapshot(model, step)
            self.next_snapshot = step + cfg.opponents.snapshot_every
            changed = True
        if changed:
            broadcast_pool(self.venv, self.pool)
        if self.next_eval is not None and step >= self.next_eval:
            self.evaluate(model, step, record)
            self.next_eval = next_multiple(step, cfg.evaluation.every)
        if step >= self.next_checkpoint:
            self.next_checkpoint = next_multiple(step, cfg.checkpoint_every)
            path = self.checkpoint(model, step)
            self.write(f"checkpoint: {show_path(path)} (step {step:,})")
        p = self.pool.probabilities()
        record("selfplay/pool_size", len(self.pool.snapshots))
        record("selfplay/snapshot_prob", sum(v for k, v in p.items() if k not in self.pool.baseline_names))

    def add_snapshot(self, model, step: int) -> None:
        """Save the current policy as a self-play snapshot and add it to the pool."""
        os.makedirs(os.path.join(self.run_dir, "pool"), exist_ok=True)
        path = os.path.join(self.run_dir, "pool", f"snapshot_{step:012d}.npz")
        save_weights(self.algo.export(model), path, {"name": f"snapshot_{step}", "step": step})
        self.pool.add_snapshot(path, step, name=f"snapshot_{step}")

    def learner_agent(self, model, deterministic: bool = True):
        """The current policy as an arena agent."""
        e = self.cfg.env
        return NumpyPolicyAgent(self.algo.export(model), name="learner", deterministic=deterministic,
                                game=make_rules(e.game, e.num_players, e.rules))

    def arena(self, agent, games: int, seed: int, workers: int, progress: bool = False) -> list[dict[str, Any]]:
        """The arena rows of ``agent`` against each evaluation opponent (win rates with intervals)."""
        e, ev = self.cfg.env, self.cfg.evaluation
        return against_baselines(agent, ev.opponents, e.game, e.num_players, e.rules, games, seed, workers=workers,
                                 progress=progress, confidence=ev.confidence, duplicate=ev.duplicate)

    def evaluate(self, model, step: int, record: Record) -> None:
        """Play the current policy against the evaluation opponents and log the win rates."""
        ev = self.cfg.evaluation
        t0 = time.time()
        rows = self.arena(self.learner_agent(model, ev.deterministic), ev.games, ev.seed + step, ev.workers)
        secs = time.time() - t0
        # wall and CPU time so far include this evaluation's; "seconds" is what it took, so a learning curve can
        # give the training time alone
        self.eval_history.append({"step": step, "wall_time": round(self.wall_time(), 1),
                                  "cpu_time": round(self.cpu_time(), 1), "seconds": round(secs, 1), "results": rows})
        parts = []
        for r in rows:
            record(f"eval/win_rate_{r['opponent']}", r["win_rate"])
            record(f"eval/ci_low_{r['opponent']}", r["ci_low"])
            record(f"eval/ci_high_{r['opponent']}", r["ci_high"])
            parts.append(f"{r['opponent']} {100 * r['win_rate']:.1f}% "
                         f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]")
        record("eval/seconds", secs)
        self.write(f"eval @ {step:,} steps ({ev.games} games each, {secs:.0f} s): {' | '.join(parts)}")
        if self.pbar is not None:
            self.pbar.set_postfix_str(", ".join(f"{r['opponent'][:5]} {100 * r['win_rate']:.0f}%" for r in rows),
                                      refresh=False)
