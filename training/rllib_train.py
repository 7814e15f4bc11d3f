"""``uno-env train-rllib``: multi-agent PPO with Ray RLlib (new API stack) on the same UNO environments.

    uno-env train-rllib --config configs/train/rllib_classic.yaml
    uno-env train-rllib --config configs/train/rllib_classic.yaml --num-env-runners 8 --num-envs-per-env-runner 16
    RAY_ADDRESS=auto uno-env train-rllib --config ...            # or: ray job submit --working-dir . -- uno-env ...

Single-machine Stable-Baselines3 (``uno-env train``) is the default way to train; this is how the same training
scales from one machine to a Ray cluster.  The script reads top to bottom:

1. **Config**: YAML + ``--set section.key=value`` overrides into :class:`RllibTrainConfig`, checked before Ray
   starts (unknown keys, types and ranges, the rules).
2. **Ray**: ``ray.init()`` on this machine, or the cluster at ``ray.address`` / ``$RAY_ADDRESS`` (what
   ``ray job submit`` sets).
3. **Environment**: :class:`training.rllib_adapter.UnoMultiAgentEnv`, our AEC env through RLlib's PettingZoo
   wrapper, with the observation renamed for the masking module and ``render()`` fixed.
4. **Modules** (a ``MultiRLModule``): ``main``, the one learning policy (:class:`MaskedActorCriticModule`);
   ``snapshot_<k>``, frozen copies of ``main`` for self-play; ``baseline_<name>``, frozen baselines from
   ``agents/`` (:class:`BaselineRLModule`).  Only ``main`` is trained.
5. **Seats**: :class:`SeatMapping` maps each seat to a module per episode: one seat is always ``main``; every
   other seat is a snapshot (probability ``opponents.selfplay_prob``, once there is one), a baseline
   (``opponents.baseline_prob``) or ``main`` too.  ``baseline_prob: 0`` and ``selfplay_prob: 0`` is one shared
   policy for every seat; ``baseline_prob: 1`` is the learner against frozen baselines.
6. **Self-play**: :class:`SelfPlayCallback` copies ``main``'s weights into the next snapshot slot every
   ``opponents.snapshot_every`` iterations (from ``opponents.selfplay_start`` on) and logs ``main``'s win rate
   against each kind of opponent.
7. **Evaluation**: every ``evaluation.every`` iterations RLlib calls :func:`arena_evaluation`, which plays the
   arena (``training.evaluate.run_arena``) with the current ``main`` against each baseline; the win rates land
   in the result under ``evaluation/arena`` and in ``progress.jsonl``.
8. **Checkpoints**: ``checkpoints/iter_<N>/`` every ``checkpoint_every`` iterations and ``final/`` at the end
   (RLlib algorithm checkpoints plus ``uno_env_rllib.json``); ``--restore PATH`` continues from one, and
   ``uno-env evaluate runs/NAME/final random`` plays the trained policy (:func:`training.rllib_module.load_rllib_agent`).

Run directory ``runs/<name>/``: ``config.yaml`` (resolved), ``progress.jsonl`` (one line per iteration),
``checkpoints/``, ``final/``.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import shutil
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional, Union

import numpy as np
import yaml

from .config import ConfigError, _build, apply_overrides, parse_overrides, read_yaml

__all__ = ["RllibTrainConfig", "load_rllib_config", "build_algorithm_config", "SeatMapping", "SelfPlayCallback",
           "arena_evaluation", "train", "add_arguments", "run", "MAIN", "SNAPSHOT_PREFIX", "BASELINE_PREFIX"]

MAIN = "main"
SNAPSHOT_PREFIX = "snapshot_"
BASELINE_PREFIX = "baseline_"


# =============================================================================================
# 1. config


def _m(**kw: Any) -> dict[str, Any]:
    return kw


@dataclass
class EnvSection:
    """The game every seat plays."""

    game: Literal["classic", "pocket", "dice"] = "classic"
    num_players: int = field(default=2, metadata=_m(min=2, max=10))
    # None = the game's standard rules; a preset name ("standard", "rlcard"), a rules YAML path or a dict
    rules: Optional[Union[str, dict]] = None


@dataclass
class ResourcesSection:
    """The knobs that scale a run: sampling (EnvRunners x envs each) and learning (Learners)."""

    # 0 = sample in the driver process ("local mode"); N = N EnvRunner actors, one CPU each by default
    num_env_runners: int = field(default=2, metadata=_m(min=0))
    num_envs_per_env_runner: int = field(default=8, metadata=_m(min=1))
    num_cpus_per_env_runner: float = field(default=1.0, metadata=_m(min=0.0))
    # 0 = learn in the driver process; N = N Learner actors (data-parallel, gradients all-reduced)
    num_learners: int = field(default=0, metadata=_m(min=0))
    num_cpus_per_learner: float = field(default=1.0, metadata=_m(min=0.0))
    num_gpus_per_learner: float = field(default=0.0, metadata=_m(min=0.0))
    # env steps per EnvRunner per sample() call: "auto" (= train batch / (runners x envs)) or a number
    rollout_fragment_length: Union[int, Literal["auto"]] = "auto"
    # torch threads in the driver (and local EnvRunner/Learner); 0 = torch's default
    torch_threads: int = field(default=1, metadata=_m(min=0))


@dataclass
class ModuleSection:
    """The masking actor-critic (training/rllib_module.py): two MLPs, policy and value."""

    hiddens: list[int] = field(default_factory=lambda: [256, 256])
    activation: Literal["tanh", "relu"] = "tanh"
    obs_transform: Literal["symlog", "none"] = "symlog"
    include_mask: bool = True


@dataclass
class PPOSection:
    """RLlib PPO hyperparameters (RLlib's names)."""

    lr: float = field(default=3e-4, metadata=_m(min_excl=0.0))
    gamma: float = field(default=0.995, metadata=_m(min=0.0, max=1.0))
    lambda_: float = field(default=0.95, metadata=_m(min=0.0, max=1.0))
    train_batch_size_per_learner: int = field(default=8000, metadata=_m(min=2))
    minibatch_size: int = field(default=1000, metadata=_m(min=1))
    num_epochs: int = field(default=4, metadata=_m(min=1))
    clip_param: float = field(default=0.2, metadata=_m(min_excl=0.0))
    vf_clip_param: float = field(default=10.0, metadata=_m(min_excl=0.0))
    entropy_coeff: float = field(default=0.01, metadata=_m(min=0.0))
    vf_loss_coeff: float = field(default=0.5, metadata=_m(min=0.0))
    use_kl_loss: bool = False
    grad_clip: Optional[float] = 0.5


@dataclass
class OpponentsSection:
    """Who sits in the seats that are not the learner's anchor seat (see SeatMapping)."""

    # baseline name -> relative weight when a baseline is drawn
    baselines: dict[str, float] = field(default_factory=lambda: {"random": 1.0, "greedy": 1.0, "heuristic": 2.0})
    # probability that a non-anchor seat is a frozen baseline (0 = one shared policy; 1 = learner vs baselines)
    baseline_prob: float = field(default=0.0, metadata=_m(min=0.0, max=1.0))
    # probability that a non-anchor seat is a frozen self-play snapshot (once one exists); 0 = no snapshots
    selfplay_prob: float = field(default=0.3, metadata=_m(min=0.0, max=1.0))
    # the first snapshot is taken after this many iterations, then one every snapshot_every iterations
    selfplay_start: int = field(default=10, metadata=_m(min=1))
    snapshot_every: int = field(default=10, metadata=_m(min=1))
    # snapshot slots (frozen modules); the oldest is overwritten first
    pool_size: int = field(default=4, metadata=_m(min=1, max=64))
    # when a snapshot is drawn: probability of the newest one (else uniform over the filled slots)
    latest_prob: float = field(default=0.5, metadata=_m(min=0.0, max=1.0))


@dataclass
class EvaluationSection:
    """Arena evaluation of ``main`` against the baselines (training/evaluate.py)."""

    opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    # every this many iterations (0 = only the final one)
    every: int = field(default=10, metadata=_m(min=0))
    games: int = field(default=200, metadata=_m(min=1))
    final_games: int = field(default=2000, metadata=_m(min=1))
    # the trained policy takes its most likely action (true) or samples (false)
    deterministic: bool = True
    seed: int = 2024


@dataclass
class StopSection:
    """Training stops at the first limit reached (0 = no limit; at least one must be set)."""

    iterations: int = field(default=200, metadata=_m(min=0))
    env_steps: int = field(default=0, metadata=_m(min=0))
    time_s: float = field(default=0.0, metadata=_m(min=0.0))


@dataclass
class RayRuntimeSection:
    """Where Ray runs."""

    # None: $RAY_ADDRESS if set (ray job submit sets it), else a new local Ray; "auto": a running cluster
    address: Optional[str] = None
    # quieter Ray logs (driver side)
    log_to_driver: bool = True


@dataclass
class RllibTrainConfig:
    """One RLlib run; ``runs_dir/name`` holds its checkpoints and progress."""

    name: str = "rllib"
    seed: int = 0
    runs_dir: str = "runs"
    checkpoint_every: int = field(default=20, metadata=_m(min=0))
    keep_checkpoints: int = field(default=2, metadata=_m(min=1))
    env: EnvSection = field(default_factory=EnvSection)
    resources: ResourcesSection = field(default_factory=ResourcesSection)
    module: ModuleSection = field(default_factory=ModuleSection)
    ppo: PPOSection = field(default_factory=PPOSection)
    opponents: OpponentsSection = field(default_factory=OpponentsSection)
    evaluation: EvaluationSection = field(default_factory=EvaluationSection)
    stop: StopSection = field(default_factory=StopSection)
    ray: RayRuntimeSection = field(default_factory=RayRuntimeSection)


def _validate(cfg: RllibTrainConfig) -> None:
    if not cfg.name or "/" in cfg.name or cfg.name in (".", ".."):
        raise ConfigError(f"config key 'name': must be a plain directory name, got {cfg.name!r}")
    if not cfg.module.hiddens or any(h < 1 for h in cfg.module.hiddens):
        raise ConfigError(f"config key 'module.hiddens': needs one or more positive widths, got {cfg.module.hiddens}")
    if cfg.ppo.minibatch_size > cfg.ppo.train_batch_size_per_learner:
        raise ConfigError(f"config key 'ppo.minibatch_size': {cfg.ppo.minibatch_size} is larger than "
                          f"ppo.train_batch_size_per_learner ({cfg.ppo.train_batch_size_per_learner})")
    if not (cfg.stop.iterations or cfg.stop.env_steps or cfg.stop.time_s):
        raise ConfigError("config section 'stop': set at least one of iterations, env_steps, time_s")
    opp = cfg.opponents
    if opp.baseline_prob + opp.selfplay_prob > 1.0 + 1e-9:
        raise ConfigError(f"config keys 'opponents.baseline_prob' + 'opponents.selfplay_prob' must be <= 1, got "
                          f"{opp.baseline_prob} + {opp.selfplay_prob}")
    if any(w < 0 for w in opp.baselines.values()):
        raise ConfigError("config key 'opponents.baselines': weights must be >= 0")
    if opp.baseline_prob > 0 and sum(opp.baselines.values()) <= 0:
        raise ConfigError("config key 'opponents.baselines': opponents.baseline_prob > 0 needs a baseline with a "
                          "positive weight")
    from uno_env.agents.registry import BASELINES

    known = [n for n in BASELINES if n != "human"]
    for key, names in (("opponents.baselines", list(opp.baselines)), ("evaluation.opponents",
                                                                      cfg.evaluation.opponents)):
        for n in names:
            if n not in known:
                raise ConfigError(f"config key {key!r}: unknown baseline {n!r}; known: {', '.join(known)}")
    if not cfg.evaluation.opponents:
        raise ConfigError("config key 'evaluation.opponents': name at least one baseline")
    rules = cfg.env.rules
    if isinstance(rules, str) and rules.endswith((".yaml", ".yml")) and not os.path.isfile(rules):
        raise ConfigError(f"config key 'env.rules': rules file {rules!r} does not exist")
    from uno_env.config import make_rules

    try:
        make_rules(cfg.env.game, cfg.env.num_players, rules)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"config key 'env.rules' (game {cfg.env.game!r}, {cfg.env.num_players} players): {e}") from None


