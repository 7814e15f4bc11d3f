"""Run directories, resumable checkpoints and the resume logic of ``uno-env train``.

``runs/<name>/checkpoints/step_<N>/`` holds ``model.zip`` (the trainer's own save: weights + optimizer),
``state.json`` (step, config, opponent pool, evaluation history, schedule, Python and numpy RNG states) and
``torch_rng.pt``.  A checkpoint is written to a temporary directory and renamed, and counts only once its
``COMPLETE`` mark exists, so a run killed at any moment resumes from the last whole one.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import shlex
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from uno_env._files import MAX_CHECKPOINT_FILE_BYTES, MAX_RUN_STATE_BYTES, check_dir, check_file, read_bytes
from uno_env.yaml_io import short_repr

from .config import (
    ConfigError,
    TrainConfig,
    apply_overrides,
    check_writable_dir,
    config_from_dict,
    config_to_dict,
    packaged_configs,
    parse_overrides,
    read_yaml,
    resolve_config,
)

__all__ = ["CHECKPOINT_DIR", "STATE_FILE", "COMPLETE_MARK", "COMMAND_FILE", "TrainError", "prepare_run",
           "latest_checkpoint", "save_checkpoint", "read_json", "write_json", "rng_states", "restore_rng_states",
           "check_state", "load_checkpoint_state", "run_command", "save_command"]

CHECKPOINT_DIR = "checkpoints"
STATE_FILE = "state.json"
COMPLETE_MARK = "COMPLETE"
# {"command": the command line that made the run}, kept so that a resumed run's report and policy still name it,
# with the options the resume changed
COMMAND_FILE = "command.json"


class TrainError(RuntimeError):
    """A run that cannot start or continue (missing checkpoint, run directory in the way, missing extra)."""


# sections and keys that the saved model, its optimizer and the environments depend on
_FIXED_ON_RESUME = ("algorithm", "seed", "env", "policy", "ppo")


def add_run_arguments(parser: argparse.ArgumentParser, *, config_help: str, resume_help: str,
                      set_example: str) -> None:
    """The options of a command that works in a run directory (``uno-env train``, ``uno-env distill``): ``--config``,
    ``--resume``, ``--name``, ``--run-dir``, ``--set``, ``--overwrite``, ``--no-progress``."""
    parser.add_argument("--config", metavar="NAME_OR_YAML", help=config_help)
    parser.add_argument("--resume", action="store_true", help=resume_help)
    parser.add_argument("--name", help="run name (default: the config's 'name'); the run lives in runs_dir/NAME")
    parser.add_argument("--run-dir", metavar="DIR", help="run directory (default: runs_dir/name)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help=f"override a config key, e.g. {set_example} (repeatable; values are read as YAML)")
    parser.add_argument("--overwrite", action="store_true",
                        help="delete an existing run directory of the same name and start again")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_command(args: argparse.Namespace, run_dir: str, tool: str) -> str:
    """The command line that makes the run in one go: ``uno-env TOOL``, ``--config`` and every ``--set``
    (``--total-steps`` as ``--set total_steps``; ``--name`` and ``--run-dir`` only place the run).  A resumed run
    starts from the command that began it (:func:`save_command` keeps it in the run directory) and adds the options
    given now, a key given again keeping its place with its latest value."""
    config, sets = _config_label(args.config, tool), {}
    if args.resume:
        try:
            saved = shlex.split(read_json(os.path.join(run_dir, COMMAND_FILE))["command"])
            pairs = list(zip(saved[2::2], saved[3::2]))
            if (saved[:2] == ["uno-env", tool] and len(saved) % 2 == 0
                    and all(k in ("--config", "--set") for k, _ in pairs)):
                config = dict(pairs).get("--config")
                sets = dict(v.split("=", 1) for k, v in pairs if k == "--set")
        except (TrainError, KeyError, TypeError, ValueError):
            pass  # a run begun before the file existed, or a damaged file: its --config and the options given now
    news = list(args.overrides or [])
    if getattr(args, "total_steps", None) is not None:
        news.append(f"total_steps={args.total_steps}")
    for item in news:
        key, value = item.split("=", 1)  # parse_overrides has checked the form
        sets[key.strip()] = value
    line = f"uno-env {tool}" + (f" --config {shlex.quote(config)}" if config is not None else "")
    return line + "".join(f" --set {shlex.quote(f'{k}={v}')}" for k, v in sets.items())


def save_command(run_dir: str, command: str) -> None:
    """Keep the run's command (:func:`run_command`) in ``run_dir``, for a resume to start from."""
    write_json(os.path.join(run_dir, COMMAND_FILE), {"command": command})


