"""``uno-env train``: MaskablePPO against the baselines, then against a self-play pool, with an honest report.

    uno-env train --config configs/train/classic_ppo.yaml            # a run in runs/classic_ppo/
    uno-env train --config configs/train/classic_ppo.yaml --resume   # continue it after a stop or a crash
    uno-env train --config configs/train/smoke.yaml --set ppo.learning_rate=1e-4 --total-steps 20000

The script reads top to bottom:

1. **Config** (``training/config.py``): YAML + ``--set`` overrides, every key checked before anything starts.
2. **Seeding**: ``seed`` seeds Python, numpy, torch, the environments and the opponent pool.
3. **Environments**: ``env.n_envs`` copies of the Gymnasium env (``uno_env/Classic-v0`` ...), each wrapped so
   that the other seats' players are drawn from the opponent pool at every episode (``training/selfplay.py``),
   run as an SB3 ``DummyVecEnv``/``SubprocVecEnv`` or the batched simulator's VecEnv.
4. **Learning**: sb3-contrib ``MaskablePPO`` (the mask comes from the env's ``action_masks()``); at rollout
   boundaries a callback adds frozen snapshots to the pool, runs the arena against every baseline (win rate
   and interval to TensorBoard and to the eval history) and writes resumable checkpoints.
5. **Finish**: the final policy (``policy.zip``, loadable by ``uno-env evaluate``/``play`` by path), a large
   final arena evaluation, and ``report.md``/``report.json``/``learning_curve.png``.

Run directory ``runs/<name>/``::

    config.yaml            the resolved config
    checkpoints/step_<N>/  model.zip (weights + optimizer), state.json (step, pool, eval history, RNG states),
                           torch_rng.pt; written to a temp dir and renamed, so a checkpoint is whole or absent
    pool/                  frozen snapshots (numpy .npz) the opponent pool draws from
    tb/                    TensorBoard logs
    policy.zip             final MaskablePPO policy; policy.json (game, rules, sizes) and policy.npz beside it
    report.md report.json learning_curve.png
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from typing import Any, Sequence

import gymnasium as gym
import numpy as np

from .config import ConfigError, TrainConfig, config_from_dict, config_to_dict, read_yaml
from .config import apply_overrides, parse_overrides
from .selfplay import SNAPSHOT_PREFIX, OpponentPool, SnapshotAgent, make_opponent

CHECKPOINT_DIR = "checkpoints"
STATE_FILE = "state.json"
COMPLETE_MARK = "COMPLETE"
POLICY_FILE = "policy.zip"


class TrainError(RuntimeError):
    """A run that cannot start or continue (missing checkpoint, run directory in the way, missing extra)."""


# =============================================================================================
# command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env train``."""
    parser.add_argument("--config", metavar="YAML", help="training config (configs/train/*.yaml); "
                        "without it the defaults of training/config.py are used")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run from its latest complete checkpoint (the config saved with the run "
                             "is used; --set and --total-steps still apply)")
    parser.add_argument("--name", help="run name (default: the config's 'name'); the run lives in runs_dir/NAME")
    parser.add_argument("--run-dir", metavar="DIR", help="run directory (default: runs_dir/name)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config key, e.g. --set ppo.learning_rate=1e-4 --set env.n_envs=8 "
                             "(repeatable; values are read as YAML)")
    parser.add_argument("--total-steps", type=int, metavar="N", help="override total_steps")
    parser.add_argument("--overwrite", action="store_true",
                        help="delete an existing run directory of the same name and start again")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    """``uno-env train``: prepare the run directory, train and write the report; returns the exit status."""
    try:
        cfg, run_dir, checkpoint = prepare(args)
    except (ConfigError, TrainError) as e:
        print(f"uno-env train: error: {e}", file=sys.stderr)
        return 2
    try:
        summary = train(cfg, run_dir, checkpoint)
    except TrainError as e:
        print(f"uno-env train: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted; continue with: uno-env train --run-dir {run_dir} --resume", file=sys.stderr)
        return 130
    print(f"\nreport: {os.path.join(run_dir, 'report.md')}")
    print(f"policy: {summary['policy']}  (uno-env evaluate / uno-env play load it by path)")
    return 0


