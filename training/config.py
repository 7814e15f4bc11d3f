"""The typed training configurations: dataclasses read from YAML, overridable from the command line.

One config system serves both trainers: :class:`TrainConfig` (``uno-env train``, the algorithm named by its
``algorithm`` key, today ``maskable_ppo``) and :class:`RllibTrainConfig` (``uno-env train-rllib``).  They share
the sections that mean the same thing (the game, the opponent pool, the arena evaluation), one loader
(:func:`load_config` / :func:`load_rllib_config`: a packaged config by name or a YAML path, ``--set``
overrides, then checks) and one set of checks.  A config file mirrors its dataclass: top-level scalars
(``name``, ``seed`` ...) and one section per concern.  Every key is checked before any training starts:

* an unknown key names itself, the section it is in and the keys that section knows;
* a value of the wrong type names the key, the expected type and the value;
* a value out of range (a negative step count, a probability above 1, a seed outside 0..2**32-1, NaN or an
  infinity) says what is allowed; sizes (environments, layers, games, workers, threads ...) have upper bounds far
  above any real run, so that a typo is an error rather than a machine brought to a halt;
* every opponent and evaluation baseline is built for the configured table, as the run will build it, so one that
  cannot play there (``ppo`` without a shipped policy for the table, ``ismcts`` in the batched simulator) is named;
* an unknown ``device``, a ``runs_dir`` that cannot be written, a ``name`` no file system takes, a missing or
  non-UTF-8 config file, or a rules file named in ``env.rules`` that does not exist, is reported as such.

Keys not given keep the defaults below.  ``--set section.key=value`` overrides one key (the value is read as
YAML, so ``--set ppo.learning_rate=1e-4`` and ``--set env.rules={stacking: true}`` work).

Configs ship inside the package (``uno_env.configs``, the repository's ``configs/`` folder mapped into it), so
``--config classic_ppo`` names ``configs/train/classic_ppo.yaml`` wherever uno-env is installed.
"""
from __future__ import annotations

import dataclasses
import difflib
import math
import os
import re
import tempfile
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal, Union, cast

import yaml

from uno_env._threads import MAX_THREADS
from uno_env.yaml_io import YAMLLimitError, load_yaml, load_yaml_file

from .evaluate import MAX_GAMES, MAX_WORKERS

__all__ = ["ConfigError", "TrainConfig", "EnvConfig", "GameConfig", "PolicyConfig", "PPOConfig", "PoolConfig",
           "OpponentConfig", "EvalConfig", "RllibTrainConfig", "load_config", "load_rllib_config",
           "parse_overrides", "config_from_dict", "config_to_dict", "resolve_config", "packaged_configs",
           "SEED_MAX"]

#: seeds are 32-bit (numpy's legacy global seed and torch's manual_seed both take them)
SEED_MAX = 2**32 - 1
# Upper bounds far above any real run: they are there so that a typo (an extra zero or three) is an error
# naming the key, not a machine that swaps itself to a halt building a billion environments.
MAX_STEPS = 10**12
MAX_ENVS = 1 << 20  # batched simulator games; Python environments are bounded lower in _validate
MAX_GYM_ENVS = 4096  # env.vec_env dummy: one Python environment object each
MAX_SUBPROC_ENVS = 1024  # env.vec_env subproc: one process each
MAX_ROLLOUT = 1 << 22  # ppo.n_steps * env.n_envs: the rollout buffer keeps an observation per step
MAX_N_STEPS = 1 << 20
MAX_EPOCHS = 10_000
MAX_WIDTH = 1 << 14  # a layer of 16384 x 16384 is already 1 GB of weights, 4 GB with Adam's moments
MAX_DEPTH = 64
MAX_KEEP = 1000
MAX_LR = 1.0
MAX_CLIP = 10.0
#: longest run name: one path component (NAME_MAX on Linux and macOS)
MAX_NAME_BYTES = 255
_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")
_DEVICES = "auto, cpu, cuda, cuda:N, mps"


class ConfigError(ValueError):
    """A training config that cannot be used: unknown key, wrong type, bad value or missing file."""


def _meta(**kw: Any) -> dict[str, Any]:
    return kw


def _seed_field(default: int) -> Any:
    return field(default=default, metadata=_meta(min=0, max=SEED_MAX))


# ---------------------------------------------------------------------------------------------
# sections both trainers use


@dataclass
class GameConfig:
    """The game every seat plays."""

    game: Literal["classic", "pocket", "dice"] = "classic"
    num_players: int = field(default=2, metadata=_meta(min=2, max=10))
    # None = the game's standard rules; a preset name ("standard", "rlcard"), a rules YAML path or a dict
    rules: str | dict | None = None


@dataclass
class PoolConfig:
    """The opponent pool (``training.pool.OpponentPool``): baselines plus frozen snapshots of the learner."""

    # baseline name -> relative weight when a baseline is drawn
    baselines: dict[str, float] = field(default_factory=lambda: {"random": 1.0, "greedy": 1.0, "heuristic": 2.0})
    # once self-play has started: probability that a seat's opponent for an episode is a frozen snapshot
    selfplay_prob: float = field(default=0.5, metadata=_meta(min=0.0, max=1.0))
    # at most this many snapshots are kept (the oldest leave first)
    pool_size: int = field(default=8, metadata=_meta(min=1, max=64))
    # when a snapshot is drawn: probability of the newest one (else uniform over the pool)
    latest_prob: float = field(default=0.5, metadata=_meta(min=0.0, max=1.0))