def _config_label(spec: str | None, tool: str) -> str | None:
    """How the command names its config: a packaged config by its name, also when given as the path of a file with
    that config's text (``configs/<folder>/NAME.yaml`` in a checkout), any other file by its path as given."""
    if spec is None:
        return None
    folder = "distill" if tool == "distill" else "train"
    path = resolve_config(spec, folder)
    name = Path(path).stem
    if name in packaged_configs(folder):
        packaged = resources.files("uno_env.configs").joinpath(folder, name + ".yaml")
        if packaged.read_bytes() == Path(path).read_bytes():
            return name
    return os.fspath(spec)


def prepare_run(args: argparse.Namespace) -> tuple[TrainConfig, str, str | None]:
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
    data = read_yaml(args.config) if args.config is not None else {}
    data = apply_overrides(data, parse_overrides(overrides))
    data.update(top)
    cfg = config_from_dict(data)
    if getattr(args, "run_dir", None):
        check_writable_dir("--run-dir", args.run_dir)
    run_dir = os.path.abspath(args.run_dir or os.path.join(cfg.runs_dir, cfg.name))
    checkpoint = None
    if getattr(args, "resume", False):
        checkpoint = latest_checkpoint(run_dir)
        if checkpoint is None:
            if not os.path.exists(run_dir):
                raise TrainError(f"--resume: no run at {run_dir} (check --config/--name/--run-dir)")
            try:
                check_dir(run_dir, "run directory")
            except ValueError as e:  # a file, a FIFO ... where the run's directory should be
                raise TrainError(f"--resume: {e}") from None
            print(f"--resume: {run_dir} has no complete checkpoint yet; starting the run from the beginning")
        else:
            # the run's own config, with this command's overrides on top
            state_path = os.path.join(checkpoint, STATE_FILE)
            saved = load_checkpoint_state(checkpoint)["config"]
            saved.setdefault("algorithm", "maskable_ppo")  # checkpoints from before the key existed
            data = apply_overrides(saved, parse_overrides(overrides))
            data.update(top)
            if "name" not in top and "name" in saved:
                data["name"] = saved["name"]
            try:
                cfg = config_from_dict(data)
            except ConfigError as e:
                raise ConfigError(f"--resume: the config saved in {state_path} (with this command's options): "
                                  f"{e}") from None
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


def _changed_fixed_keys(old: dict, new: dict, prefix: str = "") -> list[str]:
    out = []
    for key in _FIXED_ON_RESUME if not prefix else sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict) and key != "rules":
            out += _changed_fixed_keys(a, b, prefix + key + ".")
        elif a != b:
            out.append(prefix + key)
    return out


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


def save_checkpoint(run_dir: str, save_model, state: dict, keep: int) -> str:
    """Write ``checkpoints/step_<N>`` atomically (temp dir, then rename) and prune old ones.

    ``save_model(path)`` writes the trainer's model (weights and optimizer) to ``path``.
    """
    import torch  # torch (the train extra) only where a checkpoint is written or read: the rest needs no torch

    root = os.path.join(run_dir, CHECKPOINT_DIR)
    os.makedirs(root, exist_ok=True)
    step = int(state["step"])
    final = os.path.join(root, f"step_{step:012d}")
    tmp = os.path.join(root, f".tmp_step_{step:012d}_{os.getpid()}")
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    os.makedirs(tmp)
    save_model(os.path.join(tmp, "model.zip"))
    torch.save(torch.get_rng_state(), os.path.join(tmp, "torch_rng.pt"))
    write_json(os.path.join(tmp, STATE_FILE), state)
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


def load_checkpoint_state(checkpoint: str) -> dict:
    """The checkpoint's ``state.json``, checked (:func:`check_state`); TrainError naming the file otherwise.  Every
    file of the checkpoint must be a regular file of a sane size (a resume reads them all)."""
    try:
        for name in sorted(os.listdir(checkpoint)):
            check_file(os.path.join(checkpoint, name), "checkpoint file", MAX_CHECKPOINT_FILE_BYTES)
    except (OSError, ValueError) as e:  # ValueError: an InputFileError naming the file
        raise TrainError(f"{e}; the checkpoint is damaged: delete {checkpoint} to resume from an earlier one, or "
                         f"start the run over with --overwrite") from None
    path = os.path.join(checkpoint, STATE_FILE)
    state = read_json(path)
    check_state(state, path)
    return state


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int_list(v: Any, n: int) -> bool:
    return isinstance(v, list) and len(v) == n and all(_is_int(x) for x in v)