def load_rllib_config(path: Optional[str], overrides: Optional[list[str]] = None, **top: Any) -> RllibTrainConfig:
    """Read ``path`` (None: the defaults), apply ``--set`` overrides and non-None ``top`` values, validate."""
    data = read_yaml(path) if path is not None else {}
    data = apply_overrides(data, parse_overrides(overrides))
    for dotted, v in top.items():
        if v is not None:
            data = apply_overrides(data, [(dotted.split("."), v)])
    cfg = _build(RllibTrainConfig, data)
    _validate(cfg)
    return cfg


def env_config(cfg: RllibTrainConfig) -> dict[str, Any]:
    """The ``env_config`` RLlib hands to :class:`UnoMultiAgentEnv`: game, number of players and rules."""
    return {"game": cfg.env.game, "num_players": cfg.env.num_players, "rules": cfg.env.rules}


# =============================================================================================
# 5. seats -> modules


class SeatMapping:
    """RLlib's ``policy_mapping_fn``: which module plays each seat (agent) of an episode.

    The anchor seat, drawn per episode from the episode id, is always ``main``, so every episode trains it from
    a seat that changes from game to game.  Each other seat independently is a snapshot with probability
    ``selfplay_prob`` (only once a snapshot has been taken), a baseline with probability ``baseline_prob``
    (weighted by ``baselines``), else ``main``.  ``snapshots_taken`` is set by :class:`SelfPlayCallback` on every
    EnvRunner's copy of this object.  The draws are not seeded (RLlib's episode ids are random, so a multi-process
    RLlib run is not bit-reproducible anyway); the games themselves are seeded through ``seed``.
    """

    def __init__(self, num_players: int, baselines: dict[str, float], baseline_prob: float, selfplay_prob: float,
                 pool_size: int, latest_prob: float):
        self.num_players = num_players
        names = [n for n, w in baselines.items() if w > 0]
        w = np.array([baselines[n] for n in names], dtype=np.float64)
        self.baseline_ids = [BASELINE_PREFIX + n for n in names]
        self.baseline_p = w / w.sum() if len(names) else w
        self.baseline_prob = float(baseline_prob) if names else 0.0
        self.selfplay_prob = float(selfplay_prob)
        self.pool_size = int(pool_size)
        self.latest_prob = float(latest_prob)
        self.snapshots_taken = 0
        self._rng: Optional[np.random.Generator] = None

    def module_ids(self) -> list[str]:
        """Every RLModule id this mapping can return: ``main``, the snapshot slots and the baselines in use."""
        ids = [MAIN]
        if self.selfplay_prob > 0:
            ids += [f"{SNAPSHOT_PREFIX}{k}" for k in range(self.pool_size)]
        if self.baseline_prob > 0:
            ids += list(self.baseline_ids)
        return ids

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_rng"] = None  # each process draws from its own fresh generator
        return d

    def anchor_seat(self, episode_id: str) -> int:
        """The seat ``main`` plays in episode ``episode_id`` (the same in every process)."""
        return zlib.crc32(str(episode_id).encode()) % self.num_players

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        seat = int(str(agent_id).rsplit("_", 1)[-1])
        if episode is None or seat == self.anchor_seat(getattr(episode, "id_", "")):
            return MAIN
        if self._rng is None:
            self._rng = np.random.default_rng()
        u = self._rng.random()
        filled = min(self.snapshots_taken, self.pool_size)
        if filled and u < self.selfplay_prob:
            latest = (self.snapshots_taken - 1) % self.pool_size
            slot = latest if self._rng.random() < self.latest_prob else int(self._rng.integers(filled))
            return f"{SNAPSHOT_PREFIX}{slot}"
        if self.selfplay_prob <= u < self.selfplay_prob + self.baseline_prob:
            return self.baseline_ids[int(self._rng.choice(len(self.baseline_ids), p=self.baseline_p))]
        return MAIN