@dataclass
class EvalConfig:
    """Arena evaluation against the baselines: periodic during training, and a large final one."""

    opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    # evaluate every this many steps (RLlib: iterations); 0 = only at the end
    every: int = field(default=100_000, metadata=_meta(min=0))
    # games per baseline in each periodic evaluation
    games: int = field(default=400, metadata=_meta(min=1, max=MAX_GAMES))
    # games per baseline in the final evaluation (the report's table)
    final_games: int = field(default=10_000, metadata=_meta(min=1, max=MAX_GAMES))
    # the trained agent takes its most likely action (true) or samples (false)
    deterministic: bool = True
    # arena worker processes for the periodic and the final evaluation
    workers: int = field(default=1, metadata=_meta(min=1, max=MAX_WORKERS))
    final_workers: int = field(default=2, metadata=_meta(min=1, max=MAX_WORKERS))
    confidence: float = field(default=0.95, metadata=_meta(min_excl=0.0, max_excl=1.0))
    # play each deal with every seating of the agent and the baseline, intervals over deals (uno-env evaluate
    # --duplicate): games and final_games must then be multiples of the number of players
    duplicate: bool = False
    seed: int = _seed_field(2024)


# ---------------------------------------------------------------------------------------------
# uno-env train


@dataclass
class EnvConfig(GameConfig):
    """The game the learner plays and how its environments run."""

    # the learner's seat: a fixed seat, or "random" (drawn every episode)
    learner_seat: int | Literal["random"] = "random"
    # batched: uno_env.vector's SB3 VecEnv over the compiled core; subproc/dummy: SB3 VecEnvs over UnoGymEnv
    # (algorithm batched_ppo always runs the batched simulator: set batched)
    vec_env: Literal["batched", "subproc", "dummy"] = "dummy"
    n_envs: int = field(default=16, metadata=_meta(min=1, max=MAX_ENVS))
    # threads of the batched simulator (0: its default, the CPUs this process may use); torch's are torch_threads
    num_threads: int = field(default=0, metadata=_meta(min=0, max=MAX_THREADS))


@dataclass
class PolicyConfig:
    """The actor-critic network (small: this trains on CPU)."""

    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    activation: Literal["tanh", "relu"] = "tanh"
    # symlog: sign(x) * log(1 + |x|) on the observation (counts of up to ~100 cards); none: raw values
    obs_transform: Literal["symlog", "none"] = "symlog"
    # also feed the legal-action mask to the network (it always masks the action distribution)
    include_mask: bool = True
    # batched_ppo: actor and critic share the hidden layers (only their output layers differ)
    shared_trunk: bool = False
    # batched_ppo: also feed the network the heuristic's choice (one-hot over the actions), so that with imitation
    # first the policy starts as the heuristic and PPO learns where to depart from it; the numpy player runs
    # agents/heuristic.py to compute the same input
    advice: Literal["none", "heuristic"] = "none"
    # with advice: a fixed bonus on the advised action's logit (a residual policy: it plays the heuristic from the
    # first step, and PPO learns the departures); 0 = the advice is an input only
    advice_gain: float = field(default=0.0, metadata=_meta(min=0.0, max=100.0))


@dataclass
class PPOConfig:
    """PPO hyperparameters (names as in stable-baselines3)."""

    learning_rate: float = field(default=3e-4, metadata=_meta(min_excl=0.0, max=MAX_LR))
    # linear: decay the learning rate to 0 over total_steps; constant: keep it
    lr_schedule: Literal["constant", "linear"] = "constant"
    n_steps: int = field(default=256, metadata=_meta(min=2, max=MAX_N_STEPS))
    batch_size: int = field(default=1024, metadata=_meta(min=2))
    n_epochs: int = field(default=4, metadata=_meta(min=1, max=MAX_EPOCHS))
    gamma: float = field(default=0.995, metadata=_meta(min=0.0, max=1.0))
    gae_lambda: float = field(default=0.95, metadata=_meta(min=0.0, max=1.0))
    clip_range: float = field(default=0.2, metadata=_meta(min_excl=0.0, max=MAX_CLIP))
    ent_coef: float = field(default=0.01, metadata=_meta(min=0.0))
    # the weight of the value loss, the mean squared error in both trainers (as SB3's; CleanRL's halved one would
    # take twice this)
    vf_coef: float = field(default=0.5, metadata=_meta(min=0.0))
    max_grad_norm: float = field(default=0.5, metadata=_meta(min_excl=0.0))
    # stop an update's epochs early once the KL divergence passes this; null = never
    target_kl: float | None = field(default=None, metadata=_meta(min_excl=0.0, or_null=True))
    normalize_advantage: bool = True
    # batched_ppo, kickstarting: add kickstart_coef x cross-entropy to the heuristic's choice on the learner's own
    # decisions, the weight falling linearly to 0 at kickstart_until x total_steps (0 = pure PPO)
    kickstart_coef: float = field(default=0.0, metadata=_meta(min=0.0))
    kickstart_until: float = field(default=0.5, metadata=_meta(min=0.0, max=1.0))
    # batched_ppo, behaviour cloning first: for the first imitation_steps learner steps the compiled heuristic plays
    # the learner's seat, and the network learns its choices (cross-entropy) and the value of its games (the critic),
    # with no policy-gradient loss; PPO starts from a heuristic-level policy with a critic that already fits it
    imitation_steps: int = field(default=0, metadata=_meta(min=0))


@dataclass
class OpponentConfig(PoolConfig):
    """Who sits in the other seats: baselines first, then a self-play pool with the baselines kept in the mix."""

    baselines: dict[str, float] = field(default_factory=lambda: {"random": 1.0, "greedy": 1.0, "heuristic": 2.0})
    # self-play starts after this fraction of total_steps (1.0 = never)
    selfplay_start: float = field(default=0.3, metadata=_meta(min=0.0, max=1.0))
    # a frozen copy of the learner joins the pool every this many steps (from selfplay_start on)
    snapshot_every: int = field(default=100_000, metadata=_meta(min=1))
    # snapshots sample their actions from the policy (false) or take the most likely one (true)
    deterministic: bool = False
    # fixed: the weights above; win_rate (batched_ppo): each member's weight is also scaled by the share of recent
    # games the learner did not win against it, so the opponents that beat it are met more often
    sampling: Literal["fixed", "win_rate"] = "fixed"
    # with sampling win_rate: f(the learner's win rate x against a member) scaling its weight (training/league.py):
    # linear 1 - x, squared (1 - x)^2 (the members that beat it), variance x (1 - x) (the ones it beats half the time)
    pfsp: Literal["linear", "squared", "variance"] = "linear"