def prepare(args: argparse.Namespace) -> tuple[TrainConfig, str, str | None]:
    """The validated config, the run directory and the checkpoint to resume from (None = a fresh run).

    Everything that can be wrong with the config or the run directory is reported here, before any import of
    torch and before any training.
    """
    overrides = list(getattr(args, "overrides", []) or [])
    top: dict[str, Any] = {}
    if getattr(args, "total_steps", None) is not None:
        top["total_steps"] = args.total_steps
    if getattr(args, "name", None):
        top["name"] = args.name
    if args.config is not None:
        data = read_yaml(args.config)
    else:
        data = {}
    data = apply_overrides(data, parse_overrides(overrides))
    data.update(top)
    cfg = config_from_dict(data)
    run_dir = os.path.abspath(args.run_dir or os.path.join(cfg.runs_dir, cfg.name))
    checkpoint = None
    if getattr(args, "resume", False):
        checkpoint = latest_checkpoint(run_dir)
        if checkpoint is None:
            if not os.path.isdir(run_dir):
                raise TrainError(f"--resume: no run at {run_dir} (check --config/--name/--run-dir)")
            print(f"--resume: {run_dir} has no complete checkpoint yet; starting the run from the beginning")
        else:
            # the run's own config, with this command's overrides on top
            saved = _read_json(os.path.join(checkpoint, STATE_FILE))["config"]
            data = apply_overrides(saved, parse_overrides(overrides))
            data.update(top)
            data["name"] = saved["name"] if "name" not in top else top["name"]
            cfg = config_from_dict(data)
            fixed = _changed_fixed_keys(saved, config_to_dict(cfg))
            if fixed:
                raise ConfigError(f"--resume: {', '.join(fixed)} cannot change in the middle of a run (the saved "
                                  f"model and environments depend on them); start a new run with --name instead")
    elif os.path.isdir(run_dir) and os.listdir(run_dir):
        if getattr(args, "overwrite", False):
            shutil.rmtree(run_dir)
        else:
            raise TrainError(
                f"run directory {run_dir} already exists. Continue it with --resume, start over with --overwrite, "
                f"or pick another --name")
    if getattr(args, "no_progress", False):
        cfg.progress_bar = False
    return cfg, run_dir, checkpoint


# sections and keys that the saved model, its optimizer and the environments depend on
_FIXED_ON_RESUME = ("seed", "env", "policy", "ppo")


def _changed_fixed_keys(old: dict, new: dict, prefix: str = "") -> list[str]:
    out = []
    for key in _FIXED_ON_RESUME if not prefix else sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict) and key != "rules":
            out += _changed_fixed_keys(a, b, prefix + key + ".")
        elif a != b:
            out.append(prefix + key)
    return out


# =============================================================================================
# the training stack (torch, stable-baselines3, sb3-contrib): imported only once the config is valid


def _import_stack():
    try:
        import torch  # noqa: F401
        import sb3_contrib  # noqa: F401
        import stable_baselines3  # noqa: F401
    except ImportError as e:
        raise TrainError(f"training needs the train extra ({e}); install it with: pip install -e '.[train]' "
                         f"(or run `make train`, which sets up .venv)") from None


# =============================================================================================
# environments


class _OpponentSampler:
    """Draws the other seats' players from the opponent pool (one per seat, every episode).

    The pool's snapshot list is pushed in by the trainer (``set_pool``), so it works across processes.
    Opponent agents are built once per spec and cached (snapshots are numpy, a few hundred kB).
    """

    def __init__(self, pool: OpponentPool, game, num_opponents: int, seed: int, deterministic: bool):
        self.pool = pool
        self.game = game
        self.num_opponents = num_opponents
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.pool.rng = np.random.default_rng(self.rng.integers(2**63))
        self._cache: dict[str, Any] = {}
        self.current: list[str] = []

    def agent(self, spec: str):
        agent = self._cache.get(spec)
        if agent is None:
            agent = make_opponent(spec, self.game, seed=int(self.rng.integers(2**31)),
                                  deterministic=self.deterministic)
            self._cache[spec] = agent
        return agent

    def set_pool(self, snapshots: list[dict], selfplay_active: bool) -> None:
        self.pool.snapshots = [dict(s) for s in snapshots]
        self.pool.selfplay_active = bool(selfplay_active)
        keep = {SNAPSHOT_PREFIX + s["path"] for s in snapshots}
        for spec in [s for s in self._cache if s.startswith(SNAPSHOT_PREFIX) and s not in keep]:
            del self._cache[spec]

    def draw(self) -> list:
        """New opponents for the next episode: agent objects, one per other seat."""
        self.current = self.pool.sample(self.num_opponents)
        return [self.agent(s) for s in self.current]


