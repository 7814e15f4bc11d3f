"""The checks of a training config: every key's type and range as the schema gives them (:func:`build`), then the
checks across keys and against the game's rules of each trainer's config (:func:`validate_train`,
:func:`validate_rllib`, :func:`validate_distill`), before any training starts.

Every error is a :class:`~uno_env.training.config_schema.ConfigError` that names the key (and the section it is in),
what is allowed and the value given.
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
from typing import Any, Literal, Union

from uno_env.agents.registry import UnknownAgentError, available_agents, load_agent
from uno_env.agents.shipped import RENAMED_AGENTS
from uno_env.config import make_rules
from uno_env.core.game import Game

from .algorithms import ALGORITHMS
from .config_schema import (
    MAX_DEPTH,
    MAX_ENVS,
    MAX_GYM_ENVS,
    MAX_NAME_BYTES,
    MAX_ROLLOUT,
    MAX_SUBPROC_ENVS,
    MAX_WIDTH,
    ConfigError,
    DistillConfig,
    DistillEvalConfig,
    EvalConfig,
    GameConfig,
    RllibTrainConfig,
    TrainConfig,
)

__all__ = ["build", "validate_train", "validate_rllib", "validate_distill", "check_writable_dir"]

_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")
_DEVICES = "auto, cpu, cuda, cuda:N, mps"


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
        return build(tp, value, key + ".")
    if origin is Literal:
        if any(type(value) is type(a) and value == a for a in typing.get_args(tp)):
            return value
        raise ConfigError(f"config key {key!r}: expected one of {_type_name(tp)}, got {_show(value)}")
    if origin in (Union, types.UnionType):
        return _check_union(key, tp, value)
    if origin is list:
        return _check_list(key, tp, value)
    if origin is dict or tp is dict:
        return _check_dict(key, tp, value)
    if tp is Any:
        return value
    scalar = _SCALARS.get(tp)
    if scalar is None:
        raise TypeError(f"config key {key!r}: unsupported annotation {tp!r}")  # a bug in the schema
    out = scalar(value)
    if out is _WRONG:
        raise _wrong_type(key, tp, value)
    if tp is float and not math.isfinite(out):  # YAML's .nan / .inf; nothing downstream copes with them
        raise ConfigError(f"config key {key!r}: must be a finite number, got {_show(value)}")
    return out


def _check_union(key: str, tp: Any, value: Any) -> Any:
    for a in typing.get_args(tp):
        try:
            return _check(key, a, value)
        except ConfigError:
            continue
    raise _wrong_type(key, tp, value)


def _check_list(key: str, tp: Any, value: Any) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise _wrong_type(key, tp, value)
    (item,) = typing.get_args(tp) or (Any,)
    return [_check(f"{key}[{i}]", item, v) for i, v in enumerate(value)]


def _check_dict(key: str, tp: Any, value: Any) -> dict[Any, Any]:
    if not isinstance(value, Mapping):
        raise _wrong_type(key, tp, value)
    kt, vt = typing.get_args(tp) or (Any, Any)
    return {_check(f"{key} (a key)", kt, k): _check(f"{key}.{k}", vt, v) for k, v in value.items()}


#: what a scalar converter returns for a value of the wrong type
_WRONG = object()


def _as_none(value: Any) -> Any:
    return None if value is None else _WRONG


def _as_bool(value: Any) -> Any:
    return value if isinstance(value, bool) else _WRONG


def _as_int(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
        return int(value)  # 1e6 in YAML
    return _WRONG


def _as_float(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):  # YAML 1.1 reads 3e-4 (no dot) as a string
        try:
            return float(value)
        except ValueError:
            pass
    return _WRONG


def _as_str(value: Any) -> Any:
    return value if isinstance(value, str) else _WRONG


#: scalar annotation -> converter of a value to it (or ``_WRONG``)
_SCALARS: dict[Any, Any] = {type(None): _as_none, bool: _as_bool, int: _as_int, float: _as_float, str: _as_str}


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


def build(cls: type, data: Mapping[str, Any], prefix: str = "") -> Any:
    """An instance of the schema section ``cls`` from ``data``, every key known and of its type and range (keys not
    given keep their defaults); ``prefix`` is the section's path in error messages (``"ppo."``)."""
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


def validate_train(cfg: TrainConfig) -> None:
    """Checks across keys and against the game's rules, before anything heavy happens."""
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
    _check_sizes(cfg)
    if sum(cfg.opponents.baselines.values()) <= 0:
        raise ConfigError("config key 'opponents.baselines': the weights add up to 0")
    opp = cfg.opponents
    if opp.pfsp != "linear" and opp.sampling != "win_rate":
        raise ConfigError(f"config key 'opponents.pfsp': {opp.pfsp!r} weighs the learner's win rates, which only "
                          f"'opponents.sampling: win_rate' keeps; set it, or leave opponents.pfsp at 'linear'")
    if cfg.algorithm == "batched_ppo":
        if cfg.env.vec_env != "batched":
            raise ConfigError("config key 'env.vec_env': algorithm 'batched_ppo' runs the batched simulator; set "
                              "'batched'")
    else:
        _check_without_batched_ppo(cfg)


def _check_sizes(cfg: TrainConfig) -> None:
    """The environments and the rollout within bounds, and a batch no larger than a rollout."""
    env = cfg.env
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


def _check_without_batched_ppo(cfg: TrainConfig) -> None:
    """The options only ``batched_ppo`` has are off, and the batched simulator holds one baseline and no self-play."""
    env, opp = cfg.env, cfg.opponents
    if cfg.ppo.kickstart_coef > 0:
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


def validate_rllib(cfg: RllibTrainConfig) -> None:
    """Checks across keys and against the game's rules of an RLlib run, before Ray starts."""
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
    _check_known_baselines("opponents.baselines", list(opp.baselines))
    _check_known_baselines("evaluation.opponents", cfg.evaluation.opponents)
    rules = cfg.env.rules
    if isinstance(rules, str) and rules.endswith((".yaml", ".yml")) and not os.path.exists(rules):
        raise ConfigError(f"config key 'env.rules': rules file {rules!r} does not exist")
    _check_agents(cfg, _table_rules(cfg.env))
    check_writable_dir("runs_dir", cfg.runs_dir)


def _table_rules(env: GameConfig) -> Any:
    """The rules (a ``RuleConfig``) of the config's ``env`` section, or a ConfigError naming ``env.rules``."""
    try:
        return make_rules(env.game, env.num_players, env.rules)
    except ConfigError:
        raise
    except (ValueError, TypeError) as e:
        raise ConfigError(f"config key 'env.rules' (game {env.game!r}, {env.num_players} players): {e}") from None


def _check_known_baselines(key: str, names: list[str]) -> None:
    """Every name is a baseline of the agents package (``human`` plays no training game)."""
    known = [n for n in available_agents() if n != "human"]
    for n in names:
        if n in RENAMED_AGENTS:
            continue  # an old name still plays (and warns) for one release
        if n not in known:
            raise ConfigError(f"config key {key!r}: unknown baseline {n!r}; known: {', '.join(known)}")


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



def validate_distill(cfg: DistillConfig) -> None:
    """Checks across keys, against the game's rules and of the teacher, before any game is labelled."""
    _check_name(cfg.name)
    env = cfg.env
    rules = _table_rules(env)
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
    _check_known_baselines("evaluation.opponents", cfg.evaluation.opponents)