@dataclass
class TrainConfig:
    """One training run. ``runs_dir/name`` holds its checkpoints, logs, final policy and report."""

    name: str = "run"
    # the trainer (training.algorithms.ALGORITHMS)
    algorithm: str = "maskable_ppo"
    seed: int = _seed_field(0)
    total_steps: int = field(default=1_000_000, metadata=_meta(min=1, max=MAX_STEPS))
    # a resumable checkpoint every this many steps (rounded up to whole rollouts)
    checkpoint_every: int = field(default=200_000, metadata=_meta(min=1))
    keep_checkpoints: int = field(default=2, metadata=_meta(min=1, max=MAX_KEEP))
    runs_dir: str = "runs"
    # torch threads in the training process (0 = torch's default). 1 is fastest for these small networks, and
    # much faster on a shared machine, where a 2-thread op waits for a descheduled thread
    torch_threads: int = field(default=1, metadata=_meta(min=0, max=MAX_THREADS))
    device: str = "cpu"
    progress_bar: bool = True
    tensorboard: bool = True
    env: EnvConfig = field(default_factory=EnvConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    evaluation: EvalConfig = field(default_factory=EvalConfig)

    @property
    def rollout_size(self) -> int:
        """Environment steps per PPO update: ``ppo.n_steps * env.n_envs``."""
        return self.ppo.n_steps * self.env.n_envs


# ---------------------------------------------------------------------------------------------
# uno-env distill


@dataclass
class DistillLabelConfig:
    """The labelled games: the heuristic plays every seat, the teacher is asked at every decision with a choice."""

    # the search to learn from: an ismcts agent spec (its per-action win rates are the advantage target)
    teacher: str = "ismcts"
    games: int = field(default=4800, metadata=_meta(min=1, max=MAX_GAMES))
    # games per label file: a stopped run keeps every whole file, and --resume labels only the rest
    chunk: int = field(default=100, metadata=_meta(min=1, max=100_000))
    # processes that label (0 = one per available CPU)
    workers: int = field(default=2, metadata=_meta(min=0, max=MAX_WORKERS))


@dataclass
class DistillFitConfig:
    """The network (the shipped policies': the heuristic's choice as input and as a bonus on its logit) and its fit."""

    # advantage: regress each sampled action's win rate minus the heuristic choice's; choice: cross-entropy to the
    # teacher's choice
    target: Literal["advantage", "choice"] = "advantage"
    # advantage: the predicted gain an action needs over the heuristic's choice to be played instead
    margin: float = field(default=0.1, metadata=_meta(min_excl=0.0, max=1.0))
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    epochs: int = field(default=3, metadata=_meta(min=1, max=10_000))
    learning_rate: float = field(default=3e-4, metadata=_meta(min_excl=0.0, max=1.0))
    # linear: decay the learning rate to 0 over the fit's batches; constant: keep it
    lr_schedule: Literal["constant", "linear"] = "constant"
    weight_decay: float = field(default=1e-4, metadata=_meta(min=0.0, max=1.0))
    batch_size: int = field(default=256, metadata=_meta(min=1, max=1 << 20))
    # share of the labelled decisions held out to report the fit on
    validation: float = field(default=0.1, metadata=_meta(min=0.0, max_excl=1.0))
    # the network's initialisation, the batches' order and the held-out split (null: the run's seed). Unlike the
    # run's seed it may change on --resume: fits of the same labels with other seeds show what a seed alone moves
    seed: int | None = field(default=None, metadata=_meta(min=0, max=SEED_MAX, or_null=True))


@dataclass
class DistillEvalConfig:
    """The final arena: the policy against each baseline (one seat against the rest), and, at 3 or more players,
    head to head against the heuristic (two blocks of seats)."""

    opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    games: int = field(default=10_000, metadata=_meta(min=1, max=MAX_GAMES))
    workers: int = field(default=2, metadata=_meta(min=1, max=MAX_WORKERS))
    # every deal played with each seating, intervals over deals (uno-env evaluate --duplicate)
    duplicate: bool = True
    confidence: float = field(default=0.95, metadata=_meta(min_excl=0.0, max_excl=1.0))
    seed: int = _seed_field(2024)


@dataclass
class DistillConfig:
    """One distillation run (``uno-env distill``); ``runs_dir/name`` holds its labels, policy and report."""

    name: str = "distill"
    seed: int = _seed_field(0)
    runs_dir: str = "runs"
    # torch threads for the fit (0 = torch's default)
    torch_threads: int = field(default=1, metadata=_meta(min=0, max=MAX_THREADS))
    progress_bar: bool = True
    # a TensorBoard log of the fit in <run dir>/tb/distill
    tensorboard: bool = True
    env: GameConfig = field(default_factory=lambda: GameConfig(num_players=4))
    labels: DistillLabelConfig = field(default_factory=DistillLabelConfig)
    fit: DistillFitConfig = field(default_factory=DistillFitConfig)
    evaluation: DistillEvalConfig = field(default_factory=DistillEvalConfig)


# ---------------------------------------------------------------------------------------------
# uno-env train-rllib


@dataclass
class RllibResourcesConfig:
    """The knobs that scale a run: sampling (EnvRunners x envs each) and learning (Learners)."""

    # 0 = sample in the driver process ("local mode"); N = N EnvRunner actors, one CPU each by default
    num_env_runners: int = field(default=2, metadata=_meta(min=0))
    num_envs_per_env_runner: int = field(default=8, metadata=_meta(min=1))
    num_cpus_per_env_runner: float = field(default=1.0, metadata=_meta(min=0.0))
    # 0 = learn in the driver process; N = N Learner actors (data-parallel, gradients all-reduced)
    num_learners: int = field(default=0, metadata=_meta(min=0))
    num_cpus_per_learner: float = field(default=1.0, metadata=_meta(min=0.0))
    num_gpus_per_learner: float = field(default=0.0, metadata=_meta(min=0.0))
    # env steps per EnvRunner per sample() call: "auto" (= train batch / (runners x envs)) or a number
    rollout_fragment_length: int | Literal["auto"] = "auto"
    # torch threads in the driver (and local EnvRunner/Learner); 0 = torch's default
    torch_threads: int = field(default=1, metadata=_meta(min=0, max=MAX_THREADS))


@dataclass
class RllibModuleConfig:
    """The masking actor-critic (uno_env.agents.rllib_policy): two MLPs, policy and value."""

    hiddens: list[int] = field(default_factory=lambda: [256, 256])
    activation: Literal["tanh", "relu"] = "tanh"
    obs_transform: Literal["symlog", "none"] = "symlog"
    include_mask: bool = True


@dataclass
class RllibPPOConfig:
    """RLlib PPO hyperparameters (RLlib's names)."""

    lr: float = field(default=3e-4, metadata=_meta(min_excl=0.0, max=MAX_LR))
    gamma: float = field(default=0.995, metadata=_meta(min=0.0, max=1.0))
    lambda_: float = field(default=0.95, metadata=_meta(min=0.0, max=1.0))
    train_batch_size_per_learner: int = field(default=8000, metadata=_meta(min=2))
    minibatch_size: int = field(default=1000, metadata=_meta(min=1))
    num_epochs: int = field(default=4, metadata=_meta(min=1, max=MAX_EPOCHS))
    clip_param: float = field(default=0.2, metadata=_meta(min_excl=0.0, max=MAX_CLIP))
    vf_clip_param: float = field(default=10.0, metadata=_meta(min_excl=0.0))
    entropy_coeff: float = field(default=0.01, metadata=_meta(min=0.0))
    vf_loss_coeff: float = field(default=0.5, metadata=_meta(min=0.0))
    use_kl_loss: bool = False
    grad_clip: float | None = 0.5


@dataclass
class RllibOpponentConfig(PoolConfig):
    """Who sits in the seats that are not the learner's anchor seat (training.rllib_train.SeatMapping)."""

    # probability that a non-anchor seat is a frozen baseline (0 = one shared policy; 1 = learner vs baselines)
    baseline_prob: float = field(default=0.0, metadata=_meta(min=0.0, max=1.0))
    # probability that a non-anchor seat is a frozen self-play snapshot (once one exists); 0 = no snapshots
    selfplay_prob: float = field(default=0.3, metadata=_meta(min=0.0, max=1.0))
    # the first snapshot is taken after this many iterations, then one every snapshot_every iterations
    selfplay_start: int = field(default=10, metadata=_meta(min=1))
    snapshot_every: int = field(default=10, metadata=_meta(min=1))
    # snapshot slots (frozen modules); the oldest is overwritten first
    pool_size: int = field(default=4, metadata=_meta(min=1, max=64))


@dataclass
class RllibEvalConfig(EvalConfig):
    """Arena evaluation of ``main`` against the baselines; ``every`` counts iterations."""

    every: int = field(default=10, metadata=_meta(min=0))
    games: int = field(default=200, metadata=_meta(min=1, max=MAX_GAMES))
    final_games: int = field(default=2000, metadata=_meta(min=1, max=MAX_GAMES))
    final_workers: int = field(default=1, metadata=_meta(min=1, max=MAX_WORKERS))


@dataclass
class RllibStopConfig:
    """Training stops at the first limit reached (0 = no limit; at least one must be set)."""

    iterations: int = field(default=200, metadata=_meta(min=0))
    env_steps: int = field(default=0, metadata=_meta(min=0))
    time_s: float = field(default=0.0, metadata=_meta(min=0.0))


@dataclass
class RllibRayConfig:
    """Where Ray runs."""

    # None: $RAY_ADDRESS if set (ray job submit sets it), else a new local Ray; "auto": a running cluster
    address: str | None = None
    # quieter Ray logs (driver side)
    log_to_driver: bool = True


@dataclass
class RllibTrainConfig:
    """One RLlib run; ``runs_dir/name`` holds its checkpoints and progress."""

    name: str = "rllib"
    seed: int = _seed_field(0)
    runs_dir: str = "runs"
    checkpoint_every: int = field(default=20, metadata=_meta(min=0))
    keep_checkpoints: int = field(default=2, metadata=_meta(min=1, max=MAX_KEEP))
    env: GameConfig = field(default_factory=GameConfig)
    resources: RllibResourcesConfig = field(default_factory=RllibResourcesConfig)
    module: RllibModuleConfig = field(default_factory=RllibModuleConfig)
    ppo: RllibPPOConfig = field(default_factory=RllibPPOConfig)
    opponents: RllibOpponentConfig = field(default_factory=RllibOpponentConfig)
    evaluation: RllibEvalConfig = field(default_factory=RllibEvalConfig)
    stop: RllibStopConfig = field(default_factory=RllibStopConfig)
    ray: RllibRayConfig = field(default_factory=RllibRayConfig)


# ---------------------------------------------------------------------------------------------
# checking


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if tp is type(None):
        return "null"
    if origin is Literal:
        return " | ".join(repr(a) for a in typing.get_args(tp))
    if origin in (Union, types.UnionType):
        return " | ".join(_type_name(a) for a in typing.get_args(tp))
    if origin in (list, dict):
        args = ", ".join(_type_name(a) for a in typing.get_args(tp))
        return f"{origin.__name__}[{args}]" if args else origin.__name__
    if dataclasses.is_dataclass(tp):
        return "mapping (section)"
    return getattr(tp, "__name__", str(tp))


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _wrong_type(key: str, tp: Any, value: Any) -> ConfigError:
    return ConfigError(f"config key {key!r}: expected {_type_name(tp)}, got {type(value).__name__} {_show(value)}")


def _check(key: str, tp: Any, value: Any) -> Any:
    """``value`` converted to ``tp`` (a dataclass, scalar, Literal, Optional/Union, list or dict), or an error."""
    origin = typing.get_origin(tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, Mapping):
            raise _wrong_type(key, tp, value)
        return _build(tp, value, key + ".")
    if tp is type(None):
        if value is None:
            return None
        raise _wrong_type(key, tp, value)
    if origin is Literal:
        if any(type(value) is type(a) and value == a for a in typing.get_args(tp)):
            return value
        raise ConfigError(f"config key {key!r}: expected one of {_type_name(tp)}, got {_show(value)}")
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        for a in args:
            try:
                return _check(key, a, value)
            except ConfigError:
                continue
        raise _wrong_type(key, tp, value)
    if origin is list:
        if not isinstance(value, (list, tuple)):
            raise _wrong_type(key, tp, value)
        (item,) = typing.get_args(tp) or (Any,)
        return [_check(f"{key}[{i}]", item, v) for i, v in enumerate(value)]
    if origin is dict or tp is dict:
        if not isinstance(value, Mapping):
            raise _wrong_type(key, tp, value)
        kt, vt = typing.get_args(tp) or (Any, Any)
        return {_check(f"{key} (a key)", kt, k): _check(f"{key}.{k}", vt, v) for k, v in value.items()}
    if tp is Any:
        return value
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise _wrong_type(key, tp, value)
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
            return int(value)  # 1e6 in YAML
        raise _wrong_type(key, tp, value)
    if tp is float:
        out = None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out = float(value)
        elif isinstance(value, str):  # YAML 1.1 reads 3e-4 (no dot) as a string
            try:
                out = float(value)
            except ValueError:
                pass
        if out is None:
            raise _wrong_type(key, tp, value)
        if not math.isfinite(out):  # YAML's .nan / .inf; nothing downstream copes with them
            raise ConfigError(f"config key {key!r}: must be a finite number, got {_show(value)}")
        return out
    if tp is str:
        if isinstance(value, str):
            return value
        raise _wrong_type(key, tp, value)
    raise TypeError(f"config key {key!r}: unsupported annotation {tp!r}")  # a bug in this module


def _check_range(key: str, value: Any, meta: Mapping[str, Any]) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return
    lo, hi = meta.get("min"), meta.get("max")
    lo_x, hi_x = meta.get("min_excl"), meta.get("max_excl")
    bad = ((lo is not None and value < lo) or (hi is not None and value > hi)
           or (lo_x is not None and value <= lo_x) or (hi_x is not None and value >= hi_x))
    if bad:
        parts = []
        if lo is not None:
            parts.append(f">= {lo}")
        if lo_x is not None:
            parts.append(f"> {lo_x}")
        if hi is not None:
            parts.append(f"<= {hi}")
        if hi_x is not None:
            parts.append(f"< {hi_x}")
        either = " (or null)" if meta.get("or_null") else ""
        raise ConfigError(f"config key {key!r}: must be {' and '.join(parts)}{either}, got {_show(value)}")


def _build(cls: type, data: Mapping[str, Any], prefix: str = "") -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    section = prefix.rstrip(".") or "the top level"
    kwargs = {}
    for k, v in data.items():
        if k not in fields:
            close = difflib.get_close_matches(str(k), list(fields), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"unknown config key {prefix + str(k)!r}{hint}; known keys in {section}: "
                              f"{', '.join(fields)}")
        value = _check(prefix + k, hints[k], v)
        _check_range(prefix + k, value, fields[k].metadata)
        kwargs[k] = value
    return cls(**kwargs)


def _validate(cfg: TrainConfig) -> None:
    """Checks across keys and against the game's rules, before anything heavy happens."""
    from .algorithms import ALGORITHMS

    if cfg.algorithm not in ALGORITHMS:
        raise ConfigError(f"config key 'algorithm': unknown trainer {cfg.algorithm!r}; known: "
                          f"{', '.join(ALGORITHMS)}")
    _check_common(cfg)
    if not _DEVICE.match(cfg.device):
        raise ConfigError(f"config key 'device': expected one of {_DEVICES}, got {_show(cfg.device)}")
    env = cfg.env
    if isinstance(env.learner_seat, int) and not 0 <= env.learner_seat < env.num_players:
        raise ConfigError(f"config key 'env.learner_seat': must be 'random' or a seat in 0..{env.num_players - 1}, "
                          f"got {env.learner_seat}")
    _check_layers("policy.net_arch", cfg.policy.net_arch)
    limit = {"batched": MAX_ENVS, "dummy": MAX_GYM_ENVS, "subproc": MAX_SUBPROC_ENVS}[env.vec_env]
    if env.n_envs > limit:
        each = {"batched": "", "dummy": " (one Python environment each)", "subproc": " (one process each)"}
        raise ConfigError(f"config key 'env.n_envs': must be <= {limit} with env.vec_env {env.vec_env!r}"
                          f"{each[env.vec_env]}, got {env.n_envs}")
    if cfg.rollout_size > MAX_ROLLOUT:
        raise ConfigError(f"config keys 'ppo.n_steps' x 'env.n_envs': a rollout of {cfg.ppo.n_steps} x {env.n_envs} = "
                          f"{cfg.rollout_size} steps is over the {MAX_ROLLOUT} allowed (the rollout buffer keeps "
                          f"every step's observation); lower one of them")
    if cfg.ppo.batch_size > cfg.rollout_size:
        raise ConfigError(f"config key 'ppo.batch_size': {cfg.ppo.batch_size} is larger than a rollout "
                          f"(ppo.n_steps * env.n_envs = {cfg.rollout_size})")
    opp = cfg.opponents
    if sum(opp.baselines.values()) <= 0:
        raise ConfigError("config key 'opponents.baselines': the weights add up to 0")
    if opp.pfsp != "linear" and opp.sampling != "win_rate":
        raise ConfigError(f"config key 'opponents.pfsp': {opp.pfsp!r} weighs the learner's win rates, which only "
                          f"'opponents.sampling: win_rate' keeps; set it, or leave opponents.pfsp at 'linear'")
    if cfg.algorithm == "batched_ppo":
        if env.vec_env != "batched":
            raise ConfigError("config key 'env.vec_env': algorithm 'batched_ppo' runs the batched simulator; set "
                              "'batched'")
    elif cfg.ppo.kickstart_coef > 0:
        raise ConfigError(f"config key 'ppo.kickstart_coef': kickstarting needs algorithm 'batched_ppo', not "
                          f"{cfg.algorithm!r}")
    elif cfg.ppo.imitation_steps > 0:
        raise ConfigError(f"config key 'ppo.imitation_steps': imitation needs algorithm 'batched_ppo', not "
                          f"{cfg.algorithm!r}")
    elif cfg.policy.shared_trunk:
        raise ConfigError(f"config key 'policy.shared_trunk': needs algorithm 'batched_ppo', not {cfg.algorithm!r}")
    elif cfg.policy.advice != "none" or cfg.policy.advice_gain:
        raise ConfigError(f"config key 'policy.advice': needs algorithm 'batched_ppo', not {cfg.algorithm!r}")
    elif opp.sampling != "fixed":
        raise ConfigError(f"config key 'opponents.sampling': 'win_rate' needs algorithm 'batched_ppo' (the "
                          f"trainer that reports the games' results to the pool), not {cfg.algorithm!r}")
    elif env.vec_env == "batched" and (sum(1 for w in opp.baselines.values() if w > 0) != 1
                                     or opp.selfplay_start < 1.0):
        raise ConfigError("config key 'env.vec_env': 'batched' (uno_env.vector) keeps one opponent per environment, "
                          "so it needs exactly one baseline in 'opponents.baselines' and "
                          "'opponents.selfplay_start: 1.0' (no self-play); use 'dummy' or 'subproc' for a pool")


def _validate_rllib(cfg: RllibTrainConfig) -> None:
    _check_common(cfg)
    _check_layers("module.hiddens", cfg.module.hiddens)
    if cfg.ppo.minibatch_size > cfg.ppo.train_batch_size_per_learner:
        raise ConfigError(f"config key 'ppo.minibatch_size': {cfg.ppo.minibatch_size} is larger than "
                          f"ppo.train_batch_size_per_learner ({cfg.ppo.train_batch_size_per_learner})")
    if not (cfg.stop.iterations or cfg.stop.env_steps or cfg.stop.time_s):
        raise ConfigError("config section 'stop': set at least one of iterations, env_steps, time_s")
    opp = cfg.opponents
    if opp.baseline_prob + opp.selfplay_prob > 1.0 + 1e-9:
        raise ConfigError(f"config keys 'opponents.baseline_prob' + 'opponents.selfplay_prob' must be <= 1, got "
                          f"{opp.baseline_prob} + {opp.selfplay_prob}")
    if opp.baseline_prob > 0 and sum(opp.baselines.values()) <= 0:
        raise ConfigError("config key 'opponents.baselines': opponents.baseline_prob > 0 needs a baseline with a "
                          "positive weight")


def _check_name(name: str) -> None:
    if not name or "/" in name or os.sep in name or "\0" in name or name in (".", ".."):
        raise ConfigError(f"config key 'name': must be a plain directory name (no '/' or NUL), got {_show(name)}")
    if len(os.fsencode(name)) > MAX_NAME_BYTES:
        raise ConfigError(f"config key 'name': at most {MAX_NAME_BYTES} bytes (it names the run's directory), got "
                          f"{len(os.fsencode(name))}")


def _check_common(cfg: TrainConfig | RllibTrainConfig) -> None:
    """The checks of the sections both trainers share: name, runs_dir, game and rules, pool, evaluation."""
    _check_name(cfg.name)
    opp = cfg.opponents
    if not opp.baselines:
        raise ConfigError("config key 'opponents.baselines': name at least one baseline (e.g. {random: 1.0})")
    for name, w in opp.baselines.items():
        if w < 0:
            raise ConfigError(f"config key 'opponents.baselines.{name}': weights must be >= 0, got {w}")
    _check_evaluation(cfg.evaluation, cfg.env.num_players, ("games", "final_games"))
    known = [n for n in _baseline_names() if n != "human"]
    for key, names in (("opponents.baselines", list(opp.baselines)), ("evaluation.opponents",
                                                                      cfg.evaluation.opponents)):
        for n in names:
            if n not in known:
                raise ConfigError(f"config key {key!r}: unknown baseline {n!r}; known: {', '.join(known)}")
    env = cfg.env
    rules = env.rules
    if isinstance(rules, str) and rules.endswith((".yaml", ".yml")) and not os.path.isfile(rules):
        raise ConfigError(f"config key 'env.rules': rules file {rules!r} does not exist")
    try:
        from uno_env.config import make_rules

        rule_config = make_rules(env.game, env.num_players, rules)
    except ConfigError:
        raise
    except (ValueError, TypeError) as e:
        raise ConfigError(f"config key 'env.rules' (game {env.game!r}, {env.num_players} players): {e}") from None
    _check_agents(cfg, rule_config)
    check_writable_dir("runs_dir", cfg.runs_dir)


def _check_evaluation(ev: EvalConfig | DistillEvalConfig, num_players: int, game_keys: tuple[str, ...]) -> None:
    if not ev.opponents:
        raise ConfigError("config key 'evaluation.opponents': name at least one baseline to evaluate against")
    if ev.duplicate:
        # against_baselines seats the agent and one baseline copy per other seat: a deal has num_players seatings
        for key in game_keys:
            games = getattr(ev, key)
            if games % num_players:
                raise ConfigError(f"config key 'evaluation.{key}': with evaluation.duplicate, a multiple of "
                                  f"env.num_players ({num_players}), so that every deal is played with each "
                                  f"seating; got {games}")


def _check_layers(key: str, widths: list[int]) -> None:
    if not widths or any(w < 1 for w in widths):
        raise ConfigError(f"config key {key!r}: needs one or more positive layer widths, got {_show(widths)}")
    if len(widths) > MAX_DEPTH:
        raise ConfigError(f"config key {key!r}: at most {MAX_DEPTH} layers, got {len(widths)}")
    for i, w in enumerate(widths):
        if w > MAX_WIDTH:
            raise ConfigError(f"config key '{key}[{i}]': a layer width must be between 1 and {MAX_WIDTH}, got {w}")


def _check_agents(cfg: TrainConfig | RllibTrainConfig, rules: Any) -> None:
    """Build every opponent the run will play, as training and the arena will build it, so that one that cannot
    play this table (``ppo`` without a shipped policy for it, ``ismcts`` in the batched simulator) is a config
    error before the run directory exists, not a traceback at the first episode."""
    from uno_env.agents.registry import UnknownAgentError, load_agent
    from uno_env.core.game import Game

    game = Game(rules)
    table = f"{cfg.env.game} with {cfg.env.num_players} players"
    if isinstance(cfg, TrainConfig):
        # the batched simulator plays opponents through act_batch on observations; rllib's baseline modules too
        observations_only = cfg.algorithm == "batched_ppo" or cfg.env.vec_env == "batched"
        where = "the batched simulator (algorithm 'batched_ppo' or env.vec_env 'batched')"
    else:
        observations_only = cfg.opponents.baseline_prob > 0
        where = "RLlib's baseline modules"
    pool = [n for n, w in cfg.opponents.baselines.items() if w > 0]
    built: dict[str, Any] = {}
    for key, names in (("opponents.baselines", pool), ("evaluation.opponents", cfg.evaluation.opponents)):
        for name in names:
            if name not in built:
                try:
                    built[name] = load_agent(name, game, seed=0)
                except (UnknownAgentError, ValueError, TypeError, OSError, ImportError) as e:
                    raise ConfigError(f"config key {key!r}: baseline {name!r} cannot play {table}: {e}") from None
            agent = built[name]
            if key != "opponents.baselines" or not observations_only:
                continue
            if getattr(agent, "needs_state", False) or not callable(getattr(agent, "act_batch", None)):
                why = "searches from the game state" if getattr(agent, "needs_state", False) else "has no act_batch"
                raise ConfigError(f"config key 'opponents.baselines': {name!r} {why}, but {where} plays opponents "
                                  f"on observations alone (act_batch); use another baseline, or keep {name!r} in "
                                  f"evaluation.opponents")


def _baseline_names() -> list[str]:
    """The baselines the agents package offers (``uno_env.agents.registry.BASELINES``)."""
    from uno_env.agents.registry import BASELINES

    return list(BASELINES)


def check_writable_dir(key: str, path: str) -> None:
    """Raise a ConfigError naming ``key`` unless a directory can be created and written at ``path``.

    The check writes (and removes) a temporary directory in ``path`` or in its nearest existing ancestor: the
    permission bits alone do not tell (root passes them on /proc, where nothing can be created).
    """
    if "\0" in path:
        raise ConfigError(f"config key {key!r}: a path cannot hold a NUL character, got {_show(path)}")
    target = os.path.abspath(path or ".")
    for part in target.split(os.sep):
        if len(os.fsencode(part)) > MAX_NAME_BYTES:
            raise ConfigError(f"config key {key!r}: a path component is at most {MAX_NAME_BYTES} bytes, got one of "
                              f"{len(os.fsencode(part))} in {_show(path)}")
    probe = target
    while not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if not os.path.isdir(probe):
        raise ConfigError(f"config key {key!r}: {path!r} cannot be a directory ({probe!r} is a file)")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".uno-env-write-check-", dir=probe))
    except OSError as e:
        raise ConfigError(f"config key {key!r}: cannot create or write {path!r} ({e.strerror or e})") from None


