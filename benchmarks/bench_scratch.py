"""Learning curves of the from-scratch recipes: win rate against greedy and heuristic over training steps, wall time
and CPU time, the median of several seeds with their spread, as one results JSON and one plot.

Each config (``--configs``, packaged names or YAML paths) is trained once per seed with ``uno-env train --config
NAME --set seed=S`` in ``--runs-dir`` (``NAME_seedS``; a finished run is read back, an interrupted one resumed), and
every run's periodic evaluations (the config's ``evaluation`` section: the duplicate arena, the same deals for every
seed) become its curve.  The time axes are the training's own: each evaluation's duration is taken off, so they
show the time a run without evaluations would take; the CPU time is the training process's (all its threads),
which a busy machine does not inflate as it does the wall time.  Curves are aligned by evaluation (the seeds of a
config evaluate at the same steps); the median is over seeds, the band from the lowest to the highest seed.

    python benchmarks/bench_scratch.py --configs classic_scratch pocket_scratch dice_scratch --seeds 0 1 2 \\
        --json benchmarks/results/bench_scratch.json --plot benchmarks/results/bench_scratch.png
    python benchmarks/bench_scratch.py --configs classic_scratch --seeds 0 --set total_steps=2000000   # shorter

``--keep FILE`` takes the runs a results file already holds from it (a results file outlives its run folders:
seeds added later join the ones it has).  ``--collect`` reads the runs already finished in ``--runs-dir`` without
training; a seed that has not finished is left out (and said so), and the table and plot give each config's number
of seeds.  ``--tag NAME`` with ``--set`` overrides names a variant of a config (an ablation): its runs are
``CONFIG_NAME_seedS``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OPPONENTS = ("greedy", "heuristic")

#: every ablation is its recipe shortened to 5M steps (the learning rate then decays to 0 at 5M), evaluated and
#: snapshotted every 500k steps
SHORT = ("total_steps=5000000", "evaluation.every=500000", "opponents.snapshot_every=500000")
_BEFORE = ("policy.activation=tanh", "ppo.learning_rate=3e-4", "ppo.lr_schedule=constant",
           "opponents.baselines={greedy: 1.0}", "opponents.selfplay_start=1.0")
#: the ablations of docs/learning-from-scratch.md (``--ablations``): (config, tag, the factor it varies, its
#: overrides after SHORT, seeds); its runs are ``CONFIG_TAG_seedS``.  The recipe at 5M has three seeds, which give
#: the spread between seeds; every variant is a screen of one seed beside it.
ABLATIONS: tuple[tuple[str, str, str, tuple[str, ...], tuple[int, ...]], ...] = (
    ("classic_scratch", "5m", "the recipe", (), (0, 1, 2)),
    ("classic_scratch", "5m_tanh", "activation", ("policy.activation=tanh",), (0,)),
    ("classic_scratch", "5m_greedy_only", "opponents", ("opponents.baselines={greedy: 1.0}",
                                                        "opponents.selfplay_start=1.0"), (0,)),
    ("classic_scratch", "5m_lr3e-4", "learning rate", ("ppo.learning_rate=3e-4", "ppo.lr_schedule=constant"),
     (0,)),
    ("classic_scratch", "5m_no_snapshots", "opponents", ("opponents.selfplay_start=1.0",), (0,)),
    ("classic_scratch", "5m_before", "activation, learning rate, opponents", _BEFORE, (0,)),
    # behaviour cloning of the heuristic all along (no policy gradient): what the tanh network can represent
    ("classic_scratch", "imitation_tanh", "activation", ("total_steps=1000000", "ppo.imitation_steps=1000000000",
                                                         *_BEFORE), (0,)),
    ("pocket_scratch", "5m", "the recipe", (), (0,)),
    ("pocket_scratch", "5m_tanh", "activation", ("policy.activation=tanh",), (0,)),
    ("dice_scratch", "5m", "the recipe", (), (0,)),
    ("dice_scratch", "5m_tanh", "activation", ("policy.activation=tanh",), (0,)),
    ("classic_scratch", "5m_gamma099", "value target", ("ppo.gamma=0.99",), (0,)),
    ("classic_scratch", "5m_points", "value target", ("env.rules={reward: points}",), (0,)),
    ("classic_scratch", "5m_obs_raw", "observation", ("policy.obs_transform=none",), (0,)),
    ("classic_scratch", "5m_net256", "network size", ("policy.net_arch=[256, 256]",), (0,)),
    ("classic_scratch", "5m_big_batch", "value target", ("env.n_envs=1024", "ppo.batch_size=16384"), (0,)),
    ("classic_scratch", "5m_ent003", "entropy", ("ppo.ent_coef=0.003",), (0,)),
)


def run_name(config: str, seed: int, tag: str = "") -> str:
    """The run directory's name of ``config`` (a packaged name or a YAML path) trained with ``seed`` (``tag``: a
    variant's name, for runs of one config with other overrides)."""
    return f"{Path(config).stem}{'_' + tag if tag else ''}_seed{seed}"