# =============================================================================================
# 6. self-play snapshots and win-rate logging


def _opponent_kind(module_id: str) -> str:
    if module_id.startswith(SNAPSHOT_PREFIX):
        return "snapshot"
    if module_id.startswith(BASELINE_PREFIX):
        return module_id[len(BASELINE_PREFIX):]
    return module_id


def _set_snapshots_taken(env_runner, n: int) -> None:
    fn = env_runner.config.policy_mapping_fn
    if isinstance(fn, SeatMapping):
        fn.snapshots_taken = n


def _callback_base():
    from ray.rllib.callbacks.callbacks import RLlibCallback

    return RLlibCallback


class SelfPlayCallback(_callback_base()):
    """Every ``snapshot_every`` iterations (from ``selfplay_start`` on) copy ``main``'s weights into the next
    snapshot slot, on the Learner (so checkpoints hold it) and on every EnvRunner, and tell the EnvRunners'
    :class:`SeatMapping` how many snapshots exist.  At each episode end, log ``main``'s win rate against the
    kind of opponent it met (``win_rate_vs_<kind>``: ``snapshot``, a baseline name, or ``mixed``; episodes
    with ``main`` in every seat are not counted).  RLlib reduces it per iteration: with a few dozen games per
    iteration it is noisy; the arena evaluation is the measurement to trust."""

    def __init__(self, selfplay_start: int = 10, snapshot_every: int = 10, pool_size: int = 4,
                 enabled: bool = True):
        super().__init__()
        self.selfplay_start = selfplay_start
        self.snapshot_every = snapshot_every
        self.pool_size = pool_size
        self.enabled = enabled

    # -- EnvRunner side ---------------------------------------------------------------------------
    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        """Log ``main``'s win against each kind of opponent it met in the episode."""
        if metrics_logger is None or not episode.is_terminated:
            return
        try:
            mains, others, won = [], set(), False
            for aid, sa in episode.agent_episodes.items():
                mid = episode.module_for(aid)
                if mid == MAIN:
                    mains.append(aid)
                    if len(sa) and float(sa.get_rewards(-1)) > 0:
                        won = True
                else:
                    others.add(_opponent_kind(mid))
        except Exception:  # pragma: no cover - logging must never break sampling
            return
        if not mains or not others:  # pure self-play: main wins every game, nothing to log
            return
        kind = "mixed" if len(others) > 1 else others.pop()
        metrics_logger.log_value(f"win_rate_vs_{kind}", float(won), reduce="mean", window=200)

    # -- driver side ------------------------------------------------------------------------------
    def on_train_result(self, *, algorithm, metrics_logger=None, result, **kwargs) -> None:
        """Take a self-play snapshot of ``main`` when it is due and report the pool in ``result``."""
        mapping = algorithm.config.policy_mapping_fn
        if not self.enabled or not isinstance(mapping, SeatMapping):
            return
        it = algorithm.iteration
        if it >= self.selfplay_start and (it - self.selfplay_start) % self.snapshot_every == 0:
            take_snapshot(algorithm)
        result["selfplay"] = {"snapshots_taken": mapping.snapshots_taken,
                              "pool_filled": min(mapping.snapshots_taken, mapping.pool_size)}