# ---------------------------------------------------------------------------------------------
# loading


def _config_from(cls: type, check: Any, what: str, data: Mapping[str, Any], validate: bool) -> Any:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{what} must be a mapping of keys; got {type(data).__name__}")
    cfg = _build(cls, data)
    if validate:
        check(cfg)
    return cfg


def config_from_dict(data: Mapping[str, Any], validate: bool = True) -> TrainConfig:
    """A :class:`TrainConfig` from plain data (a parsed YAML file); ConfigError names a bad key or value."""
    return cast(TrainConfig, _config_from(TrainConfig, _validate, "a training config", data, validate))


def config_to_dict(cfg: TrainConfig) -> dict[str, Any]:
    """The config as plain data (the inverse of :func:`config_from_dict`)."""
    return dataclasses.asdict(cfg)


def packaged_configs(folder: str = "train") -> list[str]:
    """The names of the configs that ship with uno-env (``--config NAME``): ``train`` (``uno-env train`` and
    ``train-rllib``) or ``distill`` (``uno-env distill``)."""
    try:
        root = resources.files("uno_env.configs").joinpath(folder)
        return sorted(e.name[:-5] for e in root.iterdir() if e.name.endswith(".yaml"))
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        return []


def resolve_config(spec: str | os.PathLike, folder: str = "train") -> str:
    """The file a ``--config`` value names: a YAML path, or the name of a packaged config (``classic_ppo``) in
    ``folder`` (see :func:`packaged_configs`).

    An existing file wins over a packaged config of the same name.
    """
    path = os.fspath(spec)
    if os.path.exists(path):
        return path
    is_name = bool(path) and os.sep not in path and "/" not in path and not path.endswith((".yaml", ".yml"))
    if is_name:
        found = resources.files("uno_env.configs").joinpath(folder, path + ".yaml")
        if found.is_file():
            return os.fspath(found)  # type: ignore[call-overload]  # a plain file in every install we support
    known = packaged_configs(folder)
    hint = difflib.get_close_matches(path, known, n=1)
    raise ConfigError(f"config file {path!r} does not exist" + (
        f" and is not a packaged config{f' (did you mean {hint[0]!r}?)' if hint else ''}; packaged configs: "
        f"{', '.join(known)}" if is_name else ""))


