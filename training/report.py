"""The end-of-run report: ``report.json`` (everything), ``report.md`` (for people) and ``learning_curve.png``.

``write_report(run_dir, summary)`` takes the summary dict that ``training.train`` builds: ``config``, ``seed``,
``steps``, ``wall_time_seconds``, ``arena`` (one row per baseline: ``opponent``, ``games``, ``wins``, ``draws``,
``win_rate``, ``ci_low``, ``ci_high``) and ``eval_history`` (``[{"step", "results": [rows]}]``).
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

from .intervals import wilson_interval as arena_wilson_interval

__all__ = ["wilson_interval", "verdict", "write_report", "plot_learning_curve", "markdown_report"]


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The arena's Wilson score interval at a given ``confidence`` (``(0, 1)`` without trials)."""
    return arena_wilson_interval(successes, trials, z=NormalDist().inv_cdf(0.5 + confidence / 2.0))


def fair_share(num_players: int) -> float:
    """The win rate of an agent exactly as good as its opponents (1 / players)."""
    return 1.0 / num_players


def verdict(row: Mapping[str, Any], num_players: int) -> str:
    """Plain words for one arena row: better, worse, or not distinguishable from an equal share."""
    share = fair_share(num_players)
    lo, hi = row["ci_low"], row["ci_high"]
    if lo > share:
        return f"beats it (interval above {share:.0%})"
    if hi < share:
        return f"loses to it (interval below {share:.0%})"
    return f"not distinguishable from an even match (interval contains {share:.0%})"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h {m:02d}m {s:02d}s" if h else f"{m}m {s:02d}s"


