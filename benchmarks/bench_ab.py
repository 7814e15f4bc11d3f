"""Speed against an older commit, paired: this tree's AEC env, batched simulator and search against the older commit's,
in one process, alternating short bursts on one thread.

For differences of a few percent on a shared machine, it copies the older commit's ``uno_env`` package (and its
``agents``) under another name (``uno_env_ab``, imports rewritten) into a scratch directory and imports both into
this process, so that the two sides' bursts run back to back on the same core with the same neighbours.  The report is
the median
of the pairs' new/old ratios and its quartiles.  What a burst is (``--bench``, several allowed):

* ``aec``: seeded games of uniformly random legal actions through ``env()`` in PettingZoo's canonical loop (both
  sides play the same games), steps per CPU-second;
* ``vector`` (default): random legal actions with observations and masks (``UnoVectorEnv.step``), steps per
  CPU-second;
* ``opponents``: the single-agent simulator with the compiled ``heuristic`` opponents in the kernel
  (``UnoSingleAgentVectorEnv(opponents="heuristic")``, learner random legal), learner steps per CPU-second;
* ``search``: the ``ismcts`` agent at this tree's defaults (the old side given this tree's budget, which may have
  changed) (``act_from_state``) on 64 positions of heuristic games, both sides of a pair on the same run of
  positions (as many as take about ``--burst`` CPU seconds), simulated
  decisions per CPU-second (``last_search["decisions"]``); the agent is reseeded per position, so both sides
  must choose the same action after the same number of simulated decisions on every position (checked: the
  script fails otherwise).  ``--batches`` is ignored; ``--players`` takes several counts.

    python benchmarks/bench_ab.py --old <commit> [--bench aec vector search] [--games classic] [--batches 1024]
                                  [--players 2] [--pairs 16] [--burst 0.3] [--dir DIR] [--json FILE] [--quick]

It writes ``benchmarks/results/bench_ab.json`` (``--json`` elsewhere).

The older commit must have ``uno_env.vector.UnoVectorEnv`` and ``RandomLegalPolicy`` (``search``: the ``ismcts``
agent); both sides run with this interpreter and its dependencies.
"""
from __future__ import annotations

import argparse
import functools
import importlib
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _baselines  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NAME = "uno_env_ab"


def export_old(commit: str, where: Path) -> Path:
    """``uno_env`` of ``commit`` as package ``NAME`` under ``where`` (absolute self-imports rewritten), with the
    top-level ``agents`` folder as its ``agents`` subpackage (as the install maps it)."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", commit], capture_output=True, text=True,
                         check=True).stdout.strip()
    stamp = where / NAME / ".commit"
    if stamp.exists() and stamp.read_text() == sha:  # exported before: keep it, and numba's cache beside it
        return where
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "uno_env", "agents"], capture_output=True,
                         check=True)
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as t:
        t.extractall(where, filter="data")
    pkg = where / NAME
    (where / "uno_env").rename(pkg)
    (where / "agents").rename(pkg / "agents")
    for path in pkg.rglob("*.py"):
        text = path.read_text()
        new = re.sub(r"\b(from|import) uno_env(\.|\b)", rf"\1 {NAME}\2", text)
        new = new.replace('"uno_env.data"', f'"{NAME}.data"')
        if new != text:
            path.write_text(new)
    stamp.write_text(sha)
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


class SearchSide:
    """One side's ``ismcts`` agent; remembers its action and simulated decisions on each position it searched."""

    def __init__(self, pkg: str, game: str, players: int, positions: list,  # type: ignore[type-arg]
                 sims: int | None = None) -> None:
        config = importlib.import_module(f"{pkg}.config")
        game_mod = importlib.import_module(f"{pkg}.core.game")
        ismcts = importlib.import_module(f"{pkg}.agents.ismcts")
        # both sides run one algorithm: a source tree with ``prior`` is told to improve on the heuristic, as older
        # trees always do
        extra = {"prior": "rollout"} if hasattr(ismcts, "PRIORS") else {}
        self.agent = ismcts.ISMCTSAgent(game_mod.Game(config.make_rules(game, players, None)), seed=0, sims=sims,
                                        **extra)
        self.positions = positions
        self.seen: dict[int, tuple[int, int]] = {}

    def run(self, indices: list[int]) -> tuple[int, float]:
        """Search the positions ``indices`` (the agent reseeded with the index); simulated decisions, CPU seconds."""
        decisions, t0 = 0, time.process_time()
        for i in indices:
            self.agent.reset(seed=i)
            a = self.agent.act_from_state(self.positions[i])
            self.seen[i] = (a, self.agent.last_search["decisions"])
            decisions += self.agent.last_search["decisions"]
        return decisions, time.process_time() - t0


