"""``uno-env distill``: teach the shipped policies' network where a search improves on the heuristic.

    uno-env distill --config classic4_distill            # runs/classic4_distill/: labels, policy, report
    uno-env distill --config classic4_distill --resume   # finish a stopped run; the label files written are kept
    uno-env distill --config classic4_distill --resume --set labels.games=38400  # label more games, fit again

Search distillation in three steps, each readable on its own below:

1. **Label** (:func:`label_games`). The heuristic plays every seat of ``labels.games`` games. At every decision
   with a choice the teacher (the flat search, ``ismcts``) is asked as well, and the observation, the legal mask,
   the heuristic's choice, the teacher's choice and the teacher's per-action win rates and sample counts are kept.
   Game ``i`` is dealt with the env seed ``1_000_000 + 10**8 * seed + i`` and its search seeded with
   ``10_000 + 10**8 * seed + i``, so the labels depend on neither ``labels.workers`` nor on how often the run was
   stopped: a file of ``labels.chunk`` games is written whole or not at all, and ``--resume`` labels only the rest.
2. **Fit** (:func:`fit_policy`). The shipped policies' network (the heuristic's choice as an input and as a bonus of
   1 on its logit) is fitted to the labels: ``fit.target: advantage`` regresses each sampled action's win rate
   minus the heuristic choice's (weighted by its samples) and scales the output so that the policy leaves the
   heuristic's choice only where the predicted gain is above ``fit.margin``; ``choice`` is cross-entropy to the
   teacher's choice.  A share of the decisions (``fit.validation``) is held out to report the fit on.
3. **Evaluate** (:func:`evaluate_policy`): the policy against each baseline (one seat against the rest, as
   ``uno-env train`` reports), and at 3 or more players head to head against the heuristic (two blocks of seats),
   by default as a duplicate arena (every deal played with each seating, intervals over deals).

Run directory ``runs/<name>/``::

    config.yaml              the resolved config
    command.json             the command that makes the run in one go (--config and every --set, a resume's too):
                             the policy's ``trained_by`` (training.checkpoints.run_command)
    labels/labels_<N>.npz    labelled decisions of games N to N + chunk - 1 (pickle-free arrays)
    labels/cpu_seconds.json  the CPU seconds each label file took (the report sums them over all commands)
    tb/distill/              TensorBoard log of the fit (training loss per batch, held-out figures per epoch)
    policy.npz policy.json   the policy, pickle-free: what `uno-env evaluate` / `play` load
    report.md report.json    labels, fit and arena

Why distil rather than train with PPO at 4 players: there one decision's effect on the result is diluted among four
seats, and PPO with the heuristic as advice ends level with it, while the flat search beats it
(``agents/policies/training/README.md``, "Distilling the search at 4 players").
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import multiprocessing
import os
import shutil
import sys
import time
import tokenize
from collections.abc import Iterator
from contextlib import contextmanager
from statistics import NormalDist
from typing import Any

import numpy as np
import yaml

from uno_env._files import MAX_CHECKPOINT_FILE_BYTES, MAX_YAML_BYTES, open_regular, read_text
from uno_env._threads import available_cpus
from uno_env.agents.policy import save_policy_files
from uno_env.agents.registry import load_agent
from uno_env.config import make_rules
from uno_env.core.game import Game

from .arena import against_baselines, run_arena
from .checkpoints import add_run_arguments, run_command, save_command
from .config import (
    ConfigError,
    DistillConfig,
    apply_overrides,
    check_writable_dir,
    distill_config_from_dict,
    packaged_configs,
    parse_overrides,
    read_yaml,
)

LABEL_KEYS = ("obs", "mask", "heur", "search", "q", "n")
DEAL_SEED_BASE, SEARCH_SEED_BASE, SEED_STRIDE = 1_000_000, 10_000, 10**8
CONFIG_FILE, LABELS_DIR, CPU_FILE = "config.yaml", "labels", "cpu_seconds.json"
HELD_OUT_SLICE = 65536  # held-out decisions per forward pass of the fit's report (their sum is the same figure)
# what the labels depend on: a resumed run may not change them (labels.games may grow, the fit and arena may change)
FIXED_ON_RESUME = ("seed", "env", "labels.teacher", "labels.chunk")


class DistillError(RuntimeError):
    """A run directory that cannot be used as asked (exists without --resume, missing with it, ...)."""


# ---------------------------------------------------------------------------------------------- 1. label
def _label_file(labels_dir: str, first: int) -> str:
    return os.path.join(labels_dir, f"labels_{first:07d}.npz")


def _label_chunk(job: tuple[str, int, Any, str, int, int, int, str]) -> tuple[str, int, float]:
    """Label games ``first`` to ``first + games - 1`` into one file; returns its path, the decisions in it and the
    CPU seconds the labelling took."""
    cpu0 = time.process_time()
    game, players, rules, teacher, seed, first, games, path = job
    env = importlib.import_module(f"uno_env.{game}_v0").env(num_players=players, rules=rules)
    env.reset(seed=first)
    u = env.unwrapped
    search = load_agent(teacher, u.game, seed=0)
    heuristic = load_agent("heuristic", u.game, seed=0)
    cols: dict[str, list] = {k: [] for k in LABEL_KEYS}
    for i in range(first, first + games):
        env.reset(seed=DEAL_SEED_BASE + SEED_STRIDE * seed + i)
        search.reset(seed=SEARCH_SEED_BASE + SEED_STRIDE * seed + i)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            h = int(heuristic.act(obs["observation"], mask))
            if mask.sum() > 1:
                s = int(search.act_from_state(u.game_view.row))
                q = np.full(mask.shape[0], -1.0, np.float32)
                n = np.zeros(mask.shape[0], np.int16)
                for a, v in search.last_search["win_rate"].items():
                    q[a] = v
                for a, v in search.last_search["visits"].items():
                    n[a] = v
                for k, v in zip(LABEL_KEYS, (obs["observation"], mask.astype(bool), h, s, q, n)):
                    cols[k].append(np.array(v, copy=True))
            env.step(h)  # the heuristic's game: the labels describe the states it reaches
    arrays: dict[str, Any] = {k: np.array(v) for k, v in cols.items()}
    tmp = path + ".partial"
    with open(tmp, "wb") as fh:  # a file object: savez would append .npz to the name
        np.savez_compressed(fh, **arrays)
    os.replace(tmp, path)  # whole or absent: a stopped run leaves no half file for --resume to trust
    return path, len(arrays["heur"]), time.process_time() - cpu0


def _read_cpu_seconds(labels_dir: str) -> dict[str, float]:
    """The labelling CPU seconds of each label file, as earlier commands of the run recorded them ({} if none)."""
    try:  # through the regular-file reader: a pipe or device planted in a run directory is refused, not waited on
        data = json.loads(read_text(os.path.join(labels_dir, CPU_FILE), "labelling times", MAX_YAML_BYTES))
    except ValueError:  # missing, not a regular file, too large, not JSON
        return {}
    if not isinstance(data, dict):
        return {}
    # an entry that is not a plain count of seconds is left out: the report then counts its file as not timed
    return {k: float(v) for k, v in data.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < float("inf")}


def _write_cpu_seconds(labels_dir: str, seconds: dict[str, float]) -> None:
    path = os.path.join(labels_dir, CPU_FILE)
    with open(path + ".partial", "w", encoding="utf-8") as fh:
        json.dump(dict(sorted(seconds.items())), fh, indent=0)
    os.replace(path + ".partial", path)


#: what reading a label file that is not whole, not a regular file or crafted can raise (numpy parses a .npy header
#: with the tokenizer, which raises TokenError or SyntaxError on a header that is not a dict literal)
_UNREADABLE = (OSError, ValueError, EOFError, KeyError, IndexError, tokenize.TokenError, SyntaxError)


@contextmanager
def _label_arrays(path: str) -> Iterator[Any]:
    """A label file's arrays (numpy's lazy NpzFile), opened only if it is a regular file of a sane size."""
    with open_regular(path, "label file", MAX_CHECKPOINT_FILE_BYTES) as fh, np.load(fh, allow_pickle=False) as z:
        yield z


def _read_labels(path: str) -> dict[str, np.ndarray] | None:
    """The arrays of a label file, or None when it is not a whole one (then it is labelled again)."""
    try:
        with _label_arrays(path) as z:
            if set(z.files) != set(LABEL_KEYS):
                return None
            d = {k: z[k] for k in LABEL_KEYS}
    except _UNREADABLE:
        return None
    rows = {len(v) for v in d.values()}
    return d if len(rows) == 1 else None


def label_games(cfg: DistillConfig, labels_dir: str, progress: bool = False) -> dict[str, Any]:
    """Label ``cfg.labels.games`` games into ``labels_dir`` (files already there are kept); returns a summary."""
    os.makedirs(labels_dir, exist_ok=True)
    lab, env = cfg.labels, cfg.env
    rules = make_rules(env.game, env.num_players, env.rules)
    chunks = [(first, min(lab.chunk, lab.games - first)) for first in range(0, lab.games, lab.chunk)]
    todo = []
    for first, games in chunks:
        path = _label_file(labels_dir, first)
        if not (os.path.exists(path) and _read_labels(path) is not None):
            todo.append((env.game, env.num_players, rules, lab.teacher, cfg.seed, first, games, path))
    t0 = time.time()
    # kept beside the files, so that a run stopped and resumed over several commands still reports what all its
    # labels cost (a file labelled again replaces its entry)
    cpu = _read_cpu_seconds(labels_dir)

    def done(result: tuple[str, int, float]) -> None:
        cpu[os.path.basename(result[0])] = round(result[2], 2)
        _write_cpu_seconds(labels_dir, cpu)
        bar.update(1) if bar is not None else None

    bar = _bar(len(chunks), len(chunks) - len(todo), "label", progress)
    workers = min(lab.workers or available_cpus(), max(len(todo), 1))
    try:
        if workers <= 1:
            for job in todo:
                done(_label_chunk(job))
        else:
            # spawn: a forked numba/OpenMP runtime is not safe to use in the child
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                for result in pool.imap_unordered(_label_chunk, todo):
                    done(result)
    finally:
        if bar is not None:
            bar.close()
    names = [os.path.basename(_label_file(labels_dir, first)) for first, _ in chunks]
    return {"games": lab.games, "files": len(chunks), "labelled_now": len(todo),
            "seconds": round(time.time() - t0, 1), "teacher": lab.teacher,
            "cpu_seconds_all": round(sum(cpu.get(n, 0.0) for n in names), 1),
            "files_without_cpu_seconds": sum(n not in cpu for n in names)}


def _bar(total: int, done: int, desc: str, progress: bool) -> Any:
    if not progress:
        return None
    try:  # tqdm is in the train extra
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is in the train extra
        return None
    return tqdm(total=total, initial=done, unit="file", desc=desc, file=sys.stderr)


def _heuristic_sampled(n: np.ndarray, heur: np.ndarray) -> np.ndarray:
    """Per decision, whether the teacher sampled the heuristic's choice: the decisions a fit learns from."""
    return n[np.arange(len(heur)), heur] > 0