def read_yaml(path: str | os.PathLike, folder: str = "train") -> dict[str, Any]:
    """The mapping in the YAML file ``path`` (or packaged config of ``folder``); ConfigError for a missing,
    unreadable or malformed file."""
    path = resolve_config(path, folder)
    if os.path.isdir(path):
        raise ConfigError(f"config file {path!r} is a directory, not a YAML file")
    try:
        data = load_yaml_file(path)
    except OSError as e:
        raise ConfigError(f"config file {path!r}: cannot read it: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"config file {path!r}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset "
                          f"{e.start}); a config is a YAML text file") from None
    except YAMLLimitError as e:
        raise ConfigError(f"config file {path!r}: refused: {e}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ConfigError(f"config file {path!r}: malformed YAML{at}: {getattr(e, 'problem', None) or e}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path!r}: the top level must be a mapping of keys, got {type(data).__name__}")
    return data


def parse_overrides(items: list[str] | None) -> list[tuple[list[str], Any]]:
    """``["ppo.learning_rate=1e-4", ...]`` -> ``[(["ppo", "learning_rate"], "1e-4"), ...]`` (values read as YAML)."""
    out = []
    for item in items or []:
        if "=" not in item:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE, e.g. --set ppo.learning_rate=1e-4")
        key, text = item.split("=", 1)
        key = key.strip()
        if not key or any(not p for p in key.split(".")):
            raise ConfigError(f"--set {item!r}: bad key {key!r}")
        try:
            value = load_yaml(text) if text.strip() else ""
        except YAMLLimitError as e:
            raise ConfigError(f"--set {key}: refused: {e}") from None
        except yaml.YAMLError:
            value = text
        out.append((key.split("."), value))
    return out