def search_positions(game: str, players: int, count: int) -> list:  # type: ignore[type-arg]
    """``count`` state rows with a choice to make, taken every few decisions of heuristic games (this tree)."""
    from uno_env.config import make_rules
    from uno_env.core import engine as E
    from uno_env.core.game import Game
    from uno_env.core.layout import MAX_PLAYERS, STATE_LEN
    from uno_env.players import rollout as R
    from uno_env.players.parameters import heuristic_weight_array

    g = Game(make_rules(game, players, None))
    mask, rew = np.zeros(g.num_actions, np.int8), np.zeros(MAX_PLAYERS, np.float32)
    scratch = (np.zeros(g.obs_dim, np.float32), g.obs_offsets, heuristic_weight_array(), np.zeros(STATE_LEN, np.int32),
               np.zeros(5, np.int64))
    word = np.ones(1, np.uint64)
    out: list = []  # type: ignore[type-arg]
    seed = 0
    while len(out) < count:
        states, rngs = g.new_states(1)
        st, rng = states[0], rngs[0]
        E.reset_one(st, rng, g.cfg, g.spec, g.dice, 1000 + seed)
        seed += 1
        step = 0
        while st[E.S_DONE] == 0 and len(out) < count:
            legal = E.legal_mask(st, g.cfg, g.spec, g.dice, mask)
            if legal > 1 and step % 5 == 0:
                out.append(st.copy())
            a = R.policy_action(st, g.cfg, g.spec, g.dice, mask, g.num_actions, R.POLICY_HEURISTIC, word, *scratch)
            E.step_one(st, rng, g.cfg, g.spec, g.dice, a, mask, rew)
            step += 1
    return out


def report(run: _baselines.Run, key: str, label: str, speed: dict[str, list[float]], ratios: list[float],
           unit: str) -> None:
    """One paired comparison: the new side's median beside the old side's, and the pairs' ratios' quartiles."""
    spread = _baselines.quartiles(ratios)
    run.headline(key, label, statistics.median(speed["new"]), statistics.median(speed["old"]), "old", unit,
                 spread=spread)
    run.details[key] = {"new": speed["new"], "old": speed["old"], "ratios": ratios}


def paired(sides: dict, args: argparse.Namespace) -> tuple[dict[str, list[float]], list[float]]:
    """``--pairs`` pairs of one burst per side (``sides``: side -> burst function of CPU seconds), the order
    swapped every pair."""
    speed: dict[str, list[float]] = {"new": [], "old": []}
    ratios = []
    for i in range(args.pairs):
        order = ("new", "old") if i % 2 == 0 else ("old", "new")
        got = {side: sides[side](args.burst) for side in order}
        for side, v in got.items():
            speed[side].append(v)
        ratios.append(got["new"] / got["old"])
    return speed, ratios


def aec_burst(pkg: str, game: str, players: int):  # type: ignore[no-untyped-def]
    """Burst function of one side's AEC env: seeded random games in the canonical loop, steps per CPU-second."""
    burst = _baselines.aec_loop(importlib.import_module(pkg).env(game, num_players=players))
    burst(0.2)  # compile (or load) and warm up
    return burst


def run_aec(args: argparse.Namespace, run: _baselines.Run) -> None:
    for game in args.games:
        for players in args.players:
            speed, ratios = paired({"new": aec_burst("uno_env", game, players),
                                    "old": aec_burst(NAME, game, players)}, args)
            report(run, f"aec/{game}/{players}p", f"AEC env {game} {players}p", speed, ratios, "steps per CPU-s")