class PoolWrapper(gym.Wrapper):
    """Sets the other seats' players, drawn from the opponent pool, before every episode."""

    def __init__(self, env, sampler: _OpponentSampler):
        super().__init__(env)
        self.sampler = sampler
        self._fresh = True  # the opponents given to the env's constructor serve the first episode

    def reset(self, *, seed=None, options=None):
        """Draw new opponents from the pool (after the first episode), then reset the wrapped env."""
        if self._fresh:
            self._fresh = False
        else:
            _set_opponents(self.env, self.sampler.draw())
        obs, info = self.env.reset(seed=seed, options=options)
        info = dict(info)
        info["opponents"] = list(self.sampler.current)
        return obs, info

    def set_pool(self, snapshots, selfplay_active):
        """Replace the self-play snapshots the opponents are drawn from."""
        self.sampler.set_pool(snapshots, selfplay_active)

    def action_masks(self):
        """The learner's legal actions (what MaskablePPO calls)."""
        return self.env.unwrapped.action_masks()


def _set_opponents(env, agents: list) -> None:
    env.unwrapped.set_opponents(agents)


def _make_wrapped_env(cfg_dict: dict, rank: int, seed: int, pool_state: dict):
    """Env ``rank`` (built in whichever process runs it): the Gymnasium env + opponent pool + Monitor."""
    from stable_baselines3.common.monitor import Monitor

    from uno_env.config import make_rules
    from uno_env.core.game import Game
    from uno_env.gym_env import UnoGymEnv

    cfg = config_from_dict(cfg_dict, validate=False)
    e, o = cfg.env, cfg.opponents
    pool = OpponentPool(o.baselines, o.selfplay_prob, o.latest_prob, o.pool_size, seed=seed)
    pool.snapshots = [dict(s) for s in pool_state.get("snapshots", [])]
    pool.selfplay_active = bool(pool_state.get("selfplay_active", False))
    rules = make_rules(e.game, e.num_players, e.rules)
    game = Game(rules)
    sampler = _OpponentSampler(pool, game, e.num_players - 1, seed + 7919, o.deterministic)
    base = UnoGymEnv(game=e.game, num_players=e.num_players, rules=rules, opponents=sampler.draw(),
                     learner_seat=e.learner_seat)
    return Monitor(PoolWrapper(base, sampler))


def make_vec_env(cfg: TrainConfig, pool: OpponentPool, seed: int):
    """``cfg.env.n_envs`` environments as one SB3 VecEnv (the kind chosen by ``env.vec_env``)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    kind = cfg.env.vec_env
    if kind == "batched":
        venv = _batched_vec_env(cfg, seed)
        venv.seed(seed)
        return venv
    cfg_dict = config_to_dict(cfg)
    pool_state = {"snapshots": pool.snapshots, "selfplay_active": pool.selfplay_active}
    fns = [_EnvFn(cfg_dict, i, seed + 1000 * i, pool_state) for i in range(cfg.env.n_envs)]
    if kind == "subproc":
        venv = SubprocVecEnv(fns, start_method="fork" if sys.platform.startswith("linux") else None)
    else:
        venv = DummyVecEnv(fns)
    venv.seed(seed)
    return venv


class _EnvFn:
    """A picklable env factory (SubprocVecEnv ships it to the worker)."""

    def __init__(self, cfg_dict, rank, seed, pool_state):
        self.args = (cfg_dict, rank, seed, pool_state)

    def __call__(self):
        return _make_wrapped_env(*self.args)


def _batched_vec_env(cfg: TrainConfig, seed: int):
    """The batched simulator's SB3 VecEnv (``uno_env.vector``): one baseline in every other seat, no self-play.

    It runs every game in one compiled call and the opponents through ``act_batch``, but its opponents are fixed
    per environment, so it cannot draw a new opponent each episode (the config check enforces one baseline and
    ``opponents.selfplay_start: 1.0`` with it).
    """
    from uno_env.agents.registry import load_agent
    from uno_env.config import make_rules
    from uno_env.core.game import Game
    from uno_env.vector import make_sb3_vec_env

    e = cfg.env
    rules = make_rules(e.game, e.num_players, e.rules)
    (name,) = [n for n, w in cfg.opponents.baselines.items() if w > 0]
    opponent = "random" if name == "random" else load_agent(name, Game(rules), seed=seed)
    seat = "rotate" if e.learner_seat == "random" else e.learner_seat
    venv = make_sb3_vec_env(e.game, e.n_envs, num_players=e.num_players, rules=rules, opponents=opponent,
                            learner_seat=seat, seed=seed)
    return venv


def broadcast_pool(venv, pool: OpponentPool) -> None:
    """Push the pool's snapshot list to every environment (in whichever process it runs)."""
    venv.env_method("set_pool", [dict(s) for s in pool.snapshots], pool.selfplay_active)


