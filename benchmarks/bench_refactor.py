"""Speed before and after a change: two source trees' own ``bench_aec.py`` and ``bench_vector.py``, alternated.

Each benchmark script of each tree runs in its own subprocess with ``PYTHONPATH=<tree>`` (checked: ``uno_env``
and the benchmark import from that tree), in the order old, new, old, new, ... for ``--rounds`` rounds, after
one untimed warm-up run of each tree that fills its numba caches.  Every run measures RLCard's UNO in the same
process, so the ratio to RLCard cancels most of the machine's load; the report gives per shell the medians over
the rounds of our steps/s and of that ratio, old and new, and new/old.

The batched simulator runs on one thread in both trees (``NUMBA_NUM_THREADS=1`` for trees that used numba's
``parallel=True``, ``UNO_ENV_NUM_THREADS=1`` for the thread pool that replaced it): on a shared machine the
thread count measures the neighbours' load, not the code.

    python benchmarks/bench_refactor.py --old /tmp/old [--new .] [--rounds 3] [--seconds 1] [--repeats 3]
                                        [--games classic pocket dice] [--batches 1 1024] [--out PREFIX]

``--out PREFIX`` writes ``PREFIX.txt`` (the command line, then the report) and ``PREFIX.json`` (every run).
The old tree can be any commit, e.g. ``git worktree add --detach /tmp/old <sha>``; both trees run with this
interpreter, so the old tree must import with today's dependencies.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

RLCARD = "RLCard uno env.step"
THREAD_PINS = {"NUMBA_NUM_THREADS": "1", "UNO_ENV_NUM_THREADS": "1"}


def _tree_env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(THREAD_PINS, PYTHONPATH=str(tree))
    return env


def _git_rev(tree: Path) -> str:
    r = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (r.stdout.strip() or "?") + ("+changes" if dirty else "")


def check_tree(tree: Path) -> None:
    """Refuse to measure a tree whose ``uno_env`` would not be the one imported (an installed copy first)."""
    code = "import uno_env, sys; print(uno_env.__file__)"
    r = subprocess.run([sys.executable, "-c", code], cwd=tree, env=_tree_env(tree), capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{tree}: uno_env does not import with this interpreter:\n{r.stderr[-2000:]}")
    found = Path(r.stdout.strip()).resolve()
    if not found.is_relative_to(tree):
        raise SystemExit(f"{tree}: uno_env resolves to {found}, not to this tree")


def run_script(tree: Path, script: str, args: list[str]) -> dict:
    """One benchmark script of one tree in a fresh process; its --json output."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, str(tree / "benchmarks" / script), *args, "--json", str(out)]
        r = subprocess.run(cmd, cwd=tree, env=_tree_env(tree), capture_output=True, text=True, timeout=1800)
        if r.returncode != 0:
            raise SystemExit(f"{shlex.join(cmd)} failed:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}")
        return json.loads(out.read_text())


def metrics(aec: dict, vec: dict, games: list[str], batches: list[int], single_batch: int) -> dict[str, float]:
    """Steps/s and the ratio to the same process's RLCard, per shell, from one run of each script."""
    m: dict[str, float] = {}
    base = aec[RLCARD]["median"]
    for game in games:
        v = aec[f"uno-env {game} env() AEC loop"]["median"]
        m[f"aec {game}"] = v
        m[f"aec {game} /RLCard"] = v / base
    base = vec["competitors"][RLCARD]["median"]
    for game in games:
        for b in batches:
            row = vec["vector"][f"{game}/2p/B={b}"]
            m[f"vector {game} B={b}"] = row["median"]
            m[f"vector {game} B={b} /RLCard"] = row["median"] / base
            # steps per CPU-second of this process: what the neighbours' load changes least
            m[f"vector {game} B={b} /CPU-s"] = statistics.median(
                r / c for r, c in zip(row["runs"], row["cpu_cores_used"]))
        v = vec["single_agent"][f"{game}/2p/B={single_batch}"]["learner_median"]
        m[f"single-agent {game} B={single_batch}"] = v
        m[f"single-agent {game} B={single_batch} /RLCard"] = v / base
    return m


def summarise(runs: dict[str, list[dict]], say: Callable[[str], None]) -> dict[str, dict[str, float]]:
    """Per row the median over the rounds, old and new, and new/old; printed through ``say``."""
    keys = list(runs["old"][0]["metrics"])
    summary = {}
    for key in keys:
        old = statistics.median(r["metrics"][key] for r in runs["old"])
        new = statistics.median(r["metrics"][key] for r in runs["new"])
        summary[key] = {"old": old, "new": new, "new_over_old": new / old}
    say(f"medians over {len(runs['old'])} rounds (/RLCard: ratio to RLCard in the same process; /CPU-s: steps per "
        "CPU-second of that process)")
    say(f"{'row':<36}{'old':>14}{'new':>14}{'new/old':>9}")
    for key in keys:
        s = summary[key]
        old, new = (f"{s[k]:,.2f}x" if key.endswith("/RLCard") else f"{s[k]:,.0f}" for k in ("old", "new"))
        say(f"{key:<36}{old:>14}{new:>14}{s['new_over_old']:>9.3f}")
    for kind in ("/RLCard", "/CPU-s"):
        ranked = sorted((k for k in keys if k.endswith(kind)), key=lambda k: summary[k]["new_over_old"])
        if ranked:
            say(f"new/old of {kind} rows: lowest {summary[ranked[0]]['new_over_old']:.3f} ({ranked[0]}), median "
                f"{statistics.median(summary[k]['new_over_old'] for k in ranked):.3f}")
    return summary


