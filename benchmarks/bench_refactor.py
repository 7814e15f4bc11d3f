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
            v = vec["vector"][f"{game}/2p/B={b}"]["median"]
            m[f"vector {game} B={b}"] = v
            m[f"vector {game} B={b} /RLCard"] = v / base
        v = vec["single_agent"][f"{game}/2p/B={single_batch}"]["learner_median"]
        m[f"single-agent {game} B={single_batch}"] = v
        m[f"single-agent {game} B={single_batch} /RLCard"] = v / base
    return m


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="source tree of the code before the change")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds of each timed run inside a script")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per row inside a script (median)")
    parser.add_argument("--games", nargs="+", default=["classic", "pocket", "dice"])
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 1024])
    parser.add_argument("--single-batch", type=int, default=1024)
    parser.add_argument("--out", type=Path, default=None, help="write PREFIX.txt and PREFIX.json")
    args = parser.parse_args(argv)
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
    say(f"{args.rounds} rounds of old, new; each script {args.repeats} x {args.seconds:g} s per row; 2 players; "
        f"simulator on 1 thread; {os.cpu_count()} CPUs; load before {os.getloadavg()[0]:.2f}")
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

    keys = list(runs["old"][0]["metrics"])
    summary = {}
    for key in keys:
        old = statistics.median(r["metrics"][key] for r in runs["old"])
        new = statistics.median(r["metrics"][key] for r in runs["new"])
        summary[key] = {"old": old, "new": new, "new_over_old": new / old}
    say()
    say(f"medians over {args.rounds} rounds ({time.time() - started:.0f} s; load after {os.getloadavg()[0]:.2f})")
    say(f"{'row':<36}{'old':>14}{'new':>14}{'new/old':>9}")
    for key in keys:
        s = summary[key]
        old, new = (f"{s[k]:,.2f}x" if key.endswith("/RLCard") else f"{s[k]:,.0f}" for k in ("old", "new"))
        say(f"{key:<36}{old:>14}{new:>14}{s['new_over_old']:>9.3f}")
    worst = min((k for k in keys if k.endswith("/RLCard")), key=lambda k: summary[k]["new_over_old"])
    say(f"\nlowest new/old ratio to RLCard: {worst} {summary[worst]['new_over_old']:.3f}")

    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.with_suffix(".txt").write_text("\n".join(lines) + "\n")
        report = {"argv": argv if argv is not None else sys.argv[1:], "trees": {k: str(v) for k, v in trees.items()},
                  "revs": {k: _git_rev(v) for k, v in trees.items()}, "summary": summary, "runs": runs}
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
