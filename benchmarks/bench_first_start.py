"""A new process's first start: from ``import uno_env`` to the first step of each shell, beside RLCard's.

numba compiles the rules core on first use unless its on-disk cache already holds the kernels (``uno-env
precompile``, or a wheel built by ``build_support/uno_env_build.py``, which ships that cache). Each measurement
is a new Python process that imports ``uno_env``, makes one env of one shell (PettingZoo AEC, Gymnasium, the
batched ``UnoVectorEnv`` and ``UnoSingleAgentVectorEnv``), resets it and takes one step; it prints the seconds
from just before the import to just after that step, and how many compiled functions missed numba's cache (each
miss is a compilation inside that time). The processes run from an empty directory, so they import the
installation under test, not this checkout. RLCard's UNO is timed the same way (import, ``rlcard.make('uno')``,
reset, one step) when ``--rlcard-python`` has it.

To measure a fresh install (nothing run before it has warmed its cache)::

    pip wheel . --no-deps -w /tmp/wheel && python -m venv /tmp/fresh && /tmp/fresh/bin/pip install /tmp/wheel/*.whl
    python benchmarks/bench_first_start.py --python /tmp/fresh/bin/python --rlcard-python .venv/bin/python

The first round is the cold one; later rounds show what an already-started install costs. ``--read-only`` runs
every process with the installation's site-packages mounted read-only (``unshare -m``, as root), as in an
Apptainer image or a root-owned environment, and with a user cache (``XDG_CACHE_HOME``) that starts empty.

    python benchmarks/bench_first_start.py [--quick] [--rounds 3] [--python PY] [--rlcard-python PY] [--read-only]

Writes ``benchmarks/results/bench_first_start.json`` (``--json`` elsewhere).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _baselines  # noqa: E402

GAMES = ("classic", "pocket", "dice")
SHELLS = ("aec", "gym", "vector", "single")

FIRST_STEP = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import uno_env
shell, game = sys.argv[1], sys.argv[2]

def first(mask):
    return int(np.flatnonzero(mask)[0])

if shell == "aec":
    env = uno_env.env(game)
    env.reset(seed=0)
    env.step(first(env.observe(env.agent_selection)["action_mask"]))
elif shell == "gym":
    import gymnasium
    env = gymnasium.make(f"uno_env/{game.capitalize()}-v0")
    obs, _ = env.reset(seed=0)
    env.step(first(obs["action_mask"]))
elif shell == "vector":
    from uno_env.vector import UnoVectorEnv
    env = UnoVectorEnv(game, num_envs=64, seed=0)
    _, masks, _ = env.reset()
    env.step([first(m) for m in masks])
else:
    from uno_env.vector import UnoSingleAgentVectorEnv
    env = UnoSingleAgentVectorEnv(game, num_envs=64, seed=0)
    _, masks = env.reset()
    env.step([first(m) for m in masks])
seconds = time.perf_counter() - t0

from numba.core.registry import CPUDispatcher
misses = sum(sum(value.stats.cache_misses.values()) for name, module in list(sys.modules.items())
             if name.startswith("uno_env") for value in vars(module).values() if isinstance(value, CPUDispatcher))
print(json.dumps({"seconds": seconds, "misses": misses, "uno_env": uno_env.__file__}))
"""

RLCARD_FIRST_STEP = r"""
import json, time
t0 = time.perf_counter()
import rlcard
env = rlcard.make("uno", config={"seed": 0})
state, player = env.reset()
env.step(list(state["legal_actions"])[0])
print(json.dumps({"seconds": time.perf_counter() - t0, "misses": 0, "uno_env": ""}))
"""


def interpreter(path: str) -> str:
    """An absolute path: the processes run from an empty directory, where a relative one would not resolve."""
    found = shutil.which(path)
    if found is None:
        raise SystemExit(f"no Python interpreter at {path!r}")
    return os.path.abspath(found)


READ_ONLY = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'


def run_once(python: str, code: str, *args: str, read_only: str | None = None, user_cache: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    command = [python, "-c", code, *args]
    if read_only is not None:
        command = ["unshare", "-m", "sh", "-c", READ_ONLY, read_only, *command]
    if user_cache is not None:
        env["XDG_CACHE_HOME"] = user_cache
    with tempfile.TemporaryDirectory() as empty:
        done = subprocess.run(command, cwd=empty, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{python} {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the installation to measure")
    parser.add_argument("--rlcard-python", default=None,
                        help="an interpreter with rlcard installed (default: --python, skipped if it has none)")
    parser.add_argument("--quick", action="store_true", help="2 rounds of 2-player classic only")
    parser.add_argument("--rounds", type=int, default=None,
                        help="rounds over every game and shell; the first is cold (default 3; --quick 2)")
    parser.add_argument("--json", type=Path, default=None, help="write here instead of benchmarks/results/")
    parser.add_argument("--read-only", action="store_true",
                        help="mount the installation's site-packages read-only (needs root and unshare)")
    args = parser.parse_args(argv)
    rounds = args.rounds if args.rounds is not None else (2 if args.quick else 3)
    if rounds < 2:
        parser.error(f"--rounds must be at least 2 (a cold one and a warm one), got {rounds}")
    run = _baselines.Run("bench_first_start", argv, args.quick)
    python = interpreter(args.python)
    rlcard_python = interpreter(args.rlcard_python or args.python)
    site = None
    if args.read_only:
        site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
    rows: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as user_cache:
        for _ in range(rounds):
            for game in GAMES[:1] if args.quick else GAMES:
                for shell in SHELLS:
                    rows.setdefault(f"{game} {shell}", []).append(
                        run_once(python, FIRST_STEP, shell, game, read_only=site,
                                 user_cache=user_cache if args.read_only else None))
    has_rlcard = subprocess.run([rlcard_python, "-c", "import rlcard"], capture_output=True).returncode == 0
    rlcard = [run_once(rlcard_python, RLCARD_FIRST_STEP) for _ in range(rounds)] if has_rlcard else []

    installed = next(iter(rows.values()))[0]["uno_env"]
    print(f"uno_env from {installed}" + (" (mounted read-only, empty user cache)" if site else ""))
    print(f"seconds from `import uno_env` to the first step, one new process each; {rounds} rounds")
    print(f"{'game / shell':18s} {'cold':>6s} {'misses':>6s} {'warm (median)':>15s}")
    colds, warms = [], []
    for name, runs in rows.items():
        colds.append(runs[0]["seconds"])
        warms.append(statistics.median(r["seconds"] for r in runs[1:]))
        print(f"{name:18s} {runs[0]['seconds']:6.2f} {runs[0]['misses']:6d} {warms[-1]:15.2f}")
    rlcard_cold = rlcard[0]["seconds"] if rlcard else None
    rlcard_warm = statistics.median(r["seconds"] for r in rlcard[1:]) if rlcard else None
    if not rlcard:
        print(f"rlcard: not installed for {rlcard_python}; pass --rlcard-python")
    run.headline("first_start/cold", "first start, the slowest shell's cold start (s)", max(colds), rlcard_cold,
                 "RLCard UNO", "s", better="lower")
    run.headline("first_start/warm", "first start, the slowest shell's warm start (s, median)", max(warms),
                 rlcard_warm, "RLCard UNO", "s", better="lower")
    run.details = {"uno_env": rows, "rlcard": rlcard, "python": python, "read_only": bool(site),
                   "cache_misses_cold": sum(r[0]["misses"] for r in rows.values())}
    run.write(args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