def train_command(config: str, seed: int, runs_dir: str, overrides: list[str], resume: bool, tag: str = ""
                  ) -> list[str]:
    """The ``uno-env train`` command line of one seed's run."""
    cmd = [sys.executable, "-m", "uno_env.cli", "train", "--config", config, "--set", f"seed={seed}",
           "--set", f"name={run_name(config, seed, tag)}", "--set", f"runs_dir={runs_dir}", "--no-progress"]
    for item in overrides:
        cmd += ["--set", item]
    return cmd + (["--resume"] if resume else [])


def read_run(run_dir: Path) -> dict[str, Any]:
    """A finished run's summary from its ``report.json``: seed, command, steps, times, final arena and curve, and
    the ``setting`` (game, players, total steps) of its config."""
    rep = json.loads((run_dir / "report.json").read_text())
    cfg = rep["config"]
    return {"seed": rep["seed"], "run_dir": str(run_dir), "command": rep.get("command"), "steps": rep["steps"],
            "train_wall_s": rep.get("train_time_seconds"), "train_cpu_s": rep.get("train_cpu_seconds"),
            "final_eval_s": rep.get("final_eval_seconds"),
            "final_arena": [{k: r[k] for k in ("opponent", "games", "win_rate", "ci_low", "ci_high") if k in r}
                            for r in rep["arena"]],
            "curve": run_curve(rep),
            "setting": {"game": cfg["env"]["game"], "num_players": cfg["env"]["num_players"],
                        "total_steps": cfg["total_steps"]}}


def kept_runs(path: str | None) -> dict[tuple[str, str, tuple[str, ...], int], dict[str, Any]]:
    """The runs summarised in the results file ``path`` (``--keep``), by (config, tag, overrides, seed): a results
    file stays whole after its run folders are gone, and a later call adds seeds to it."""
    if not path:
        return {}
    kept = {}
    for res in json.loads(Path(path).read_text())["results"]:
        setting = {k: res[k] for k in ("game", "num_players", "total_steps")}
        for run in res["runs"]:
            key = (Path(res["config"]).stem, res.get("tag", ""), tuple(res.get("overrides", ())), run["seed"])
            kept[key] = {**run, "setting": setting}
    return kept