# =============================================================================================
# the arena


def run_arena(agent, opponents: Sequence[str], cfg: TrainConfig, games: int, seed: int,
              progress: bool = False, workers: int = 1) -> list[dict[str, Any]]:
    """Win rate of ``agent`` against each named baseline over ``games`` games, with intervals.

    Each row comes from ``training.evaluate.run_arena`` (the arena of ``uno-env evaluate``: seats rotate, every
    game seeded from ``(seed, index)``), the agent alone against one baseline in every other seat.
    """
    from .report import wilson_interval

    rows = []
    for name in opponents:
        t0 = time.time()
        res = _arena_match(agent, name, cfg, games, seed, progress, workers)
        lo, hi = wilson_interval(res["wins"], res["games"], cfg.evaluation.confidence)
        rows.append({"opponent": name, "games": res["games"], "wins": res["wins"], "draws": res.get("draws", 0),
                     "win_rate": res["wins"] / max(res["games"], 1), "ci_low": lo, "ci_high": hi,
                     "mean_length": res.get("mean_length"), "seconds": round(time.time() - t0, 2)})
    return rows


def _arena_match(agent, opponent: str, cfg: TrainConfig, games: int, seed: int, progress: bool,
                 workers: int) -> dict:
    from uno_env.config import make_rules

    from .evaluate import run_arena as arena

    e = cfg.env
    rules = make_rules(e.game, e.num_players, e.rules)
    # the agent alone against one copy of the baseline in every other seat (fair share: 1 / num_players)
    res = arena([agent] + [opponent] * (e.num_players - 1), game=e.game, num_players=e.num_players, rules=rules,
                games=games, seed=seed, workers=workers, progress=progress, ratings=False)
    me = res.agents[0]
    return {"games": me.games, "wins": me.wins, "draws": me.truncated, "mean_length": res.mean_length}


# =============================================================================================
# checkpoints


def latest_checkpoint(run_dir: str) -> str | None:
    """The newest complete checkpoint directory of a run (None if there is none)."""
    root = os.path.join(run_dir, CHECKPOINT_DIR)
    if not os.path.isdir(root):
        return None
    best = None
    for name in os.listdir(root):
        path = os.path.join(root, name)
        if name.startswith("step_") and os.path.isfile(os.path.join(path, COMPLETE_MARK)):
            try:
                step = int(name[5:])
            except ValueError:
                continue
            if best is None or step > best[0]:
                best = (step, path)
    return best[1] if best else None


def _read_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise TrainError(f"cannot read {path}: {e}") from None