def take_snapshot(algorithm) -> str:
    """Copy ``main``'s weights into the next snapshot slot (Learner and EnvRunners); returns the slot's id."""
    mapping: SeatMapping = algorithm.config.policy_mapping_fn
    slot = f"{SNAPSHOT_PREFIX}{mapping.snapshots_taken % mapping.pool_size}"
    weights = algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    algorithm.learner_group.set_state({"learner": {"rl_module": {slot: weights}}})
    algorithm.env_runner_group.sync_weights(from_worker_or_learner_group=algorithm.learner_group, policies=[slot],
                                            inference_only=True)
    set_snapshots_taken(algorithm, mapping.snapshots_taken + 1)
    return slot


def set_snapshots_taken(algorithm, n: int) -> None:
    """Set the snapshot count on the driver's SeatMapping and on every EnvRunner's copy."""
    mapping = algorithm.config.policy_mapping_fn
    if isinstance(mapping, SeatMapping):
        mapping.snapshots_taken = n
    algorithm.env_runner_group.foreach_env_runner(functools.partial(_set_snapshots_taken, n=n))


# =============================================================================================
# 7. arena evaluation


def main_agent(algorithm, env_cfg: dict, model_config: dict, deterministic: bool = True):
    """The current ``main`` policy (weights from the Learner) as an arena agent."""
    from .rllib_adapter import UnoMultiAgentEnv
    from .rllib_module import MaskedActorCriticModule, RllibPolicyAgent

    cache = algorithm.__dict__.setdefault("_uno_eval_module", {})
    module = cache.get(MAIN)
    if module is None:
        probe = UnoMultiAgentEnv(env_cfg)
        a0 = probe.possible_agents[0]
        module = cache[MAIN] = MaskedActorCriticModule(observation_space=probe.observation_spaces[a0],
                                                       action_space=probe.action_spaces[a0],
                                                       model_config=dict(model_config))
        module.eval()
    module.set_state(algorithm.learner_group.get_weights(module_ids=[MAIN])[MAIN])
    return RllibPolicyAgent(probe_game(env_cfg), path=None, module=module, deterministic=deterministic)