def ensure_run(config: str, seed: int, args: argparse.Namespace, tag: str = "", overrides: list[str] | None = None
               ) -> dict[str, Any] | None:
    """The finished run of ``config`` with ``seed`` (``tag`` and ``overrides``: a variant of it), as
    :func:`read_run` gives it: taken from ``--keep`` if that file has it, else trained (or resumed) unless its report
    exists; with ``--collect``, None when it has not finished."""
    key = (Path(config).stem, tag, tuple(overrides or ()), seed)
    if key in args.kept:
        return args.kept[key]
    run_dir = Path(args.runs_dir) / run_name(config, seed, tag)
    if (run_dir / "report.json").is_file():
        return read_run(run_dir)
    if args.collect:
        print(f"bench_scratch: {run_dir} has no report.json: seed {seed} left out", flush=True)
        return None
    resume = (run_dir / "checkpoints").is_dir()
    cmd = train_command(config, seed, args.runs_dir, list(overrides or []), resume, tag)
    print("$ " + " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, check=True)
    return read_run(run_dir)


def finished_runs(config: str, seeds: Iterable[int], args: argparse.Namespace, tag: str = "",
                  overrides: list[str] | None = None) -> list[dict[str, Any]]:
    """The finished runs of ``config`` over ``seeds`` (see ensure_run); with ``--collect``, an error when none of
    them has finished."""
    runs = [r for r in (ensure_run(config, s, args, tag, overrides) for s in seeds) if r is not None]
    if not runs:
        raise SystemExit(f"bench_scratch: no finished run of {run_name(config, 0, tag).rsplit('_seed', 1)[0]} "
                         f"in {args.runs_dir} (run it without --collect)")
    return runs


def ablation_names() -> list[str]:
    """The names of the ablations, ``CONFIG_TAG`` (their runs' names without the seed)."""
    return [f"{config}_{tag}" for config, tag, *_ in ABLATIONS]


def run_ablations(names: list[str], args: argparse.Namespace) -> list[dict[str, Any]]:
    """The ablations ``names`` (all of them if empty), each trained per seed (or read back) and summarised."""
    table = dict(zip(ablation_names(), ABLATIONS))
    unknown = [n for n in names if n not in table]
    if unknown:
        raise SystemExit(f"bench_scratch: unknown ablation {', '.join(unknown)}; known: {', '.join(table)}")
    results = []
    for name in names or list(table):
        config, tag, factor, overrides, seeds = table[name]
        sets = [*SHORT, *overrides]
        res = summarise(config, finished_runs(config, args.seeds or seeds, args, tag, sets), tag, sets)
        res["factor"] = factor
        results.append(res)
    return results


def run_curve(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One run's evaluations: step, training wall and CPU seconds (the evaluations' own time taken off) and the
    win rate with its interval against each opponent."""
    out, eval_seconds = [], 0.0
    for h in report["eval_history"]:
        eval_seconds += float(h.get("seconds", 0.0))
        point = {"step": h["step"], "wall_s": round(h["wall_time"] - eval_seconds, 1)}
        if "cpu_time" in h:
            point["cpu_s"] = round(h["cpu_time"] - eval_seconds, 1)  # the arena runs in this process (workers 1)
        for r in h["results"]:
            point[r["opponent"]] = {k: r[k] for k in ("win_rate", "ci_low", "ci_high", "games")}
        out.append(point)
    return out


def median_curve(curves: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per evaluation (aligned by index, over the seeds that reached it): median step and times, and per opponent
    the median, lowest and highest win rate."""
    out = []
    for i in range(max(len(c) for c in curves)):
        pts = [c[i] for c in curves if i < len(c)]
        row: dict[str, Any] = {"step": int(statistics.median(p["step"] for p in pts)), "seeds": len(pts),
                               "wall_s": round(statistics.median(p["wall_s"] for p in pts), 1)}
        if all("cpu_s" in p for p in pts):
            row["cpu_s"] = round(statistics.median(p["cpu_s"] for p in pts), 1)
        for opp in OPPONENTS:
            rates = [p[opp]["win_rate"] for p in pts if opp in p]
            if rates:
                row[opp] = {"median": statistics.median(rates), "min": min(rates), "max": max(rates)}
        out.append(row)
    return out


def summarise(config: str, runs: list[dict[str, Any]], tag: str = "", overrides: list[str] | None = None
              ) -> dict[str, Any]:
    """A config's runs (as :func:`ensure_run` gives them): each seed's curve, final arena and times, and the median
    curve."""
    setting = runs[0]["setting"]
    return {"config": config, "tag": tag, "overrides": list(overrides or []), **setting,
            "runs": [{k: v for k, v in r.items() if k != "setting"} for r in runs],
            "median": median_curve([r["curve"] for r in runs])}


def label_of(res: dict[str, Any]) -> str:
    """A config's name, and its variant's tag if it has one."""
    return Path(res["config"]).stem + (f" [{res['tag']}]" if res.get("tag") else "")


def plot(results: list[dict[str, Any]], path: str) -> None:
    """One row per config: win rate against each opponent over steps, training wall time and CPU time; the median
    of the seeds as a line, the band from the lowest to the highest seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes_keys = (("step", "training steps (learner decisions, millions)", 1e-6),
                 ("wall_s", "training wall time (minutes)", 1 / 60),
                 ("cpu_s", "training CPU time (minutes)", 1 / 60))
    fig, axes = plt.subplots(len(results), 3, figsize=(13, 3.6 * len(results)), dpi=100, squeeze=False)
    for row, res in zip(axes, results):
        med = res["median"]
        for ax, (key, label, scale) in zip(row, axes_keys):
            for opp, colour in zip(OPPONENTS, ("tab:blue", "tab:orange")):
                pts = [m for m in med if opp in m and key in m]
                if not pts:
                    continue
                xs = [m[key] * scale for m in pts]
                ax.plot(xs, [100 * m[opp]["median"] for m in pts], color=colour, marker="o", ms=2,
                        label=f"vs {opp} (median of {max(m['seeds'] for m in pts)})")
                ax.fill_between(xs, [100 * m[opp]["min"] for m in pts], [100 * m[opp]["max"] for m in pts],
                                color=colour, alpha=0.2)
            ax.axhline(100 / res["num_players"], color="grey", ls="--", lw=1)
            ax.set_xlabel(label)
            ax.set_ylabel("win rate (%)")
            ax.grid(alpha=0.3)
            ax.set_title(f"{res['game']}, {res['num_players']} players ({label_of(res)})", fontsize=9)
        row[0].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, path)


def plot_ablations(results: list[dict[str, Any]], path: str) -> None:
    """One panel per variant: its win rate against greedy over steps (median of its seeds, the band from the lowest
    to the highest) beside its recipe's at the same length (the tag ``5m`` of the same config), when that ran."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bases = {r["config"]: r for r in results if r.get("tag") == "5m"}
    variants = [r for r in results if r.get("tag") != "5m"] or results
    cols = min(3, len(variants))
    rows = -(-len(variants) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.4 * cols, 3.3 * rows), dpi=100, squeeze=False)
    for ax, res in zip(axes.flat, variants):
        base = bases.get(res["config"])
        pairs = [(res, "tab:red")] if base is None or base is res else [(base, "grey"), (res, "tab:red")]
        for r, colour in pairs:
            pts = [m for m in r["median"] if "greedy" in m]
            if not pts:
                continue
            xs = [m["step"] / 1e6 for m in pts]
            ax.plot(xs, [100 * m["greedy"]["median"] for m in pts], color=colour, marker="o", ms=2,
                    label=f"{r.get('tag') or r['config']} ({len(r['runs'])} seed{'s' if len(r['runs']) > 1 else ''})")
            ax.fill_between(xs, [100 * m["greedy"]["min"] for m in pts], [100 * m["greedy"]["max"] for m in pts],
                            color=colour, alpha=0.2)
        ax.axhline(100 / res["num_players"], color="black", ls="--", lw=0.8)
        ax.set_title(f"{res['game']}: {res.get('factor', '')} ({res.get('tag', '')})", fontsize=9)
        ax.set_xlabel("training steps (millions)")
        ax.set_ylabel("win rate against greedy (%)")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=7)
    for ax in list(axes.flat)[len(variants):]:
        ax.set_visible(False)
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, path)


