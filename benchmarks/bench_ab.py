"""This tree's batched simulator against an older commit's, in one process: alternating short bursts, one thread.

``bench_refactor.py --pairs`` alternates two worker processes; this goes one step further for small differences
(a few percent) on a shared machine: it copies the older commit's ``uno_env`` package under another name
(``uno_env_ab``, imports rewritten) into a scratch directory and imports both into this process, so that the two
sides' bursts run back to back on the same core with the same neighbours.  Each burst is random legal actions
with observations and masks (``UnoVectorEnv.step``), counted per CPU-second; the report is the median of the pairs'
new/old ratios and its quartiles.

    python benchmarks/bench_ab.py --old <commit> [--games classic dice] [--batches 1024 8192] [--players 2]
                                  [--pairs 16] [--burst 0.3] [--dir /tmp/uno_env_ab]

The older commit must have ``uno_env.vector.UnoVectorEnv`` and ``RandomLegalPolicy``; both sides run with this
interpreter and its dependencies.
"""
from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "uno_env_ab"


def export_old(commit: str, where: Path) -> Path:
    """``uno_env`` of ``commit`` as package ``NAME`` under ``where`` (absolute self-imports rewritten)."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "uno_env"], capture_output=True, check=True)
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as t:
        t.extractall(where, filter="data")
    pkg = where / NAME
    (where / "uno_env").rename(pkg)
    for path in pkg.rglob("*.py"):
        text = path.read_text()
        new = re.sub(r"\b(from|import) uno_env(\.|\b)", rf"\1 {NAME}\2", text)
        new = new.replace('"uno_env.data"', f'"{NAME}.data"')
        if new != text:
            path.write_text(new)
    return where


def burst(env, policy, obs, masks, seconds: float) -> float:  # type: ignore[no-untyped-def]
    """Steps per CPU-second of one burst of random legal actions."""
    calls, t0 = 0, time.process_time()
    while True:
        env.step(policy.act_batch(obs, masks))
        calls += 1
        elapsed = time.process_time() - t0
        if elapsed >= seconds:
            return calls * env.num_envs / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the older commit (anything git rev-parse accepts)")
    parser.add_argument("--games", nargs="+", default=["classic", "dice"])
    parser.add_argument("--batches", nargs="+", type=int, default=[1024, 8192])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=16)
    parser.add_argument("--burst", type=float, default=0.3, help="CPU seconds of one burst")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/uno_env_ab"))
    args = parser.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    sys.path.insert(0, str(export_old(args.old, args.dir)))
    sides = {"new": importlib.import_module("uno_env.vector"), "old": importlib.import_module(f"{NAME}.vector")}
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    print(f"new = this tree ({rev.stdout.strip()}), old = {args.old}; one thread; {args.pairs} pairs of "
          f"{args.burst:g} CPU-s bursts; load average {os.getloadavg()[0]:.2f} at the start")
    for game in args.games:
        for batch in args.batches:
            runs = {}
            for side, mod in sides.items():
                one = {"num_threads": 1} if "num_threads" in mod.UnoVectorEnv.__init__.__code__.co_varnames else {}
                env = mod.UnoVectorEnv(game, batch, num_players=args.players, seed=0, **one)
                policy = mod.RandomLegalPolicy(0)
                obs, masks = env.reset()[:2]
                for _ in range(3):
                    env.step(policy.act_batch(obs, masks))
                runs[side] = (env, policy, obs, masks)

            speed: dict[str, list[float]] = {"new": [], "old": []}
            ratios = []
            for i in range(args.pairs):
                order = ("new", "old") if i % 2 == 0 else ("old", "new")
                got = {side: burst(*runs[side], args.burst) for side in order}
                for side, v in got.items():
                    speed[side].append(v)
                ratios.append(got["new"] / got["old"])
            q1, _, q3 = statistics.quantiles(ratios, n=4)
            print(f"{game:<8}{args.players}p B={batch:<6} old {statistics.median(speed['old']):>11,.0f}  new "
                  f"{statistics.median(speed['new']):>11,.0f} steps per CPU-s  new/old {statistics.median(ratios):.3f}"
                  f" [{q1:.3f}, {q3:.3f}]", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