def play_arena(agent, opponents: list[str], env_cfg: dict, games: int, seed: int) -> dict[str, Any]:
    """``agent`` against each baseline in the arena: ``{"win_rate_vs_<name>": x, ... , "games": n}``."""
    from .evaluate import run_arena

    out: dict[str, Any] = {}
    steps = 0
    for i, opp in enumerate(opponents):
        res = run_arena([agent, opp], game=env_cfg["game"], num_players=env_cfg["num_players"],
                        rules=env_cfg["rules"], games=games, seed=seed + 1000 * i, workers=1, ratings=False)
        me = res.agents[0]
        lo, hi = me.ci
        out[f"win_rate_vs_{opp}"] = me.win_rate
        out[f"win_rate_vs_{opp}_ci95"] = [lo, hi]
        steps += int(res.mean_length * res.games)
    out["games_per_opponent"] = games
    out["decisions"] = steps
    return out


def arena_evaluation(algorithm, eval_env_runner_group=None, *, settings: dict) -> tuple[dict, int, int]:
    """RLlib's ``custom_evaluation_function``: the arena's win rates of ``main`` against the baselines.

    On the new API stack RLlib reads evaluation results from the Algorithm's MetricsLogger, so they are logged
    there, under ``evaluation/env_runners/arena/`` (scalars: ``win_rate_vs_<name>``, ``..._ci95_low/high``,
    ``games_per_opponent``, ``seconds``, ``iteration``).
    """
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, EVALUATION_RESULTS
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    agent = main_agent(algorithm, settings["env"], settings["model_config"], settings["deterministic"])
    t = time.time()
    res = play_arena(agent, settings["opponents"], settings["env"], settings["games"],
                     settings["seed"] + int(algorithm.iteration))
    steps = int(res.pop("decisions"))
    flat: dict[str, float] = {"seconds": time.time() - t, "iteration": float(algorithm.iteration + 1)}
    for k, v in res.items():
        if isinstance(v, (list, tuple)):
            flat[k + "_low"], flat[k + "_high"] = float(v[0]), float(v[1])
        else:
            flat[k] = float(v)
    # log as an EnvRunner would, then merge into the Algorithm's logger where RLlib collects evaluation results
    ml = MetricsLogger()
    for k, v in flat.items():
        ml.log_value(("arena", k), v, reduce="mean", window=1)
    algorithm.metrics.aggregate([ml.reduce()], key=(EVALUATION_RESULTS, ENV_RUNNER_RESULTS))
    return {"arena": flat}, steps, steps


def probe_game(env_cfg: dict):
    """The compiled game that ``env_cfg`` describes (for its observation and action sizes)."""
    from uno_env.config import make_rules
    from uno_env.core.game import Game

    return Game(make_rules(env_cfg["game"], env_cfg["num_players"], env_cfg["rules"]))


# =============================================================================================
# 3.-7. the RLlib config