def _write_json(path: str, data: Any) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, default=_json_default)
    os.replace(tmp, path)


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def save_checkpoint(run_dir: str, model, state: dict, keep: int) -> str:
    """Write ``checkpoints/step_<N>`` atomically (temp dir, then rename) and prune old ones."""
    import torch

    root = os.path.join(run_dir, CHECKPOINT_DIR)
    os.makedirs(root, exist_ok=True)
    step = int(state["step"])
    final = os.path.join(root, f"step_{step:012d}")
    tmp = os.path.join(root, f".tmp_step_{step:012d}_{os.getpid()}")
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    os.makedirs(tmp)
    model.save(os.path.join(tmp, "model.zip"))
    torch.save(torch.get_rng_state(), os.path.join(tmp, "torch_rng.pt"))
    _write_json(os.path.join(tmp, STATE_FILE), state)
    with open(os.path.join(tmp, COMPLETE_MARK), "w") as f:
        f.write(f"{step}\n")
    if os.path.exists(final):
        shutil.rmtree(final)
    os.replace(tmp, final)
    # prune: keep the newest `keep` complete checkpoints; drop stale temp dirs
    entries = sorted(n for n in os.listdir(root) if n.startswith("step_"))
    for n in entries[:-keep]:
        shutil.rmtree(os.path.join(root, n), ignore_errors=True)
    for n in os.listdir(root):
        if n.startswith(".tmp_") and not n.endswith(f"_{os.getpid()}"):
            shutil.rmtree(os.path.join(root, n), ignore_errors=True)
    return final


def _rng_states() -> dict:
    st = random.getstate()
    return {"python": [st[0], list(st[1]), st[2]], "numpy": _np_state_to_json(np.random.get_state())}


def _np_state_to_json(s) -> list:
    return [s[0], s[1].tolist(), int(s[2]), int(s[3]), float(s[4])]


def _restore_rng_states(d: dict, checkpoint: str) -> None:
    import torch

    py = d["python"]
    random.setstate((py[0], tuple(py[1]), py[2]))
    n = d["numpy"]
    np.random.set_state((n[0], np.array(n[1], dtype=np.uint32), n[2], n[3], n[4]))
    path = os.path.join(checkpoint, "torch_rng.pt")
    if os.path.exists(path):
        torch.set_rng_state(torch.load(path, weights_only=True))


# =============================================================================================
# the callback: snapshots, evaluation, checkpoints, progress


def _make_callback_class():
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainingCallback(BaseCallback):
        """Work done between rollouts (the model is then consistent: trained on every rollout it has seen)."""

        def __init__(self, trainer: "Trainer"):
            super().__init__(verbose=0)
            self.trainer = trainer
            self.pbar = None

        def _on_training_start(self) -> None:
            t = self.trainer
            if t.cfg.progress_bar:
                try:
                    from tqdm import tqdm

                    self.pbar = tqdm(total=t.cfg.total_steps, initial=min(self.model.num_timesteps,
                                                                           t.cfg.total_steps),
                                     unit="step", unit_scale=True, dynamic_ncols=True, desc=t.cfg.name,
                                     mininterval=1.0, smoothing=0.05)
                except ImportError:
                    self.pbar = None

        def _on_rollout_start(self) -> None:
            self.trainer.between_rollouts(self.model, self.logger, self)

        def _on_step(self) -> bool:
            if self.pbar is not None:
                self.pbar.update(self.training_env.num_envs)
            return True

        def set_postfix(self, text: str) -> None:
            if self.pbar is not None:
                self.pbar.set_postfix_str(text, refresh=False)

        def write(self, text: str) -> None:
            if self.pbar is not None:
                self.pbar.write(text)
            else:
                print(text, flush=True)

        def _on_training_end(self) -> None:
            if self.pbar is not None:
                self.pbar.close()
                self.pbar = None

    return TrainingCallback


# =============================================================================================
# the run