def _label_rows(path: str, sampled_only: bool = False) -> int | None:
    """How many decisions a label file holds (reading its smallest arrays only), or None when it is not whole; with
    ``sampled_only``, how many of them the teacher sampled the heuristic's choice at (the ones a fit keeps)."""
    try:
        with _label_arrays(path) as z:
            if set(z.files) != set(LABEL_KEYS):
                return None
            if not sampled_only:
                return len(z["heur"])
            heur, n = z["heur"], z["n"]
            return int(np.count_nonzero(_heuristic_sampled(n, heur))) if len(heur) else 0
    except _UNREADABLE:
        return None


def load_labels(cfg: DistillConfig, labels_dir: str) -> dict[str, np.ndarray]:
    """The labels of the run's ``labels.games`` games, in game order, that the fit reads.

    Every array is allocated once at its full length and filled file by file: joining the files' arrays at the end
    held every label twice, and the labels are most of a fit's memory (1.7 million decisions in 76,800 games of
    4-player UNO Dice). Only what the fit reads is kept. The choice fit reads neither the per-action win rates
    ``q`` nor the sample counts ``n``, which it needs only to leave out the decisions where the teacher did not
    sample the heuristic's choice (as :func:`fit_policy` does): those are left out here, and neither array is kept.
    The observations are written as float32 but hold small whole numbers (counts, flags, -1 for none), so they are
    kept as int8 when every value of every file is one, a quarter of their memory and the same values once the fit
    converts a batch back; a file with any other value turns them into float32 for all.
    """
    choice = cfg.fit.target == "choice"
    keys = ("obs", "mask", "heur", "search") if choice else LABEL_KEYS
    paths = [_label_file(labels_dir, first) for first in range(0, cfg.labels.games, cfg.labels.chunk)]

    def missing(path: str) -> DistillError:
        return DistillError(f"label file {path} is missing or damaged; run again with --resume to label it")

    rows = []
    for path in paths:
        n = _label_rows(path, sampled_only=choice)
        if n is None:
            raise missing(path)
        rows.append(n)
    out: dict[str, np.ndarray] = {}
    start = 0
    for path, n in zip(paths, rows):
        d = _read_labels(path)
        if d is None:
            raise missing(path)
        if choice and len(d["heur"]):  # (a file with no decision may hold arrays of no shape: nothing to leave out)
            sampled = _heuristic_sampled(d["n"], d["heur"])
            d = {k: d[k][sampled] for k in keys}
        if len(d["heur"]) != n:
            raise missing(path)
        if not out:
            out = {k: np.empty((sum(rows), *d[k].shape[1:]), np.int8 if k == "obs" else d[k].dtype) for k in keys}
        if out["obs"].dtype == np.int8 and not _whole_int8(d["obs"]):
            out["obs"] = out["obs"].astype(d["obs"].dtype)  # the rows so far, exactly; from here the files' own type
        for k in keys:
            out[k][start:start + n] = d[k]
        start += n
    return out