def resummarise(path: Path, parser: argparse.ArgumentParser, out: Path | None) -> int:
    """Print (and with ``out`` write) the summary of a saved run again, metrics recomputed from its raw output."""
    report = json.loads(path.read_text())
    if "header" in report:
        lines: list[str] = list(report["header"])
    else:  # saved before the header was: the report's lines above its table
        text = path.with_suffix(".txt").read_text().splitlines()
        lines = text[:next(i for i, line in enumerate(text) if line.startswith("medians over"))]
    for line in lines:
        print(line)

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    saved = parser.parse_args(report["argv"])  # the run's own settings
    for runs in report["runs"].values():
        for r in runs:
            r["metrics"] = metrics(r["bench_aec"], r["bench_vector"], saved.games, saved.batches, saved.single_batch)
    report["summary"] = summarise(report["runs"], say)
    if out:
        out.with_suffix(".txt").write_text("\n".join(lines) + "\n")
        out.with_suffix(".json").write_text(json.dumps(report, indent=1))
    return 0


# ---------------------------------------------------------------------------------------------- paired bursts
# One long-lived worker per tree runs short bursts of a workload when asked; the two trees' bursts alternate, so
# a pair of bursts a second apart sees the same load from the machine's other users.
WORKER = r"""
import json, sys, time
import numpy as np
import uno_env
from uno_env.vector import RandomLegalPolicy, UnoVectorEnv

def aec(game):
    env = uno_env.env(game, num_players=2)
    rng = np.random.default_rng(0)
    episode = [0]
    def burst(seconds):
        steps, deadline = 0, time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            env.reset(seed=episode[0])
            episode[0] += 1
            for _agent in env.agent_iter():
                obs, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.integers(len(legal))])
                    steps += 1
                env.step(action)
        return steps
    return burst

def vector(game, batch):
    env = UnoVectorEnv(game, batch, num_players=2, seed=0)
    policy = RandomLegalPolicy(0)
    state = list(env.reset()[:2])
    def burst(seconds):
        calls, deadline = 0, time.perf_counter() + seconds
        obs, masks = state
        while time.perf_counter() < deadline:
            obs, masks, *_ = env.step(policy.act_batch(obs, masks))
            calls += 1
        state[:] = [obs, masks]
        return calls * batch
    return burst

bursts = {}
for line in sys.stdin:
    name, seconds = line.split()
    if name not in bursts:
        kind, game, *batch = name.split(":")
        bursts[name] = aec(game) if kind == "aec" else vector(game, int(batch[0]))
        bursts[name](0.2)  # compile / warm up
    cpu0, t0 = time.process_time(), time.perf_counter()
    steps = bursts[name](float(seconds))
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    print(json.dumps({"steps": steps, "wall": wall, "cpu": cpu}), flush=True)
"""