def build_algorithm_config(cfg: RllibTrainConfig):
    """The ``PPOConfig`` of a run (new API stack)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib_adapter import UnoMultiAgentEnv
    from .rllib_module import BaselineRLModule, MaskedActorCriticModule

    envc = env_config(cfg)
    probe = UnoMultiAgentEnv(envc)
    obs_space = probe.observation_spaces[probe.possible_agents[0]]
    act_space = probe.action_spaces[probe.possible_agents[0]]
    probe.close()
    opp = cfg.opponents
    mapping = SeatMapping(cfg.env.num_players, opp.baselines, opp.baseline_prob, opp.selfplay_prob, opp.pool_size,
                          opp.latest_prob)
    model_config = dataclasses.asdict(cfg.module)
    specs = {}
    for mid in mapping.module_ids():
        if mid.startswith(BASELINE_PREFIX):
            specs[mid] = RLModuleSpec(module_class=BaselineRLModule, observation_space=obs_space,
                                      action_space=act_space,
                                      model_config=dict(envc, agent=mid[len(BASELINE_PREFIX):], seed=None))
        else:
            specs[mid] = RLModuleSpec(module_class=MaskedActorCriticModule, observation_space=obs_space,
                                      action_space=act_space, model_config=model_config)
    res = cfg.resources
    ev = cfg.evaluation
    settings = {"env": envc, "model_config": model_config, "opponents": list(ev.opponents), "games": ev.games,
                "seed": ev.seed, "deterministic": ev.deterministic}
    config = (
        PPOConfig()
        .environment(UnoMultiAgentEnv, env_config=envc, disable_env_checking=True)
        .env_runners(
            num_env_runners=res.num_env_runners,
            num_envs_per_env_runner=res.num_envs_per_env_runner,
            num_cpus_per_env_runner=res.num_cpus_per_env_runner,
            rollout_fragment_length=res.rollout_fragment_length,
        )
        .learners(
            num_learners=res.num_learners,
            num_cpus_per_learner=res.num_cpus_per_learner if res.num_learners else 1,
            num_gpus_per_learner=res.num_gpus_per_learner,
        )
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            lr=cfg.ppo.lr,
            gamma=cfg.ppo.gamma,
            lambda_=cfg.ppo.lambda_,
            train_batch_size_per_learner=cfg.ppo.train_batch_size_per_learner,
            minibatch_size=cfg.ppo.minibatch_size,
            num_epochs=cfg.ppo.num_epochs,
            clip_param=cfg.ppo.clip_param,
            vf_clip_param=cfg.ppo.vf_clip_param,
            entropy_coeff=cfg.ppo.entropy_coeff,
            vf_loss_coeff=cfg.ppo.vf_loss_coeff,
            use_kl_loss=cfg.ppo.use_kl_loss,
            grad_clip=cfg.ppo.grad_clip,
        )
        .callbacks(functools.partial(SelfPlayCallback, selfplay_start=opp.selfplay_start,
                                     snapshot_every=opp.snapshot_every, pool_size=opp.pool_size,
                                     enabled=opp.selfplay_prob > 0))
        .evaluation(
            evaluation_interval=ev.every or None,
            custom_evaluation_function=functools.partial(arena_evaluation, settings=settings),
        )
        .debugging(seed=cfg.seed)
    )
    return config


# =============================================================================================
# 8. checkpoints


def _write_metadata(path: Path, cfg: RllibTrainConfig, algorithm) -> None:
    from .rllib_module import METADATA_FILE

    g = probe_game(env_config(cfg))
    mapping = algorithm.config.policy_mapping_fn
    meta = {
        "format": "uno-env rllib checkpoint 1",
        "module_id": MAIN,
        "game": cfg.env.game,
        "num_players": cfg.env.num_players,
        "rules": g.rules.to_dict(),
        "obs_dim": int(g.obs_dim),
        "num_actions": int(g.num_actions),
        "iteration": int(algorithm.iteration),
        "snapshots_taken": int(getattr(mapping, "snapshots_taken", 0)),
        "name": cfg.name,
    }
    with open(path / METADATA_FILE, "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=2)
        fh.write("\n")


def save_checkpoint(algorithm, cfg: RllibTrainConfig, path: Path) -> Path:
    """An RLlib algorithm checkpoint plus ``uno_env_rllib.json``, written to a temp dir and renamed."""
    tmp = path.with_name(path.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    algorithm.save_to_path(str(tmp.resolve()))
    _write_metadata(tmp, cfg, algorithm)
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    return path


def restore_checkpoint(algorithm, path: str | os.PathLike) -> None:
    """Continue from a checkpoint of this script (weights, optimizer, iteration, snapshot count)."""
    from .rllib_module import METADATA_FILE

    p = Path(path)
    if (p / "final").is_dir() and not (p / "rllib_checkpoint.json").is_file():
        p = p / "final"
    if not (p / "rllib_checkpoint.json").is_file():
        raise FileNotFoundError(f"--restore {str(path)!r}: not an RLlib algorithm checkpoint")
    algorithm.restore_from_path(str(p.resolve()))
    meta_file = p / METADATA_FILE
    if meta_file.is_file():
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        set_snapshots_taken(algorithm, int(meta.get("snapshots_taken", 0)))
        # every module (snapshots included) is restored on the Learner; push all of them to the EnvRunners
        algorithm.env_runner_group.sync_weights(from_worker_or_learner_group=algorithm.learner_group,
                                                inference_only=True)


def _prune(ckpt_dir: Path, keep: int) -> None:
    old = sorted(q for q in ckpt_dir.iterdir() if q.is_dir() and q.name.startswith("iter_")
                 and not q.name.endswith(".tmp"))
    for q in old[:-keep]:
        shutil.rmtree(q, ignore_errors=True)


# =============================================================================================
# the loop


def _get(d: dict, *keys: str, default: Any = None) -> Any:
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d


def summarize(result: dict) -> dict[str, Any]:
    """The numbers worth a line per iteration (plain floats; None when RLlib did not report them)."""
    er = result.get("env_runners", {}) or {}
    sampled = _get(er, "num_env_steps_sampled")
    sample_s = _get(result, "timers", "env_runner_sampling_timer")
    learn_s = _get(result, "timers", "learner_update_timer")
    out = {
        "iteration": result.get("training_iteration"),
        "env_steps": sampled,
        "env_steps_lifetime": _get(er, "num_env_steps_sampled_lifetime"),
        "episodes": _get(er, "num_episodes"),
        "episode_len_mean": _get(er, "episode_len_mean"),
        "sample_s": sample_s,
        "learn_s": learn_s,
        "sample_steps_per_s": (sampled / sample_s) if sampled and sample_s else None,
        "win_rates": {k[len("win_rate_vs_"):]: v for k, v in er.items() if k.startswith("win_rate_vs_")},
        "policy_loss": _get(result, "learners", MAIN, "policy_loss"),
        "vf_loss": _get(result, "learners", MAIN, "vf_loss"),
        "entropy": _get(result, "learners", MAIN, "entropy"),
        "selfplay": result.get("selfplay"),
        "arena": _get(result, "evaluation", "env_runners", "arena"),
    }
    return {k: (float(v) if isinstance(v, (np.floating, np.integer)) else v) for k, v in out.items()}


def _fmt_line(s: dict) -> str:
    def f(x, spec=".3g"):
        return "-" if x is None else format(x, spec)

    parts = [f"iter {s['iteration']}", f"steps {f(s['env_steps'], '.0f')} ({f(s['env_steps_lifetime'], '.0f')})",
             f"sample {f(s['sample_steps_per_s'], '.0f')} steps/s", f"learn {f(s['learn_s'], '.2f')}s",
             f"ep_len {f(s['episode_len_mean'], '.0f')}"]
    if s["win_rates"]:
        shown = {k: v for k, v in s["win_rates"].items() if v == v}  # NaN: no such episode in the window
        if shown:
            parts.append("train win vs " + " ".join(f"{k}={v:.2f}" for k, v in sorted(shown.items())))
    if s["arena"] and s["arena"].get("iteration") == s["iteration"]:
        parts.append("ARENA " + " ".join(f"{k[len('win_rate_vs_'):]}={v:.3f}" for k, v in s["arena"].items()
                                         if k.startswith("win_rate_vs_") and "_ci95" not in k))
    return " | ".join(parts)


def _init_ray(cfg: RllibTrainConfig) -> None:
    import ray

    if ray.is_initialized():
        return
    address = cfg.ray.address or os.environ.get("RAY_ADDRESS") or None
    kwargs: dict[str, Any] = {"log_to_driver": cfg.ray.log_to_driver, "ignore_reinit_error": True}
    if address is None:
        kwargs["include_dashboard"] = False
    ray.init(address=address, **kwargs)


def train(cfg: RllibTrainConfig, run_dir: Path, restore: Optional[str] = None, log=print) -> dict[str, Any]:
    """Train until a stop limit; returns the last summary plus the final checkpoint path and final arena."""
    import torch

    if cfg.resources.torch_threads:
        torch.set_num_threads(cfg.resources.torch_threads)
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / "config.yaml", "w", encoding="utf-8") as fh:
        yaml.safe_dump(dataclasses.asdict(cfg), fh, sort_keys=False)
    algo = build_algorithm_config(cfg).build_algo()
    try:
        if restore:
            restore_checkpoint(algo, restore)
            log(f"restored {restore} at iteration {algo.iteration}")
        ckpt_dir = run_dir / "checkpoints"
        t0 = time.time()
        summary: dict[str, Any] = {}
        with open(run_dir / "progress.jsonl", "a", encoding="utf-8") as progress:
            while True:
                result = algo.train()
                summary = summarize(result)
                summary["time_s"] = time.time() - t0
                progress.write(json.dumps(summary, default=float) + "\n")
                progress.flush()
                log(_fmt_line(summary))
                it = int(algo.iteration)
                if cfg.checkpoint_every and it % cfg.checkpoint_every == 0:
                    save_checkpoint(algo, cfg, ckpt_dir / f"iter_{it:06d}")
                    _prune(ckpt_dir, cfg.keep_checkpoints)
                st = cfg.stop
                if ((st.iterations and it >= st.iterations)
                        or (st.env_steps and (summary["env_steps_lifetime"] or 0) >= st.env_steps)
                        or (st.time_s and time.time() - t0 >= st.time_s)):
                    break
        final = save_checkpoint(algo, cfg, run_dir / "final")
        log(f"final checkpoint: {final}")
        ev = cfg.evaluation
        envc = env_config(cfg)
        agent = main_agent(algo, envc, dataclasses.asdict(cfg.module), ev.deterministic)
        arena = play_arena(agent, list(ev.opponents), envc, ev.final_games, ev.seed)
        arena.pop("decisions", None)
        with open(run_dir / "final_arena.json", "w", encoding="utf-8") as fh:
            json.dump(arena, fh, indent=2)
        log("final arena: " + " ".join(f"{k[len('win_rate_vs_'):]}={v:.3f}" for k, v in arena.items()
                                       if k.startswith("win_rate_vs_") and not k.endswith("_ci95")))
        summary.update(final_checkpoint=str(final), final_arena=arena)
        return summary
    finally:
        algo.stop()


def _sample_steps(env_runner, num_timesteps: int) -> int:
    return int(sum(e.env_steps() for e in env_runner.sample(num_timesteps=num_timesteps)))


def measure_sampling(cfg: RllibTrainConfig, env_steps: int, log=print) -> dict[str, Any]:
    """Sampling throughput (env steps/s, wall clock) of the configured EnvRunners: each samples
    ``env_steps / runners`` steps with the exploring policy, after a warm-up call; no learning."""
    import torch

    if cfg.resources.torch_threads:
        torch.set_num_threads(cfg.resources.torch_threads)
    algo = build_algorithm_config(cfg).build_algo()
    try:
        group = algo.env_runner_group
        remote = group.num_remote_env_runners() > 0
        runners = max(group.num_remote_env_runners(), 1)
        per = max(1, env_steps // runners)

        def once(k: int) -> int:
            return sum(group.foreach_env_runner(functools.partial(_sample_steps, num_timesteps=k),
                                                local_env_runner=not remote))

        once(min(per, 1000))  # warm-up: actors up, first episodes and compiled paths done
        t = time.perf_counter()
        steps = once(per)
        dt = time.perf_counter() - t
    finally:
        algo.stop()
    out = {"env_runners": cfg.resources.num_env_runners, "envs_per_env_runner": cfg.resources.num_envs_per_env_runner,
           "env_steps": steps, "seconds": dt, "env_steps_per_s": steps / dt}
    log(f"sampling: {steps} env steps in {dt:.2f}s = {steps / dt:.0f} env steps/s with "
        f"{cfg.resources.num_env_runners} env runner(s) x {cfg.resources.num_envs_per_env_runner} envs")
    return out


# =============================================================================================
# command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env train-rllib``."""
    parser.add_argument("--config", default="configs/train/rllib_classic.yaml", help="training YAML")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config key, e.g. --set ppo.lr=1e-4 (repeatable)")
    parser.add_argument("--name", default=None, help="run name (directory under runs_dir)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--iterations", type=int, default=None, help="stop after this many iterations")
    parser.add_argument("--num-env-runners", type=int, default=None, help="EnvRunner actors (0 = in the driver)")
    parser.add_argument("--num-envs-per-env-runner", type=int, default=None, help="environments per EnvRunner")
    parser.add_argument("--num-learners", type=int, default=None, help="Learner actors (0 = in the driver)")
    parser.add_argument("--address", default=None, help="Ray cluster address ('auto' = the running cluster)")
    parser.add_argument("--restore", default=None, metavar="CHECKPOINT", help="continue from a checkpoint")
    parser.add_argument("--measure-sampling", type=int, default=None, metavar="ENV_STEPS",
                        help="only measure the EnvRunners' sampling throughput over this many env steps, then exit")


def run(args: argparse.Namespace) -> int:
    """``uno-env train-rllib``: build the RLlib algorithm from the config and train it; returns the exit status."""
    try:
        cfg = load_rllib_config(args.config, args.overrides, **{
            "name": args.name, "seed": args.seed, "stop.iterations": args.iterations,
            "resources.num_env_runners": args.num_env_runners,
            "resources.num_envs_per_env_runner": args.num_envs_per_env_runner,
            "resources.num_learners": args.num_learners, "ray.address": args.address,
        })
    except ConfigError as exc:
        print(f"uno-env train-rllib: config error: {exc}", file=sys.stderr)
        return 2
    _init_ray(cfg)
    if args.measure_sampling:
        print(json.dumps(measure_sampling(cfg, args.measure_sampling)))
        return 0
    run_dir = Path(cfg.runs_dir) / cfg.name
    summary = train(cfg, run_dir, restore=args.restore)
    print(json.dumps({k: summary.get(k) for k in ("iteration", "env_steps_lifetime", "final_checkpoint")}))
    return 0