def _whole_int8(values: np.ndarray) -> bool:
    """Whether every value is a whole number an int8 holds exactly."""
    return bool(np.all((values >= -128) & (values <= 127) & (values == np.round(values))))


# ---------------------------------------------------------------------------------------------- 2. fit
def fit_policy(cfg: DistillConfig, labels: dict[str, np.ndarray], out_path: str,
               log_dir: str | None = None, command: str | None = None) -> dict[str, Any]:
    """Fit the network to ``labels`` and save the policy at ``out_path`` (``.npz`` and ``.json``); returns the
    fit's figures (held-out loss per epoch and, for the advantage target, how often and by how much the teacher
    expects the policy's departures from the heuristic to gain).  With ``log_dir`` (and ``cfg.tensorboard``) the
    training loss of every batch and the held-out figures of every epoch go to a TensorBoard log there, against
    the labelled decisions trained on so far."""
    from .distill_fit import fit_network  # torch: imported only when a policy is fitted

    f = cfg.fit
    fit_seed = cfg.seed if f.seed is None else f.seed
    data = _fit_data(labels, f.target == "choice")
    order = np.random.default_rng(fit_seed).permutation(len(data["heur"]))
    cut = max(1, min(len(order) - 1, int(round(len(order) * (1.0 - f.validation))))) if f.validation else len(order)
    train_ix, val_ix = order[:cut], (order[cut:] if f.validation else order)
    rules = make_rules(cfg.env.game, cfg.env.num_players, cfg.env.rules)
    game = Game(rules)
    weights, epochs, seconds = fit_network(f, game, data, train_ix, val_ix, fit_seed, cfg.torch_threads,
                                           HELD_OUT_SLICE, log_dir if cfg.tensorboard else None)
    choice = f.target == "choice"
    meta = {"algorithm": "uno_env.distill", "name": cfg.name, "game": cfg.env.game, "num_players": game.num_players,
            "rules": rules.to_dict(), "obs_dim": game.obs_dim, "num_actions": game.num_actions,
            "policy": {"net_arch": list(f.net_arch), "activation": "relu", "obs_transform": "symlog",
                       "include_mask": True, "advice": "heuristic", "advice_gain": 1.0},
            "steps": 0, "seed": cfg.seed, "teacher": cfg.labels.teacher, "target": f.target,
            "margin": None if choice else f.margin, "labelled_decisions": int(len(data["heur"])),
            "trained_by": command or _bare_command(cfg)}
    save_policy_files(weights, out_path, meta)
    departs = float(np.mean(data["teacher"] != data["heur"]))
    return {"decisions": int(len(data["heur"])), "teacher_departs": departs, "train": int(len(train_ix)),
            "held_out": int(len(val_ix)) if f.validation else 0, "epochs": epochs, "seconds": round(seconds, 1)}