def print_table(res: dict[str, Any]) -> None:
    print(f"\n{label_of(res)}: {res['game']}, {res['num_players']} players, {len(res['runs'])} seeds")
    print(f"{'steps':>12} {'wall min':>9} {'cpu min':>8}  " + "  ".join(f"{'vs ' + o + ' median [min, max]':>30}"
                                                                     for o in OPPONENTS))
    for m in res["median"]:
        cells = [f"{100 * m[o]['median']:5.1f}% [{100 * m[o]['min']:.1f}, {100 * m[o]['max']:.1f}]".rjust(30)
                 if o in m else " " * 30 for o in OPPONENTS]
        cpu = f"{m['cpu_s'] / 60:8.1f}" if "cpu_s" in m else " " * 8
        print(f"{m['step']:>12,} {m['wall_s'] / 60:9.1f} {cpu}  " + "  ".join(cells))
    for r in res["runs"]:
        final = ", ".join(f"{a['opponent']} {100 * a['win_rate']:.1f}% [{100 * a['ci_low']:.1f}, "
                          f"{100 * a['ci_high']:.1f}] ({a['games']:,} games)" for a in r["final_arena"])
        cpu = f", {r['train_cpu_s'] / 60:.1f} CPU min" if r.get("train_cpu_s") is not None else ""
        print(f"  seed {r['seed']}: final arena {final}; trained {r['train_wall_s'] / 60:.1f} min wall{cpu}")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _final(res: dict[str, Any], opponent: str) -> list[dict[str, Any]]:
    """Each seed's final arena row against ``opponent``."""
    return [a for r in res["runs"] for a in r["final_arena"] if a["opponent"] == opponent]


def _final_median(res: dict[str, Any], opponent: str) -> str:
    rows = _final(res, opponent)
    if not rows:
        return ""
    rates = [a["win_rate"] for a in rows]
    if len(rows) == 1:
        return f"{_pct(rates[0])} [{100 * rows[0]['ci_low']:.1f}, {100 * rows[0]['ci_high']:.1f}]"
    return f"{_pct(statistics.median(rates))} ({_pct(min(rates))} .. {_pct(max(rates))})"


def flattens_at(res: dict[str, Any], opponent: str = "greedy", within: float = 0.02) -> int | None:
    """The first evaluation step from which the median curve against ``opponent`` stays within ``within`` of its
    final level (the mean of its last three evaluations; 0.02 is about the interval of one evaluation of 2,000
    games): where the curve flattens.  None when it has no evaluations."""
    pts = [(m["step"], m[opponent]["median"]) for m in res["median"] if opponent in m]
    if not pts:
        return None
    end = statistics.fmean(v for _, v in pts[-3:])
    step = None
    for s, v in reversed(pts):
        if abs(v - end) > within:
            break
        step = s
    return step


