"""How a threaded step of the batched simulator hands its games to the threads, old way against new, in one process.

``UnoVectorEnv.step`` at two threads publishes the step on a control array that its helper threads spin on between
steps; every thread then claims pieces of the batch from atomic counters inside its compiled call
(``players.batch_play.advance_lead`` and ``helper_spin``, the env's ``_StepTeam``).  Before, the games were cut into
chunks in Python and each chunk was one call of ``advance`` (a numba dispatch of two dozen arguments and a GIL
hand-over per chunk; ``_threads.run_chunks``, still in the package).  This alternates bursts of three ways of
running the same step (the random policy, the action check, the clears and the kernel call, as ``step`` does):

* ``alone``: one ``advance`` call on the calling thread (what ``num_threads=1`` runs);
* ``chunks``: the old hand-off (``run_chunks``, 4 chunks per thread of at least 64 games);
* ``spinning``: the env's own (pieces of ``_threads.claim_size`` games, helpers spinning between steps);

and prints wall time per step and the pairs' speed ratios (median and quartiles).  Meaningful on an idle machine
only: with other processes on every CPU the threads wait for the scheduler, not for each other (the runner then
keeps to one thread).

    python benchmarks/bench_handoff.py [--game classic] [--players 2] [--batch 1024] [--pairs 30]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from uno_env import _threads
from uno_env.players import batch_play as P
from uno_env.vector import RandomLegalPolicy, UnoVectorEnv
from uno_env.vector._team import _StepTeam

WAYS = ("alone", "chunks", "spinning")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="classic", choices=["classic", "pocket", "dice"])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=30, help="rounds of one burst per way")
    parser.add_argument("--steps", type=int, default=100, help="steps per burst")
    args = parser.parse_args()

    env = UnoVectorEnv(args.game, args.batch, num_players=args.players, seed=0, num_threads=args.threads)
    policy = RandomLegalPolicy(0)
    env.reset()
    B, T = args.batch, args.threads
    none = np.empty(0, dtype=np.int64)
    head = (env._states, env._rngs, env._cfg, env._spec, env._dice, env._offs)
    rows = env._all
    mode = P.MODE_PREFETCH if env.prefetch else 0
    tail = (none, env._opp, mode, env._masks, env._obs, env._seats, env._rew, env._rewards, env._lrew, env._carry,
            env._fresh, env._terminated, env._truncated, env._final, env._final_obs, env._seed_buf, env._counters,
            env._opponent_ids, env._pool_kind, env._weights)
    team = _StepTeam(T, head, tail[:2] + tail[3:], B)  # the team takes the arrays; ``mode`` is a step parameter

    def step(way: str) -> None:
        acts = env._check_actions(rows, policy.act_batch(env.observations, env.masks))
        env._clear()
        if way == "alone":
            P.advance(*head, rows, acts, *tail)
        elif way == "chunks":
            _threads.run_chunks(lambda lo, hi: P.advance(*head, rows[lo:hi], acts[lo:hi], *tail), B, T)
        else:
            team.run(rows, acts, mode)

    for way in WAYS:  # compile and warm up
        for _ in range(20):
            step(way)
    print(f"{args.game} {args.players}p, B={B}, {T} threads, {args.pairs} rounds of {args.steps}-step bursts per way; "
          f"load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    runs: dict[str, list[float]] = {w: [] for w in WAYS}
    for r in range(args.pairs):
        for way in (WAYS if r % 2 == 0 else WAYS[::-1]):
            t0 = time.perf_counter()
            for _ in range(args.steps):
                step(way)
            runs[way].append((time.perf_counter() - t0) / args.steps * 1e6)
    for way in WAYS:
        print(f"{way:7s} {statistics.median(runs[way]):9.1f} us per step (median of the bursts)")
    for a, b in (("spinning", "chunks"), ("spinning", "alone"), ("chunks", "alone")):
        ratios = [y / x for x, y in zip(runs[a], runs[b], strict=True)]
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        print(f"speed {a} / {b}: {statistics.median(ratios):.3f} [quartiles {q1:.3f}, {q3:.3f}]")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