def apply_overrides(data: dict[str, Any], overrides: list[tuple[list[str], Any]]) -> dict[str, Any]:
    """A copy of ``data`` with each ``(key path, value)`` of ``overrides`` set (``--set a.b=value``)."""
    data = _deep_copy(data)
    for path, value in overrides:
        node = data
        for i, part in enumerate(path[:-1]):
            nxt = node.get(part)
            if nxt is None:
                nxt = node[part] = {}
            elif not isinstance(nxt, dict):
                raise ConfigError(f"--set {'.'.join(path)}: {'.'.join(path[:i + 1])!r} is not a section")
            node = nxt
        node[path[-1]] = value
    return data


def _deep_copy(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: _deep_copy(v) for k, v in d.items()}
    if isinstance(d, list):
        return [_deep_copy(v) for v in d]
    return d


def load_config(path: str | os.PathLike | None, overrides: list[str] | None = None,
                **top_level: Any) -> TrainConfig:
    """Read ``path`` (a YAML path or a packaged config's name; None: the defaults), apply ``--set`` overrides
    and top-level values, validate."""
    data = read_yaml(path) if path is not None else {}
    data = apply_overrides(data, parse_overrides(overrides))
    for k, v in top_level.items():
        if v is not None:
            data[k] = v
    return config_from_dict(data)


