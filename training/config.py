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

Keys not given keep the schema's defaults.  ``--set section.key=value`` overrides one key (the value is read as
YAML, so ``--set ppo.learning_rate=1e-4`` and ``--set env.rules={stacking: true}`` work).

Configs ship inside the package (``uno_env.configs``, the repository's ``configs/`` folder mapped into it), so
``--config classic_ppo`` names ``configs/train/classic_ppo.yaml`` wherever uno-env is installed.

The schema (the dataclasses) is :mod:`uno_env.training.config_schema`, the checks
:mod:`uno_env.training.config_checks`; this module reads the files and re-exports both modules' public names.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Mapping
from importlib import resources
from typing import Any, cast

import yaml

from uno_env.yaml_io import YAMLLimitError, load_yaml, load_yaml_file

from .config_checks import build, check_writable_dir, validate_distill, validate_rllib, validate_train
from .config_schema import (
    SEED_MAX,
    ConfigError,
    DistillConfig,
    DistillEvalConfig,
    DistillFitConfig,
    DistillLabelConfig,
    EnvConfig,
    EvalConfig,
    GameConfig,
    OpponentConfig,
    PolicyConfig,
    PoolConfig,
    PPOConfig,
    RllibEvalConfig,
    RllibModuleConfig,
    RllibOpponentConfig,
    RllibPPOConfig,
    RllibRayConfig,
    RllibResourcesConfig,
    RllibStopConfig,
    RllibTrainConfig,
    TrainConfig,
)

__all__ = ["ConfigError", "TrainConfig", "EnvConfig", "GameConfig", "PolicyConfig", "PPOConfig", "PoolConfig",
           "OpponentConfig", "EvalConfig", "RllibTrainConfig", "load_config", "load_rllib_config",
           "parse_overrides", "config_from_dict", "config_to_dict", "resolve_config", "packaged_configs",
           "SEED_MAX", "DistillConfig", "DistillLabelConfig", "DistillFitConfig", "DistillEvalConfig",
           "RllibResourcesConfig", "RllibModuleConfig", "RllibPPOConfig", "RllibOpponentConfig", "RllibEvalConfig",
           "RllibStopConfig", "RllibRayConfig", "check_writable_dir", "read_yaml", "apply_overrides",
           "rllib_config_from_dict", "distill_config_from_dict", "load_distill_config"]


def _config_from(cls: type, check: Any, what: str, data: Mapping[str, Any], validate: bool) -> Any:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{what} must be a mapping of keys; got {type(data).__name__}")
    cfg = build(cls, data)
    if validate:
        check(cfg)
    return cfg


def config_from_dict(data: Mapping[str, Any], validate: bool = True) -> TrainConfig:
    """A :class:`TrainConfig` from plain data (a parsed YAML file); ConfigError names a bad key or value."""
    return cast(TrainConfig, _config_from(TrainConfig, validate_train, "a training config", data, validate))


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
    try:
        data = load_yaml_file(path, "config file")
    except ValueError as e:  # an InputFileError naming the file: unreadable, not a file, too large, bad YAML
        raise ConfigError(str(e)) from None
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
    return cast(RllibTrainConfig, _config_from(RllibTrainConfig, validate_rllib, "a training config", data, validate))


def load_rllib_config(path: str | os.PathLike | None, overrides: list[str] | None = None,
                      **top: Any) -> RllibTrainConfig:
    """As :func:`load_config` for ``uno-env train-rllib``; ``top`` keys may be dotted (``stop.iterations``)."""
    data = read_yaml(path) if path is not None else {}
    data = apply_overrides(data, parse_overrides(overrides))
    for dotted, v in top.items():
        if v is not None:
            data = apply_overrides(data, [(dotted.split("."), v)])
    return rllib_config_from_dict(data)



def distill_config_from_dict(data: Mapping[str, Any], validate: bool = True) -> DistillConfig:
    """A :class:`DistillConfig` from plain data (a parsed YAML file); ConfigError names a bad key or value."""
    return cast(DistillConfig, _config_from(DistillConfig, validate_distill, "a distillation config", data,
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