def _fit_data(labels: dict[str, np.ndarray], choice: bool) -> dict[str, np.ndarray]:
    """The decisions a fit learns from and its targets (``distill_fit.FIT_ARRAYS``): those where the teacher
    sampled the heuristic's choice (always, unless the search stopped early; labels without sample counts hold only
    those, as :func:`load_labels` leaves the others out for the choice fit)."""
    if not choice and not {"q", "n"} <= set(labels):
        raise DistillError("the advantage fit needs the labels' win rates and sample counts (q and n)")
    heur = labels["heur"].astype(np.int64, copy=False)
    keep = _heuristic_sampled(labels["n"], heur) if "n" in labels else np.ones(len(heur), bool)
    # the labels are most of the memory a fit takes: no copy of them where none is needed (a million decisions of
    # 4-player dice are 0.77 GB as the choice fit loads them, 1.9 GB with the advantage fit's win rates and counts)
    d = labels if keep.all() else {k: v[keep] for k, v in labels.items()}
    heur, rows = heur[keep], np.arange(int(keep.sum()))
    if len(heur) < 2:
        raise DistillError(f"{len(heur)} labelled decisions: too few to fit; label more games (labels.games)")
    adv = weight = np.zeros((0, 0), np.float32)  # the advantage target's regression targets and weights only
    if not choice:
        n = d["n"].astype(np.float32)
        adv = np.where(n > 0, d["q"] - d["q"][rows, heur][:, None], 0.0).astype(np.float32)
        weight = np.where(n > 0, np.minimum(n, n[rows, heur][:, None]), 0.0).astype(np.float32)
        weight[rows, heur] = 0.0
        del n
    return {"obs": d["obs"], "mask": d["mask"], "heur": heur, "teacher": d["search"].astype(np.int64, copy=False),
            "adv": adv, "weight": weight}