def rllib_config_from_dict(data: Mapping[str, Any], validate: bool = True) -> RllibTrainConfig:
    """An :class:`RllibTrainConfig` from plain data (a parsed YAML file); ConfigError names a bad key or value."""
    return cast(RllibTrainConfig, _config_from(RllibTrainConfig, _validate_rllib, "a training config", data, validate))


def load_rllib_config(path: str | os.PathLike | None, overrides: list[str] | None = None,
                      **top: Any) -> RllibTrainConfig:
    """As :func:`load_config` for ``uno-env train-rllib``; ``top`` keys may be dotted (``stop.iterations``)."""
    data = read_yaml(path) if path is not None else {}
    data = apply_overrides(data, parse_overrides(overrides))
    for dotted, v in top.items():
        if v is not None:
            data = apply_overrides(data, [(dotted.split("."), v)])
    return rllib_config_from_dict(data)


# ---------------------------------------------------------------------------------------------
# uno-env distill: loading and checks


def _validate_distill(cfg: DistillConfig) -> None:
    """Checks across keys, against the game's rules and of the teacher, before any game is labelled."""
    from uno_env.agents.registry import UnknownAgentError, load_agent
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    _check_name(cfg.name)
    env = cfg.env
    try:
        rules = make_rules(env.game, env.num_players, env.rules)
    except ConfigError:
        raise
    except (ValueError, TypeError) as e:
        raise ConfigError(f"config key 'env.rules' (game {env.game!r}, {env.num_players} players): {e}") from None
    _check_layers("fit.net_arch", cfg.fit.net_arch)
    teacher = cfg.labels.teacher
    if not isinstance(teacher, str) or teacher.split(":", 1)[0] != "ismcts":
        raise ConfigError(f"config key 'labels.teacher': an ismcts agent spec (e.g. 'ismcts' or 'ismcts:sims=300'), "
                          f"whose per-action win rates are the labels; got {_show(teacher)}")
    try:
        load_agent(teacher, Game(rules), seed=0)
    except (UnknownAgentError, ValueError, TypeError) as e:
        raise ConfigError(f"config key 'labels.teacher': {e}") from None
    _check_evaluation(cfg.evaluation, env.num_players, ("games",))
    known = [n for n in _baseline_names() if n != "human"]
    for n in cfg.evaluation.opponents:
        if n not in known:
            raise ConfigError(f"config key 'evaluation.opponents': unknown baseline {n!r}; known: {', '.join(known)}")


def distill_config_from_dict(data: Mapping[str, Any], validate: bool = True) -> DistillConfig:
    """A :class:`DistillConfig` from plain data (a parsed YAML file); ConfigError names a bad key or value."""
    return cast(DistillConfig, _config_from(DistillConfig, _validate_distill, "a distillation config", data,
                                            validate))


def load_distill_config(path: str | os.PathLike | None, overrides: list[str] | None = None,
                        **top_level: Any) -> DistillConfig:
    """Read ``path`` (a YAML path or the name of a config in ``configs/distill``; None: the defaults), apply
    ``--set`` overrides and top-level values, validate."""
    data = read_yaml(path, "distill") if path is not None else {}
    data = apply_overrides(data, parse_overrides(overrides))
    for k, v in top_level.items():
        if v is not None:
            data[k] = v
    return distill_config_from_dict(data)