class Trainer:
    """One run's state besides the model: the pool, the schedule of snapshots/evaluations/checkpoints."""

    def __init__(self, cfg: TrainConfig, run_dir: str):
        self.cfg = cfg
        self.run_dir = run_dir
        o = cfg.opponents
        self.pool = OpponentPool(o.baselines, o.selfplay_prob, o.latest_prob, o.pool_size, seed=cfg.seed + 17)
        self.eval_history: list[dict] = []
        self.selfplay_start = int(round(o.selfplay_start * cfg.total_steps))
        self.next_snapshot = max(self.selfplay_start, 1) if o.selfplay_start < 1.0 else None
        self.next_eval = cfg.evaluation.every if cfg.evaluation.every > 0 else None
        self.next_checkpoint = cfg.checkpoint_every
        self.wall_time_before = 0.0  # seconds spent in earlier sessions of this run
        self.session_start = time.time()
        self.sessions = 1
        self.venv = None
        self.game = None

    # -- state ----------------------------------------------------------------------------------
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
            "sessions": self.sessions,
            "rng": _rng_states(),
            "seed": self.cfg.seed,
        }

    def load_state(self, d: dict) -> None:
        """Restore the run's state from :meth:`state` output (when resuming)."""
        self.pool.load_state_dict(d["pool"])
        # snapshot paths are stored absolute; re-anchor them if the run directory moved
        for s in self.pool.snapshots:
            if not os.path.exists(s["path"]):
                s["path"] = os.path.join(self.run_dir, "pool", os.path.basename(s["path"]))
        self.eval_history = list(d["eval_history"])
        self.next_snapshot = d["next_snapshot"]
        self.next_eval = d["next_eval"]
        self.next_checkpoint = d["next_checkpoint"]
        self.wall_time_before = float(d["wall_time"])
        self.sessions = int(d.get("sessions", 1)) + 1

    def wall_time(self) -> float:
        """Seconds spent training in this run, earlier sessions included."""
        return self.wall_time_before + (time.time() - self.session_start)

    # -- between rollouts -----------------------------------------------------------------------
    def between_rollouts(self, model, logger, cb) -> None:
        """Between two rollouts: start self-play, take snapshots, evaluate and checkpoint when due."""
        step = int(model.num_timesteps)
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
            self.evaluate(model, step, logger, cb)
            self.next_eval = _next_multiple(step, cfg.evaluation.every)
        if step >= self.next_checkpoint:
            self.next_checkpoint = _next_multiple(step, cfg.checkpoint_every)
            path = save_checkpoint(self.run_dir, model, self.state(step), cfg.keep_checkpoints)
            cb.write(f"checkpoint: {_show_path(path)} (step {step:,})")
        p = self.pool.probabilities()
        logger.record("selfplay/pool_size", len(self.pool.snapshots))
        logger.record("selfplay/snapshot_prob", sum(v for k, v in p.items() if k not in self.pool.baseline_names))

    def add_snapshot(self, model, step: int) -> None:
        """Save the current policy as a self-play snapshot and add it to the pool."""
        from .selfplay import export_policy, save_weights

        os.makedirs(os.path.join(self.run_dir, "pool"), exist_ok=True)
        path = os.path.join(self.run_dir, "pool", f"snapshot_{step:012d}.npz")
        save_weights(export_policy(model.policy), path, {"name": f"snapshot_{step}", "step": step})
        self.pool.add_snapshot(path, step, name=f"snapshot_{step}")

    def learner_agent(self, model, deterministic: bool = True) -> SnapshotAgent:
        """The current policy as an arena agent."""
        from .selfplay import export_policy

        return SnapshotAgent(export_policy(model.policy), name="learner", deterministic=deterministic)

    def evaluate(self, model, step: int, logger, cb) -> None:
        """Play the current policy against the evaluation opponents and log the win rates."""
        ev = self.cfg.evaluation
        t0 = time.time()
        rows = run_arena(self.learner_agent(model, ev.deterministic), ev.opponents, self.cfg, ev.games,
                         ev.seed + step, workers=ev.workers)
        entry = {"step": step, "wall_time": round(self.wall_time(), 1), "results": rows}
        self.eval_history.append(entry)
        parts = []
        for r in rows:
            logger.record(f"eval/win_rate_{r['opponent']}", r["win_rate"])
            logger.record(f"eval/ci_low_{r['opponent']}", r["ci_low"])
            logger.record(f"eval/ci_high_{r['opponent']}", r["ci_high"])
            parts.append(f"{r['opponent']} {100 * r['win_rate']:.1f}% "
                         f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]")
        secs = time.time() - t0
        logger.record("eval/seconds", secs)
        text = " | ".join(parts)
        cb.write(f"eval @ {step:,} steps ({ev.games} games each, {secs:.0f} s): {text}")
        cb.set_postfix(", ".join(f"{r['opponent'][:5]} {100 * r['win_rate']:.0f}%" for r in rows))