# ---------------------------------------------------------------------------------------------- 3. evaluate
def evaluate_policy(cfg: DistillConfig, policy_path: str, progress: bool = False) -> dict[str, Any]:
    """The final arena: rows against each baseline and, at 3 or more players, head to head against the heuristic."""
    ev, env = cfg.evaluation, cfg.env
    t0 = time.time()
    rows = against_baselines(policy_path, ev.opponents, env.game, env.num_players, env.rules, ev.games, ev.seed,
                             workers=ev.workers, progress=progress, confidence=ev.confidence,
                             duplicate=ev.duplicate)
    out: dict[str, Any] = {"arena": rows}
    if env.num_players > 2:
        z = NormalDist().inv_cdf(0.5 + ev.confidence / 2.0)
        # two agents: a duplicate deal is two games (at 3 or 5 players evaluation.games may be odd; the row says)
        games = ev.games - ev.games % 2 if ev.duplicate else ev.games
        res = run_arena([policy_path, "heuristic"], game=env.game, num_players=env.num_players, rules=env.rules,
                        games=games, seed=ev.seed, workers=ev.workers, progress=progress, ratings=False,
                        duplicate=ev.duplicate)
        me = res.agents[0]
        lo, hi = me.interval(z)
        out["head_to_head"] = {"opponent": "heuristic", "seats_each": env.num_players // 2, "games": me.games,
                               "wins": me.wins, "draws": me.truncated, "win_rate": me.win_rate, "ci_low": lo,
                               "ci_high": hi, "interval": "over deals" if ev.duplicate else "wilson"}
    out["seconds"] = round(time.time() - t0, 1)
    return out