def run_search(args: argparse.Namespace, run: _baselines.Run) -> None:
    """Each pair: both sides search the same run of positions (about ``--burst`` CPU seconds on the new side)."""
    for game in args.games:
        for players in args.players:
            positions = search_positions(game, players, 64)
            new = SearchSide("uno_env", game, players, positions)
            # the old side searches with this tree's default budget, which may differ (4-player classic: 300)
            sides = {"new": new, "old": SearchSide(NAME, game, players, positions, sims=new.agent.sims)}
            for side in sides.values():  # compile (or load) and warm up
                side.run([0])
            count, (_, took) = 1, sides["new"].run([1])
            while took < args.burst and count < len(positions):  # positions per burst
                count *= 2
                _, took = sides["new"].run(list(range(count)))
            speed: dict[str, list[float]] = {"new": [], "old": []}
            ratios = []
            for i in range(args.pairs):
                indices = [(i * count + j) % len(positions) for j in range(count)]
                order = ("new", "old") if i % 2 == 0 else ("old", "new")
                got = {}
                for side in order:
                    decisions, cpu = sides[side].run(indices)
                    got[side] = decisions / cpu
                for side, v in got.items():
                    speed[side].append(v)
                ratios.append(got["new"] / got["old"])
            same = set(sides["new"].seen) & set(sides["old"].seen)
            differ = [i for i in same if sides["new"].seen[i] != sides["old"].seen[i]]
            if differ:
                raise SystemExit(f"{game} {players}p: the sides chose (or simulated) differently on positions {differ}")
            report(run, f"search/{game}/{players}p",
                   f"search {game} {players}p ({count} positions a burst, same actions and decisions)", speed, ratios,
                   "simulated decisions per CPU-s")


def run_vector(args: argparse.Namespace, run: _baselines.Run, bench: str) -> None:
    sides = {"new": importlib.import_module("uno_env.vector"), "old": importlib.import_module(f"{NAME}.vector")}
    players = args.players[0]
    for game in args.games:
        for batch in args.batches:
            bursts = {}
            for side, mod in sides.items():
                one = {"num_threads": 1} if "num_threads" in mod.UnoVectorEnv.__init__.__code__.co_varnames else {}
                if bench == "opponents":
                    env = mod.UnoSingleAgentVectorEnv(game, batch, num_players=players, opponents="heuristic",
                                                      learner_seat="random", seed=0, **one)
                else:
                    env = mod.UnoVectorEnv(game, batch, num_players=players, seed=0, **one)
                policy = mod.RandomLegalPolicy(0)
                obs, masks = env.reset()[:2]
                for _ in range(3):
                    env.step(policy.act_batch(obs, masks))
                bursts[side] = functools.partial(burst, env, policy, obs, masks)
            speed, ratios = paired(bursts, args)
            unit = "learner steps per CPU-s" if bench == "opponents" else "steps per CPU-s"
            what = "single-agent, heuristic opponents" if bench == "opponents" else "batched"
            report(run, f"{bench}/{game}/{players}p/B={batch}", f"{what} {game} {players}p B={batch}", speed, ratios,
                   unit)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the older commit (anything git rev-parse accepts)")
    parser.add_argument("--bench", nargs="+", choices=("aec", "vector", "opponents", "search"),
                        default=["aec", "vector", "search"])
    parser.add_argument("--games", nargs="+", default=["classic"])
    parser.add_argument("--batches", nargs="+", type=int, default=[1024])
    parser.add_argument("--players", type=int, nargs="+", default=[2])
    parser.add_argument("--quick", action="store_true", help="4 pairs of 0.2 CPU-s bursts")
    parser.add_argument("--pairs", type=int, default=None, help="pairs of bursts (default 16; --quick 4)")
    parser.add_argument("--burst", type=float, default=None,
                        help="CPU seconds of one burst (default 0.3; --quick 0.2)")
    parser.add_argument("--dir", type=Path, default=None,
                        help="where the older commit's copy and its numba cache are kept (default /tmp/uno_env_ab_SHA)")
    parser.add_argument("--json", type=Path, default=None, help="write here instead of benchmarks/results/")
    args = parser.parse_args(argv)
    args.pairs = args.pairs or (4 if args.quick else 16)
    args.burst = args.burst or (0.2 if args.quick else 0.3)
    if args.pairs < 2 or args.burst <= 0:
        parser.error("--pairs must be at least 2 and --burst above 0")
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    run = _baselines.Run("bench_ab", argv, quick=args.quick)
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.old], capture_output=True,
                         text=True).stdout.strip()
    if not sha:
        parser.error(f"--old {args.old!r} is not a commit of this repository")
    sys.path.insert(0, str(export_old(args.old, args.dir or Path(tempfile.gettempdir()) / f"uno_env_ab_{sha}")))
    run.details["old"] = sha
    print(f"new = this tree, old = {sha}; {' '.join(args.bench)}; one thread; {args.pairs} pairs of {args.burst:g} "
          f"CPU-s bursts; load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    for bench in args.bench:
        if bench == "aec":
            run_aec(args, run)
        elif bench == "search":
            run_search(args, run)
        else:
            run_vector(args, run, bench)
    run.write(args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
