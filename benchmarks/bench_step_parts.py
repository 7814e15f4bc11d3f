"""Where a batched step's time goes: the whole step, and the random action, legal mask and observation each timed
alone over the same B states (ns per game, CPU time, median of 5 runs of 200 calls).  "rest" is the step minus
those three: the rules, resets and the Python call.  Parts timed alone miss the prefetching the step does, so at
batches larger than the caches they include waiting on memory the step partly hides.

Runs on any tree whose ``uno_env`` has ``vector.UnoVectorEnv`` and ``core.observe.observe_one`` (it reads the env's
private arrays, which older trees have too); to compare with an older tree run it with that tree first on the path,
as ``bench_refactor.py`` does::

    python benchmarks/bench_step_parts.py [game] [B] [players]          # default: dice 1024 2
    PYTHONPATH=/tmp/old NUMBA_NUM_THREADS=1 python benchmarks/bench_step_parts.py dice 1024 2
"""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

from numba import njit

from uno_env.core import engine as E
from uno_env.core.observe import observe_one
from uno_env.vector import RandomLegalPolicy, UnoVectorEnv


@njit
def masks_all(states, cfg, spec, dice, masks):
    count = 0
    for b in range(states.shape[0]):
        count += E.legal_mask(states[b], cfg, spec, dice, masks[b])
    return count


@njit
def observe_all(states, cfg, spec, offs, seats, out):
    for b in range(states.shape[0]):
        observe_one(states[b], cfg, spec, offs, seats[b], out[b])


def cpu_seconds(f: Callable[[], object], reps: int = 200) -> float:
    """Median over 5 runs of the CPU time of one call of ``f``."""
    runs = []
    for _ in range(5):
        t = time.process_time()
        for _ in range(reps):
            f()
        runs.append((time.process_time() - t) / reps)
    return sorted(runs)[2]


def main() -> None:
    game = sys.argv[1] if len(sys.argv) > 1 else "dice"
    batch = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    players = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    one_thread = {"num_threads": 1} if "num_threads" in UnoVectorEnv.__init__.__code__.co_varnames else {}
    env = UnoVectorEnv(game, batch, num_players=players, seed=0, **one_thread)
    env.reset()
    policy = RandomLegalPolicy(0)
    obs, masks = env._obs, env._masks
    scratch_masks, scratch_obs = masks.copy(), obs.copy()
    for _ in range(50):  # compile, and leave the first deals behind
        env.step(policy.act_batch(obs, masks))
    parts = {
        "act": lambda: policy.act_batch(obs, masks),
        "mask": lambda: masks_all(env._states, env._cfg, env._spec, env._dice, scratch_masks),
        "obs": lambda: observe_all(env._states, env._cfg, env._spec, env._offs, env._seats, scratch_obs),
    }
    for f in parts.values():
        f()
    times = {name: cpu_seconds(f) for name, f in parts.items()}
    step = cpu_seconds(lambda: env.step(policy.act_batch(obs, masks)))
    times["rest"] = step - sum(times.values())
    print(f"{game} {players}p B={batch}: observation {obs.shape[1]} values, {masks.shape[1]} actions, state row "
          f"{env._states[0].nbytes} bytes; load average {os.getloadavg()[0]:.2f}")
    print(f"step + act {step / batch * 1e9:8.1f} ns/game ({batch / step:,.0f} steps per CPU-second)")
    for name, t in times.items():
        print(f"  {name:<8}{t / batch * 1e9:8.1f} ns/game")


if __name__ == "__main__":
    main()