# ---------------------------------------------------------------------------------------------- report
def write_report(run_dir: str, report: dict[str, Any]) -> None:
    """``report.json`` (everything) and ``report.md`` (the tables)."""
    with open(os.path.join(run_dir, "report.json"), "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2)
        fh.write("\n")
    n = report["num_players"]
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    lab, fit, fit_cfg = report["labels"], report["fit"], report["config"]["fit"]
    margin = f", margin {fit_cfg['margin']:g}" if fit_cfg["target"] == "advantage" else ""  # only that fit uses it
    epochs = "; ".join(", ".join(f"{k} {v:.4g}" for k, v in e.items()) for e in fit["epochs"])
    lines = [f"# {report['name']}: {report['game']}, {n} players, distilled from `{lab['teacher']}`", "",
             f"`{report['command']}`: {report['wall_time_seconds'] / 60:.1f} minutes for this command "
             f"(labelling {lab['seconds']:.0f} s for {lab['labelled_now']} of {lab['files']} label files, fit "
             f"{fit['seconds']:.0f} s, arena {report['evaluation']['seconds']:.0f} s); labelling all {lab['files']} "
             f"files took {lab['cpu_seconds_all'] / 60:.1f} CPU-minutes over all the run's commands"
             + (f" ({lab['files_without_cpu_seconds']} of them not timed)" if lab["files_without_cpu_seconds"] else "")
             + ".", "",
             f"- labels: {lab['games']:,} games of the heuristic, {fit['decisions']:,} decisions with a choice; the "
             f"teacher departs from the heuristic on {pct(fit['teacher_departs'])} of them",
             f"- fit ({fit_cfg['target']}{margin}), held out {fit['held_out']:,}: {epochs}",
             "", "| opponent | games | win rate | interval | even share |", "|---|---|---|---|---|"]
    for r in report["evaluation"]["arena"]:
        lines.append(f"| {r['opponent']} (one seat against {n - 1}) | {r['games']:,} | {pct(r['win_rate'])} | "
                     f"[{pct(r['ci_low'])}, {pct(r['ci_high'])}] ({r['interval']}) | {pct(1 / n)} |")
    h = report["evaluation"].get("head_to_head")
    if h:
        lines.append(f"| heuristic ({h['seats_each']} seats each) | {h['games']:,} | {pct(h['win_rate'])} | "
                     f"[{pct(h['ci_low'])}, {pct(h['ci_high'])}] ({h['interval']}) | 50.0% |")
    with open(os.path.join(run_dir, "report.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------------------- the run
def distill(cfg: DistillConfig, run_dir: str, progress: bool = True, command: str | None = None) -> dict[str, Any]:
    """Label, fit and evaluate in ``run_dir``; returns the report.  ``command`` (the command line
    :func:`~uno_env.training.checkpoints.run_command` gives) is what the policy's ``trained_by`` and the report
    name; without it, ``--config`` and the run's name."""
    t0 = time.time()
    os.makedirs(run_dir, exist_ok=True)
    with open(os.path.join(run_dir, CONFIG_FILE), "w", encoding="utf-8") as fh:
        yaml.safe_dump(_as_dict(cfg), fh, sort_keys=False)
    command_line = command or _bare_command(cfg)
    if command is not None:
        save_command(run_dir, command)
    labels_dir = os.path.join(run_dir, LABELS_DIR)
    lab = label_games(cfg, labels_dir, progress)
    policy_path = os.path.join(run_dir, "policy.npz")
    fit = fit_policy(cfg, load_labels(cfg, labels_dir), policy_path, os.path.join(run_dir, "tb", "distill"),
                     command_line)
    ev = evaluate_policy(cfg, policy_path, progress)
    report = {"name": cfg.name, "command": command_line, "game": cfg.env.game,
              "num_players": cfg.env.num_players, "seed": cfg.seed, "labels": lab, "fit": fit, "evaluation": ev,
              "arena": ev["arena"], "wall_time_seconds": round(time.time() - t0, 1), "config": _as_dict(cfg)}
    write_report(run_dir, report)
    return report


def _bare_command(cfg: DistillConfig) -> str:
    """What a run names as its command when it is not told the one that started it (a call from Python)."""
    return f"uno-env distill --config {cfg.name}"


def _as_dict(cfg: DistillConfig) -> dict[str, Any]:
    return dataclasses.asdict(cfg)


def prepare_run(args: argparse.Namespace) -> tuple[DistillConfig, str]:
    """The validated config and the run directory; everything wrong with either is reported before any labelling."""
    overrides = parse_overrides(list(args.overrides or []))
    data = read_yaml(args.config, "distill") if args.config is not None else {}
    data = apply_overrides(data, overrides)
    if args.name:
        data["name"] = args.name
    cfg = distill_config_from_dict(data)
    if args.run_dir:
        check_writable_dir("--run-dir", args.run_dir)
    else:
        check_writable_dir("runs_dir", cfg.runs_dir)
    run_dir = os.path.abspath(args.run_dir or os.path.join(cfg.runs_dir, cfg.name))
    saved_path = os.path.join(run_dir, CONFIG_FILE)
    if args.resume:
        if not os.path.isfile(saved_path):
            raise DistillError(f"--resume: no distillation run at {run_dir} (no {CONFIG_FILE}; check "
                               f"--config/--name/--run-dir)")
        saved = read_yaml(saved_path)
        try:
            cfg = distill_config_from_dict(apply_overrides(saved, overrides))
        except ConfigError as e:
            raise ConfigError(f"--resume: the config saved in {saved_path} (with this command's options): "
                              f"{e}") from None
        now = _as_dict(cfg)
        changed = [key for key in FIXED_ON_RESUME if _get(saved, key) != _get(now, key)]
        if changed:
            raise ConfigError(f"--resume: {', '.join(changed)} cannot change in a run (the labels already written "
                              f"depend on them); start a new run with --name instead")
    elif os.path.isdir(run_dir) and os.listdir(run_dir):
        if args.overwrite:
            shutil.rmtree(run_dir)
        else:
            raise DistillError(f"run directory {run_dir} already exists. Continue it with --resume, start over with "
                               f"--overwrite, or pick another --name")
    if args.no_progress:
        cfg.progress_bar = False
    return cfg, run_dir


def _get(d: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        d = d.get(part) if isinstance(d, dict) else None  # type: ignore[assignment]
    return d


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``uno-env distill``."""
    add_run_arguments(
        parser,
        config_help=f"distillation config: a packaged config's name ({', '.join(packaged_configs('distill'))}) or a "
                    "YAML path; without it "
                    "the defaults of training/config.py (DistillConfig)",
        resume_help="continue the run: label files already written are kept (the saved config is used; --set still "
                    "applies, labels.games may grow)",
        set_example="--set labels.games=38400")


def run(args: argparse.Namespace) -> int:
    """``uno-env distill``: label, fit, evaluate and write the report; returns the exit status."""
    try:
        cfg, run_dir = prepare_run(args)
    except (ConfigError, DistillError) as e:
        print(f"uno-env distill: error: {e}", file=sys.stderr)
        return 2
    try:
        report = distill(cfg, run_dir, progress=cfg.progress_bar and sys.stderr.isatty(),
                         command=run_command(args, run_dir, "distill"))
    except (DistillError, ImportError) as e:
        print(f"uno-env distill: error: {e}", file=sys.stderr)
        return 1
    print(f"{run_dir}: policy.npz, report.md ({report['wall_time_seconds'] / 60:.1f} min)")
    for r in report["arena"]:
        print(f"  vs {r['opponent']:<10} {100 * r['win_rate']:5.1f}%  [{100 * r['ci_low']:.1f}, "
              f"{100 * r['ci_high']:.1f}]  (even share {100 / cfg.env.num_players:.1f}%)")
    h = report["evaluation"].get("head_to_head")
    if h:
        print(f"  vs heuristic, {h['seats_each']} seats each: {100 * h['win_rate']:.1f}%  [{100 * h['ci_low']:.1f}, "
              f"{100 * h['ci_high']:.1f}]")
    return 0