def markdown(doc: dict[str, Any]) -> str:
    """The results of ``doc`` (this script's JSON) as a markdown table: the recipes' final arenas and training
    times, or the ablations beside their recipe."""
    results = doc["results"]
    if any("factor" in r for r in results):
        bases = {r["config"]: r for r in results if r.get("tag") == "5m"}
        lines = ["| game | factor | variant | overrides | seeds | vs greedy | vs heuristic | difference vs greedy "
                 "| flattens at |", "|---|---|---|---|---|---|---|---|---|"]
        for r in results:
            base = bases.get(r["config"])
            diff = ""
            if base is not None and base is not r and _final(r, "greedy") and _final(base, "greedy"):
                d = (statistics.median(a["win_rate"] for a in _final(r, "greedy"))
                     - statistics.median(a["win_rate"] for a in _final(base, "greedy")))
                diff = f"{100 * d:+.1f}"
            sets = " ".join(f"`{o}`" for o in r["overrides"] if o not in SHORT) or "(none)"
            flat = flattens_at(r)
            lines.append(f"| {r['game']} | {r['factor']} | {r['tag']} | {sets} | {len(r['runs'])} | "
                         f"{_final_median(r, 'greedy')} | {_final_median(r, 'heuristic')} | {diff} | "
                         f"{'still moving' if flat is None else f'{flat / 1e6:.1f}M'} |")
        return "\n".join(lines)
    lines = ["| config | game, players | steps | seed | vs greedy | vs heuristic | training wall | training CPU |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        for run in r["runs"]:
            cells = []
            for opp in OPPONENTS:
                a = next((a for a in run["final_arena"] if a["opponent"] == opp), None)
                cells.append("" if a is None else f"{_pct(a['win_rate'])} [{100 * a['ci_low']:.1f}, "
                                                  f"{100 * a['ci_high']:.1f}] ({a['games']:,} games)")
            cpu = "" if run.get("train_cpu_s") is None else f"{run['train_cpu_s'] / 60:.0f} min"
            lines.append(f"| {label_of(r)} | {r['game']}, {r['num_players']} | {run['steps'] / 1e6:.1f}M | "
                         f"{run['seed']} | {cells[0]} | {cells[1]} | {run['train_wall_s'] / 60:.0f} min | {cpu} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--configs", nargs="+", help="training configs: packaged names or YAML paths")
    what.add_argument("--ablations", nargs="*", metavar="NAME",
                      help=f"the ablations (all if none is named; seeds as listed): {', '.join(ablation_names())}")
    ap.add_argument("--seeds", nargs="+", type=int,
                    help="the seeds of every config (default 0 1 2) or ablation (default: its own, in ABLATIONS)")
    ap.add_argument("--runs-dir", default="runs/scratch", help="where the runs are trained (default runs/scratch)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a config override for every run (as uno-env train --set)")
    ap.add_argument("--tag", default="", help="a name for this variant (with --set): its runs are NAME_TAG_seedS")
    ap.add_argument("--collect", action="store_true",
                    help="only read the finished runs in --runs-dir (an unfinished seed is left out)")
    ap.add_argument("--keep", metavar="JSON",
                    help="a results file of this script: the runs it holds (same config, variant and seed) are "
                         "taken from it, not trained or read again")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--plot", help="write the plot here (.png)")
    args = ap.parse_args(argv)
    if args.seeds is not None and any(s < 0 for s in args.seeds):
        ap.error("--seeds must be non-negative")
    args.kept = kept_runs(args.keep)
    t0 = time.time()
    if args.ablations is not None:
        results = run_ablations(args.ablations, args)
    else:
        results = [summarise(c, finished_runs(c, args.seeds or (0, 1, 2), args, args.tag, args.set), args.tag,
                             args.set) for c in args.configs]
    for res in results:
        print_table(res)
    if args.json:
        doc = {"command": "python benchmarks/bench_scratch.py " + " ".join(argv if argv is not None else sys.argv[1:]),
               "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "seconds": round(time.time() - t0, 1),
               "cpus": os.cpu_count(), "load_average_end": os.getloadavg()[0], "results": results}
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
    if args.plot:
        (plot_ablations if args.ablations is not None else plot)(results, args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