# key -> (what it must be, check): what a resume reads from a checkpoint's state.json
_STATE_KEYS: dict[str, tuple[str, Any]] = {
    "step": ("an integer >= 0", lambda v: _is_int(v) and v >= 0),
    "config": ("a mapping (the run's config)", lambda v: isinstance(v, dict)),
    "pool": ("a mapping with 'snapshots' (a list of {name, path, step}), 'selfplay_active' and 'rng'",
             lambda v: isinstance(v, dict) and isinstance(v.get("snapshots"), list)
             and all(isinstance(s, dict) and isinstance(s.get("path"), str) and isinstance(s.get("name"), str)
                     and _is_int(s.get("step")) for s in v["snapshots"])
             and isinstance(v.get("selfplay_active"), bool) and isinstance(v.get("rng"), dict)
             and isinstance(v.get("results", {}), dict)),
    "eval_history": ("a list", lambda v: isinstance(v, list)),
    "next_snapshot": ("an integer or null", lambda v: v is None or _is_int(v)),
    "next_eval": ("an integer or null", lambda v: v is None or _is_int(v)),
    "next_checkpoint": ("an integer", _is_int),
    "wall_time": ("a number of seconds", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)),
    "rng": ("the Python and numpy generator states ({python: [version, 625 integers, gauss], numpy: ['MT19937', "
            "624 integers, pos, has_gauss, cached_gaussian]})",
            lambda v: isinstance(v, dict)
            and isinstance(v.get("python"), list) and len(v["python"]) == 3 and _int_list(v["python"][1], 625)
            and isinstance(v.get("numpy"), list) and len(v["numpy"]) == 5 and _int_list(v["numpy"][1], 624)),
}


def check_state(state: Any, path: str) -> None:
    """Raise a TrainError naming ``path`` and the key unless ``state`` has every key a resume reads, each of the
    right kind (a damaged or hand-edited state.json would otherwise fail deep inside the resume)."""
    fix = (f"the checkpoint is damaged: delete {os.path.dirname(path) or '.'} to resume from an earlier one, or "
           f"start the run over with --overwrite")
    if not isinstance(state, dict):
        raise TrainError(f"{path}: expected a JSON object, got {type(state).__name__}; {fix}")
    for key, (what, ok) in _STATE_KEYS.items():
        if key not in state:
            raise TrainError(f"{path}: key {key!r} is missing; {fix}")
        if not ok(state[key]):
            raise TrainError(f"{path}: key {key!r} must be {what}; {fix}")
    if "sessions" in state and not _is_int(state["sessions"]):
        raise TrainError(f"{path}: key 'sessions' must be an integer; {fix}")


def read_json(path: str) -> dict:
    """The JSON document at ``path``; TrainError if it cannot be read or parsed."""
    try:
        text = read_bytes(path, "run file", MAX_RUN_STATE_BYTES)
    except ValueError as e:  # an InputFileError: not a regular file, too large, unreadable; it names the file
        raise TrainError(str(e)) from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise TrainError(f"cannot read {path}: {short_repr(str(e))}") from None


def write_json(path: str, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` atomically (a temporary file, then a rename)."""
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


def rng_states() -> dict:
    """The Python and numpy global PRNG states as plain data (saved with a checkpoint)."""
    st = random.getstate()
    s = np.random.get_state()
    assert isinstance(s, tuple)  # legacy=True (the default): the tuple form, which restore_rng_states reads
    return {"python": [st[0], list(st[1]), st[2]],
            "numpy": [s[0], s[1].tolist(), int(s[2]), int(s[3]), float(s[4])]}


def restore_rng_states(d: dict, checkpoint: str) -> None:
    """Restore the PRNG states saved by :func:`rng_states`, and torch's from ``checkpoint``."""
    import torch

    try:
        py = d["python"]
        random.setstate((py[0], tuple(py[1]), py[2]))
        n = d["numpy"]
        np.random.set_state((n[0], np.array(n[1], dtype=np.uint32), n[2], n[3], n[4]))
    except (KeyError, IndexError, TypeError, ValueError, OverflowError) as e:
        raise TrainError(f"{os.path.join(checkpoint, STATE_FILE)}: key 'rng': not a generator state ({e})") from None
    path = os.path.join(checkpoint, "torch_rng.pt")
    if os.path.exists(path):
        try:
            torch.set_rng_state(torch.load(path, weights_only=True))
        except (OSError, RuntimeError, TypeError, ValueError, pickle.UnpicklingError) as e:
            reason = (str(e).splitlines() or [type(e).__name__])[0]
            raise TrainError(f"{path}: not a torch generator state ({reason})") from None