def markdown_report(summary: Mapping[str, Any]) -> str:
    """The Markdown training report (settings, final arena, evaluation history) of a run's ``summary``."""
    cfg = summary["config"]
    env = cfg["env"]
    n = env["num_players"]
    conf = cfg["evaluation"]["confidence"]
    lines = [
        f"# Training report: {summary['name']}",
        "",
        f"{_trainer(cfg)} on UNO **{env['game']}**, {n} players"
        + (f", rules `{env['rules']}`" if env.get("rules") else ", standard rules") + ".",
        "",
        "| | |",
        "|---|---|",
        f"| steps (learner decisions) | {summary['steps']:,} |",
        f"| seed | {summary['seed']} |",
        f"| wall time | {_duration(summary['wall_time_seconds'])} "
        f"(training {_duration(summary['train_time_seconds'])}, "
        f"final evaluation {_duration(summary['final_eval_seconds'])}) |",
        f"| commands (the first and each resume) | {summary.get('sessions', 1)} |",
        f"| environments | {env['n_envs']} x {env['vec_env']} |",
        f"| final policy | `{os.path.basename(summary['policy'])}` "
        f"(load by path: `uno-env evaluate {summary['policy']} "
        f"heuristic --game {env['game']} -n {n}`) |",
        "",
        f"## Final arena ({_pct(conf)} Wilson intervals; seats rotate; a truncated game is a win for nobody)",
        "",
        "| opponent | games | wins | truncated | win rate | interval | verdict |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for r in summary["arena"]:
        lines.append(f"| {r['opponent']} | {r['games']:,} | {r['wins']:,} | {r.get('draws', 0):,} | "
                     f"{_pct(r['win_rate'])} | [{_pct(r['ci_low'])}, {_pct(r['ci_high'])}] | {verdict(r, n)} |")
    lines += ["", "## Where it stands", ""]
    lines += _assessment(summary)
    hist = summary.get("eval_history") or []
    if hist:
        opps = [r["opponent"] for r in hist[0]["results"]]
        games = hist[0]["results"][0]["games"]
        lines += ["", f"## During training ({games} games per baseline per evaluation)", "",
                  "![learning curve](learning_curve.png)", "",
                  "| step | " + " | ".join(opps) + " |", "|---:|" + "---:|" * len(opps)]
        for h in hist:
            by = {r["opponent"]: r for r in h["results"]}
            lines.append(f"| {h['step']:,} | " + " | ".join(
                _pct(by[o]["win_rate"]) if o in by else "" for o in opps) + " |")
    pool = summary.get("pool") or []
    o = cfg["opponents"]
    selfplay = ("No self-play (`selfplay_start` 1.0)." if o["selfplay_start"] >= 1.0 else
                f"Self-play from {o['selfplay_start']:.0%} of the steps: a seat's opponent is a frozen snapshot with "
                f"probability {o['selfplay_prob']:g}; {len(pool)} snapshot(s) in the pool at the end.")
    lines += ["", "## Opponents", "",
              f"Baselines (weights): {', '.join(f'{k} {v:g}' for k, v in o['baselines'].items())}. " + selfplay]
    lines += ["", "## Config", "", "```json", json.dumps(cfg, indent=2), "```", ""]
    return "\n".join(lines)


def _assessment(summary: Mapping[str, Any]) -> list[str]:
    cfg = summary["config"]
    n = cfg["env"]["num_players"]
    out = []
    by = {r["opponent"]: r for r in summary["arena"]}
    for name, r in by.items():
        out.append(f"- Against **{name}**: {_pct(r['win_rate'])} over {r['games']:,} games, interval "
                   f"[{_pct(r['ci_low'])}, {_pct(r['ci_high'])}]: {verdict(r, n)}.")
    return out


def plot_learning_curve(history: Sequence[Mapping[str, Any]], path: str, title: str = "",
                        num_players: int = 2) -> None:
    """Win rate against each baseline over training steps, with interval bands and the even-share line."""
    import matplotlib  # matplotlib (the train extra) only for the picture; the report's text needs none

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    opponents: list[str] = []
    for h in history:
        for r in h["results"]:
            if r["opponent"] not in opponents:
                opponents.append(r["opponent"])
    for name in opponents:
        pts = [(h["step"], r, bool(h.get("final"))) for h in history for r in h["results"] if r["opponent"] == name]
        xs = [p[0] for p in pts]
        line, = ax.plot(xs, [100 * p[1]["win_rate"] for p in pts], marker="o", ms=3, label=f"vs {name}")
        ax.fill_between(xs, [100 * p[1]["ci_low"] for p in pts], [100 * p[1]["ci_high"] for p in pts],
                        color=line.get_color(), alpha=0.2)
        for x, r, final in pts:
            if final:
                ax.plot([x], [100 * r["win_rate"]], marker="*", ms=12, color=line.get_color())
    if any(h.get("final") for h in history):
        ax.plot([], [], ls="none", marker="*", ms=10, color="grey", label="final evaluation")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.axhline(100.0 / num_players, color="grey", ls="--", lw=1, label=f"even share ({100 / num_players:.0f}%)")
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("win rate (%)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.set_title(title or "win rate against the baselines")
    if not history:
        ax.text(0.5, 0.5, "no evaluation during training", ha="center", va="center", transform=ax.transAxes)
    else:
        ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp)
    plt.close(fig)
    os.replace(tmp, path)


def write_report(run_dir: str, summary: Mapping[str, Any]) -> dict[str, str]:
    """Write ``report.json``, ``report.md`` and ``learning_curve.png`` into ``run_dir``; returns their paths."""
    os.makedirs(run_dir, exist_ok=True)
    paths = {k: os.path.join(run_dir, f) for k, f in
             (("json", "report.json"), ("md", "report.md"), ("png", "learning_curve.png"))}
    history = list(summary.get("eval_history") or [])
    # the final evaluation is the curve's last point
    final = {"step": summary["steps"], "results": list(summary["arena"]), "final": True}
    env = summary["config"]["env"]
    plot_learning_curve(history + [final], paths["png"],
                        title=f"{summary['name']}: {env['game']}, {env['num_players']} players",
                        num_players=env["num_players"])
    tmp = paths["json"] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2, default=str)
        f.write("\n")
    os.replace(tmp, paths["json"])
    with open(paths["md"], "w", encoding="utf-8") as f:
        f.write(markdown_report(summary))
    return paths


def _trainer(cfg: Mapping[str, Any]) -> str:
    return {"maskable_ppo": "MaskablePPO (sb3-contrib)",
            "batched_ppo": "PPO on the batched simulator (plain PyTorch)"}.get(cfg.get("algorithm", "maskable_ppo"),
                                                                               str(cfg.get("algorithm")))
