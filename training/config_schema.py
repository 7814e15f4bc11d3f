"""The training configurations' schema: one dataclass per config section, each key with its type, default and
allowed range (the ``metadata`` of its field: ``min``, ``max``, ``min_excl``, ``max_excl``, ``or_null``), and the
bounds those ranges use.

The loading (:mod:`uno_env.training.config`) and the checks (:mod:`uno_env.training.config_checks`) read these
classes; a config file mirrors them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from uno_env._threads import MAX_THREADS

from .limits import MAX_GAMES, MAX_WORKERS

__all__ = ["ConfigError", "SEED_MAX", "GameConfig", "PoolConfig", "EvalConfig", "EnvConfig", "PolicyConfig",
           "PPOConfig", "OpponentConfig", "TrainConfig", "DistillLabelConfig", "DistillFitConfig",
           "DistillEvalConfig", "DistillConfig", "RllibResourcesConfig", "RllibModuleConfig", "RllibPPOConfig",
           "RllibOpponentConfig", "RllibEvalConfig", "RllibStopConfig", "RllibRayConfig", "RllibTrainConfig"]

#: seeds are 32-bit (numpy's legacy global seed and torch's manual_seed both take them)
SEED_MAX = 2**32 - 1
# Upper bounds far above any real run: they are there so that a typo (an extra zero or three) is an error
# naming the key, not a machine that swaps itself to a halt building a billion environments.
MAX_STEPS = 10**12
MAX_ENVS = 1 << 20  # batched simulator games; Python environments are bounded lower in the checks
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
class NetworkInputConfig:
    """What every trainer's network does with the observation, and its activation."""

    activation: Literal["tanh", "relu"] = "tanh"
    # symlog: sign(x) * log(1 + |x|) on the observation (counts of up to ~100 cards); none: raw values
    obs_transform: Literal["symlog", "none"] = "symlog"
    # also feed the legal-action mask to the network (it always masks the action distribution)
    include_mask: bool = True


@dataclass
class PolicyConfig(NetworkInputConfig):
    """The actor-critic network (small: this trains on CPU)."""

    net_arch: list[int] = field(default_factory=lambda: [128, 128])
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
class RllibModuleConfig(NetworkInputConfig):
    """The masking actor-critic (uno_env.agents.rllib_policy): two MLPs, policy and value."""

    hiddens: list[int] = field(default_factory=lambda: [256, 256])


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