class Worker:
    """A tree's worker process: ``burst(workload, seconds)`` -> (steps/s, steps per CPU-second)."""

    def __init__(self, tree: Path):
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], cwd=tree, env=_tree_env(tree), text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def burst(self, workload: str, seconds: float) -> tuple[float, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{workload} {seconds}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"a benchmark worker died (exit code {self.proc.wait()})")
        r = json.loads(line)
        return r["steps"] / r["wall"], r["steps"] / max(r["cpu"], 1e-9)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def paired(args: argparse.Namespace, trees: dict[str, Path], say: Callable[[str], None]) -> dict:
    """``--pairs`` bursts of each workload per tree, old and new alternating (the first of a pair alternating
    too); per workload the medians of both trees' steps/s and the median and quartiles of the pairs' new/old."""
    workloads = [f"aec:{g}" for g in args.games] + [f"vector:{g}:{b}" for g in args.games for b in args.batches]
    workers = {name: Worker(tree) for name, tree in trees.items()}
    results: dict[str, dict] = {}
    try:
        for w in workloads:
            for worker in workers.values():  # compile and warm up both before any timed burst
                worker.burst(w, args.burst)
            pairs: list[dict] = []
            for i in range(args.pairs):
                order = ("old", "new") if i % 2 == 0 else ("new", "old")
                pair = {name: workers[name].burst(w, args.burst) for name in order}
                pairs.append({"old": pair["old"], "new": pair["new"], "load": os.getloadavg()[0]})
            results[w] = {"pairs": pairs}
            for j, unit in enumerate(("wall", "cpu")):
                ratios = sorted(p["new"][j] / p["old"][j] for p in pairs)
                q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
                results[w][unit] = {"old": statistics.median(p["old"][j] for p in pairs),
                                    "new": statistics.median(p["new"][j] for p in pairs),
                                    "new_over_old": q[1], "q1": q[0], "q3": q[2]}
            s = results[w]
            say(f"{w:<22}{s['wall']['old']:>12,.0f}{s['wall']['new']:>12,.0f}{s['wall']['new_over_old']:>9.3f}"
                f"  [{s['wall']['q1']:.3f}, {s['wall']['q3']:.3f}]{s['cpu']['new_over_old']:>9.3f}"
                f"  [{s['cpu']['q1']:.3f}, {s['cpu']['q3']:.3f}]")
    finally:
        for worker in workers.values():
            worker.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="source tree of the code before the change (required)")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds of each timed run inside a script")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per row inside a script (median)")
    parser.add_argument("--games", nargs="+", default=["classic", "pocket", "dice"])
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 1024])
    parser.add_argument("--single-batch", type=int, default=1024)
    parser.add_argument("--out", type=Path, default=None, help="write PREFIX.txt and PREFIX.json")
    parser.add_argument("--pairs", type=int, default=0,
                        help="instead of the scripts: this many pairs of short bursts per workload, old and new "
                             "alternating in two long-lived workers (steadier under other load)")
    parser.add_argument("--burst", type=float, default=0.5, help="seconds of one burst (with --pairs)")
    parser.add_argument("--resummarise", type=Path, default=None, metavar="JSON",
                        help="no runs: print the summary of a saved PREFIX.json again (after a change of this script)")
    args = parser.parse_args(argv)
    if args.resummarise:
        return resummarise(args.resummarise, parser, args.out)
    if args.old is None:
        parser.error("--old is required (the source tree of the code before the change)")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    trees = {"old": args.old.resolve(), "new": args.new.resolve()}
    for tree in trees.values():
        check_tree(tree)

    def script_args(seconds: float, repeats: int) -> tuple[list[str], list[str]]:
        common = ["--seconds", str(seconds), "--repeats", str(repeats), "--games", *args.games]
        return common, [*common, "--players", "2", "--batches", *map(str, args.batches),
                        "--single-batch", str(args.single_batch)]

    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    say(f"$ {shlex.join(['python', 'benchmarks/bench_refactor.py', *(argv if argv is not None else sys.argv[1:])])}")
    say(f"old {trees['old']} @ {_git_rev(trees['old'])}; new {trees['new']} @ {_git_rev(trees['new'])}")
    if not args.pairs:
        say(f"{args.rounds} rounds of old, new; each script {args.repeats} x {args.seconds:g} s per row; 2 players; "
            f"simulator on 1 thread; {os.cpu_count()} CPUs; load before {os.getloadavg()[0]:.2f}")
    else:
        say(f"2 players; simulator on 1 thread; {os.cpu_count()} CPUs; load before {os.getloadavg()[0]:.2f}")
    if args.pairs:
        say(f"paired bursts: {args.pairs} pairs of {args.burst:g} s per workload; new/old: median of the pairs' "
            "ratios [quartiles]")
        say(f"{'workload':<22}{'old steps/s':>12}{'new steps/s':>12}{'new/old':>9}  {'[q1, q3]':<16}"
            f"{'per CPU-s':>9}")
        results = paired(args, trees, say)
        say(f"load after {os.getloadavg()[0]:.2f}")
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.with_suffix(".txt").write_text("\n".join(lines) + "\n")
            args.out.with_suffix(".json").write_text(json.dumps(
                {"argv": argv if argv is not None else sys.argv[1:], "revs": {k: _git_rev(v) for k, v in trees.items()},
                 "paired": results}, indent=1))
        return 0
    warm_aec, warm_vec = script_args(0.05, 1)
    for tree in trees.values():  # numba caches of both trees filled before any timed run
        run_script(tree, "bench_aec.py", warm_aec)
        run_script(tree, "bench_vector.py", warm_vec)

    aec_args, vec_args = script_args(args.seconds, args.repeats)
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    started = time.time()
    for rnd in range(args.rounds):
        for name, tree in trees.items():
            load = os.getloadavg()[0]
            aec = run_script(tree, "bench_aec.py", aec_args)
            vec = run_script(tree, "bench_vector.py", vec_args)
            runs[name].append({"round": rnd, "load_1min_before": load, "metrics":
                               metrics(aec, vec, args.games, args.batches, args.single_batch),
                               "bench_aec": aec, "bench_vector": vec})
            say(f"round {rnd + 1} {name}: load {load:.2f}, classic AEC "
                f"{runs[name][-1]['metrics']['aec classic /RLCard']:.2f}x RLCard")

    say()
    say(f"{args.rounds} rounds took {time.time() - started:.0f} s; load after {os.getloadavg()[0]:.2f}")
    summary = summarise(runs, say)

    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.with_suffix(".txt").write_text("\n".join(lines) + "\n")
        header = lines[:3 + 2 * args.rounds + 2]  # the command, the trees, the settings and the rounds' lines
        report = {"argv": argv if argv is not None else sys.argv[1:], "header": header,
                  "trees": {k: str(v) for k, v in trees.items()},
                  "revs": {k: _git_rev(v) for k, v in trees.items()}, "summary": summary, "runs": runs}
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