def _show_path(path: str) -> str:
    """``path`` relative to the working directory when it is inside it, else absolute."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _next_multiple(step: int, every: int) -> int:
    return (step // every + 1) * every


def _seed_everything(seed: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def _build_model(cfg: TrainConfig, venv, run_dir: str):
    from sb3_contrib import MaskablePPO
    import torch.nn as nn
    from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
    from stable_baselines3.common.utils import LinearSchedule

    from .selfplay import UnoFeatures

    p = cfg.ppo
    policy_kwargs = {
        "features_extractor_class": UnoFeatures,
        "features_extractor_kwargs": {"obs_transform": cfg.policy.obs_transform,
                                      "include_mask": cfg.policy.include_mask},
        "net_arch": {"pi": list(cfg.policy.net_arch), "vf": list(cfg.policy.net_arch)},
        "activation_fn": nn.Tanh if cfg.policy.activation == "tanh" else nn.ReLU,
    }
    # SB3's schedule classes pickle by name into the saved zip (a local function would not load elsewhere)
    lr = LinearSchedule(p.learning_rate, 0.0, 1.0) if p.lr_schedule == "linear" else p.learning_rate
    return MaskablePPO(
        MaskableMultiInputActorCriticPolicy, venv, learning_rate=lr, n_steps=p.n_steps, batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range, ent_coef=p.ent_coef,
        vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, target_kl=p.target_kl,
        normalize_advantage=p.normalize_advantage, policy_kwargs=policy_kwargs,
        tensorboard_log=os.path.join(run_dir, "tb") if cfg.tensorboard else None, seed=cfg.seed,
        device=cfg.device, verbose=0)


def train(cfg: TrainConfig, run_dir: str, checkpoint: str | None = None) -> dict:
    """Run (or continue) training, then save the policy, evaluate it and write the report."""
    _import_stack()
    import torch
    from sb3_contrib import MaskablePPO

    from . import report as rep

    os.makedirs(run_dir, exist_ok=True)
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)
    with open(os.path.join(run_dir, "config.yaml"), "w", encoding="utf-8") as f:
        import yaml

        yaml.safe_dump(config_to_dict(cfg), f, sort_keys=False)

    # --- seeding -------------------------------------------------------------------------------
    _seed_everything(cfg.seed)
    trainer = Trainer(cfg, run_dir)
    start_step = 0
    state = None
    if checkpoint is not None:
        state = _read_json(os.path.join(checkpoint, STATE_FILE))
        trainer.load_state(state)
        start_step = int(state["step"])
    # environments draw fresh games after a resume (seeded by the step they resume at)
    env_seed = cfg.seed * 1_000_003 + start_step
    print(f"run: {run_dir}\n  {cfg.env.game}, {cfg.env.num_players} players, {cfg.total_steps:,} steps, "
          f"{cfg.env.n_envs} envs ({cfg.env.vec_env}), seed {cfg.seed}"
          + (f"; resuming at step {start_step:,} from {_show_path(checkpoint)}" if checkpoint else ""),
          flush=True)

    # --- environments and model ----------------------------------------------------------------
    venv = make_vec_env(cfg, trainer.pool, env_seed)
    trainer.venv = venv
    if checkpoint is not None:
        model = MaskablePPO.load(os.path.join(checkpoint, "model.zip"), env=venv, device=cfg.device,
                                 tensorboard_log=os.path.join(run_dir, "tb") if cfg.tensorboard else None)
        _restore_rng_states(state["rng"], checkpoint)
        venv.seed(env_seed)
    else:
        model = _build_model(cfg, venv, run_dir)
        venv.seed(env_seed)

    # --- learning ------------------------------------------------------------------------------
    remaining = cfg.total_steps - int(model.num_timesteps)
    if remaining > 0:
        cb = _make_callback_class()(trainer)
        model.learn(total_timesteps=remaining, callback=cb, reset_num_timesteps=False, tb_log_name="ppo",
                    progress_bar=False)
        step = int(model.num_timesteps)
        # the final checkpoint: a resume after this point only redoes the final evaluation
        trainer.next_checkpoint = _next_multiple(step, cfg.checkpoint_every)
        save_checkpoint(run_dir, model, trainer.state(step), cfg.keep_checkpoints)
    step = int(model.num_timesteps)
    train_time = trainer.wall_time()
    venv.close()

    # --- final policy --------------------------------------------------------------------------
    policy_path = save_policy(model, cfg, run_dir, step)

    # --- final evaluation ----------------------------------------------------------------------
    ev = cfg.evaluation
    print(f"final evaluation: {ev.final_games:,} games against each of {', '.join(ev.opponents)} ...", flush=True)
    t0 = time.time()
    learner = _final_agent(policy_path, cfg, model)
    table = run_arena(learner, ev.opponents, cfg, ev.final_games, ev.seed, progress=cfg.progress_bar,
                      workers=ev.final_workers)
    eval_time = time.time() - t0
    for r in table:
        print(f"  vs {r['opponent']:<10} {100 * r['win_rate']:5.1f}%  [{100 * r['ci_low']:.1f}, "
              f"{100 * r['ci_high']:.1f}]  ({r['games']:,} games, {r['seconds']:.0f} s)", flush=True)

    # --- report --------------------------------------------------------------------------------
    summary = {
        "name": cfg.name,
        "run_dir": run_dir,
        "config": config_to_dict(cfg),
        "seed": cfg.seed,
        "steps": step,
        "wall_time_seconds": round(trainer.wall_time(), 1),
        "train_time_seconds": round(train_time, 1),
        "final_eval_seconds": round(eval_time, 1),
        "sessions": trainer.sessions,
        "policy": policy_path,
        "arena": table,
        "eval_history": trainer.eval_history,
        "pool": [dict(s) for s in trainer.pool.snapshots],
        "versions": _versions(),
    }
    rep.write_report(run_dir, summary)
    return summary


def _final_agent(policy_path: str, cfg: TrainConfig, model):
    """The saved policy as the arena plays it: loaded back by path through ``agents.registry`` (a check that
    ``uno-env evaluate`` can load it), played with the same weights in numpy for speed."""
    from uno_env.agents.registry import load_agent
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    game = Game(make_rules(cfg.env.game, cfg.env.num_players, cfg.env.rules))
    loaded = load_agent(policy_path, game, seed=cfg.evaluation.seed)
    from .selfplay import export_policy

    agent = SnapshotAgent(export_policy(loaded.model.policy), name=cfg.name,
                          deterministic=cfg.evaluation.deterministic)
    return agent


def save_policy(model, cfg: TrainConfig, run_dir: str, step: int) -> str:
    """``policy.zip`` (MaskablePPO, what ``agents.registry.load_agent(path)`` reads), plus ``policy.json``
    (what it was trained for) and ``policy.npz`` (the actor's weights for torch-free play)."""
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    from .selfplay import export_policy, save_weights

    path = os.path.join(run_dir, POLICY_FILE)
    tmp = os.path.join(run_dir, ".policy.tmp.zip")
    model.save(tmp)
    os.replace(tmp, path)
    rules = make_rules(cfg.env.game, cfg.env.num_players, cfg.env.rules)
    game = Game(rules)
    meta = {
        "format": "uno-env policy v1",
        "algorithm": "sb3_contrib.MaskablePPO",
        "game": cfg.env.game,
        "num_players": cfg.env.num_players,
        "rules": rules.to_dict(),
        "obs_dim": game.obs_dim,
        "num_actions": game.num_actions,
        "observation": "dict {observation (obs_dim,), action_mask (num_actions,)}",
        "policy": {"net_arch": list(cfg.policy.net_arch), "activation": cfg.policy.activation,
                   "obs_transform": cfg.policy.obs_transform, "include_mask": cfg.policy.include_mask},
        "steps": step,
        "name": cfg.name,
        "seed": cfg.seed,
    }
    _write_json(os.path.join(run_dir, "policy.json"), meta)
    save_weights(export_policy(model.policy), os.path.join(run_dir, "policy.npz"), meta)
    return path


def _versions() -> dict:
    out = {"python": sys.version.split()[0]}
    for mod in ("numpy", "torch", "stable_baselines3", "sb3_contrib", "gymnasium", "numba"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:
            pass
    return out


def main(argv: list[str] | None = None) -> int:
    """Run ``uno-env train`` with ``argv`` (default: the command line)."""
    parser = argparse.ArgumentParser(prog="uno-env train", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
