"""Would streaming (non-temporal) stores of the observation rows help big batches?  A measurement, kept because
the answer on the machine it was run on is no.

The idea (issue 17): at B=8192 a batched step's arrays outgrow the caches, so write the observation, which every
step writes whole, into a scratch row that stays in L1 and copy it out with non-temporal stores: the output lines
are then not read before being overwritten (no read-for-ownership) and do not push the state rows out of the
cache.  numba has no such store, so this script defines one (``numba.extending.intrinsic``: a store with LLVM's
``!nontemporal`` metadata, 8 bytes = ``movnti`` or 16 bytes = ``movntps``, then ``sfence``) and times, in ns per
game row, CPU time, median of 7 runs, one thread:

1. copying a 960-byte row (classic's observation) from an L1 scratch row into B rows: plain stores, 8-byte and
   16-byte streaming stores;
2. the observation pass of a real batch (``observe_one`` over B games after 60 random steps): straight into the
   output (what the simulator does), into a scratch row then copied out with plain stores, or with streaming
   stores, and into the scratch row only (the output not written at all: what the writes cost).

    python benchmarks/bench_stream_stores.py [--games classic dice] [--batches 1024 8192] [--players 2]
"""
from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from uno_env.core.observe import observe_one
from uno_env.vector import RandomLegalPolicy, UnoVectorEnv

X86 = platform.machine().lower() in ("x86_64", "amd64")


def _stream_store(lanes: int):  # type: ignore[no-untyped-def]
    """An intrinsic ``store(dst, src, i)``: ``4 * lanes`` bytes from ``src[i]`` to ``dst[i]`` (float32 arrays),
    non-temporal; ``dst[i]``'s address must be aligned to that size."""
    def store(typingctx, dst, src, i):  # type: ignore[no-untyped-def]
        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            dty, sty, _ = signature.args
            d = context.make_array(dty)(context, builder, args[0])
            s = context.make_array(sty)(context, builder, args[1])
            ty = (ir.IntType(64) if lanes == 2 else ir.VectorType(ir.FloatType(), lanes)).as_pointer()
            dp = cgutils.get_item_pointer(context, builder, dty, d, [args[2]], wraparound=False)
            sp = cgutils.get_item_pointer(context, builder, sty, s, [args[2]], wraparound=False)
            value = builder.load(builder.bitcast(sp, ty), align=4)
            st = builder.store(value, builder.bitcast(dp, ty), align=4 * lanes)
            st.set_metadata("nontemporal", builder.module.add_metadata([ir.IntType(32)(1)]))
            return context.get_dummy_value()

        return types.void(dst, src, i), codegen

    return intrinsic(store)


store8 = _stream_store(2)
store16 = _stream_store(4)


@intrinsic
def sfence(typingctx):  # type: ignore[no-untyped-def]
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        if X86:
            fnty = ir.FunctionType(ir.VoidType(), [])
            builder.call(cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse.sfence"), [])
        else:
            builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.void(), codegen


@njit
def copy_plain(out, src):  # an explicit loop: numba's ``out[b, :] = src`` was 2x slower
    for b in range(out.shape[0]):
        row = out[b]
        for i in range(src.shape[0]):
            row[i] = src[i]


@njit
def copy_stream8(out, src):  # rows must start 8-byte aligned and hold an even number of entries
    for b in range(out.shape[0]):
        row = out[b]
        for i in range(0, src.shape[0], 2):
            store8(row, src, i)
    sfence()


@njit
def copy_stream16(out, src):  # rows must start 16-byte aligned and hold a multiple of 4 entries
    for b in range(out.shape[0]):
        row = out[b]
        for i in range(0, src.shape[0], 4):
            store16(row, src, i)
    sfence()


@njit
def obs_direct(states, cfg, spec, offs, seats, out):
    for b in range(states.shape[0]):
        observe_one(states[b], cfg, spec, offs, seats[b], out[b])


@njit
def obs_scratch_plain(states, cfg, spec, offs, seats, out):
    tmp = np.empty(out.shape[1], np.float32)
    for b in range(states.shape[0]):
        observe_one(states[b], cfg, spec, offs, seats[b], tmp)
        row = out[b]
        for i in range(tmp.shape[0]):
            row[i] = tmp[i]


@njit
def obs_scratch_stream(states, cfg, spec, offs, seats, out):  # rows 16-byte aligned, a multiple of 4 entries
    tmp = np.empty(out.shape[1], np.float32)
    for b in range(states.shape[0]):
        observe_one(states[b], cfg, spec, offs, seats[b], tmp)
        row = out[b]
        for i in range(0, tmp.shape[0], 4):
            store16(row, tmp, i)
    sfence()


@njit
def obs_scratch_only(states, cfg, spec, offs, seats, out):
    tmp = np.empty(out.shape[1], np.float32)
    total = 0.0
    for b in range(states.shape[0]):
        observe_one(states[b], cfg, spec, offs, seats[b], tmp)
        total += tmp[0]
    return total


def aligned_rows(batch: int, width: int) -> np.ndarray:
    """A (batch, width) float32 array whose first row starts on a 64-byte boundary."""
    raw = np.zeros(batch * width + 16, dtype=np.float32)
    skip = (-(raw.ctypes.data % 64) // 4) % 16
    return raw[skip: skip + batch * width].reshape(batch, width)


def ns_per_row(f: Callable[[], object], rows: int, calls: int) -> float:
    f()
    runs = []
    for _ in range(7):
        t = time.process_time()
        for _ in range(calls):
            f()
        runs.append((time.process_time() - t) / calls / rows * 1e9)
    return sorted(runs)[3]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=["classic", "dice"])
    parser.add_argument("--batches", nargs="+", type=int, default=[1024, 8192])
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    print(f"one thread; ns per game row (CPU time, median of 7 runs); load average {os.getloadavg()[0]:.2f}")
    src = np.arange(240, dtype=np.float32)
    print("1. a 960-byte row copied from an L1 scratch row into B rows (64-byte aligned)")
    for batch in args.batches:
        out = aligned_rows(batch, 240)
        calls = max(1, 200_000 // batch)
        times = {name: ns_per_row(lambda f=f, out=out: f(out, src), batch, calls)  # type: ignore[misc]
                 for name, f in (("plain", copy_plain), ("stream 8 B", copy_stream8), ("stream 16 B", copy_stream16))}
        print(f"   B={batch:<6}" + "   ".join(f"{name} {t:7.1f}" for name, t in times.items()))
    asm = "\n".join(copy_stream8.inspect_asm().values()) + "\n".join(copy_stream16.inspect_asm().values())
    found = sorted({line.split()[0] for line in asm.splitlines() if "movnt" in line or "sfence" in line})
    print(f"   streaming instructions in the compiled copies: {', '.join(found) or 'none'}")
    print("2. observe_one over a batch after 60 random steps (output rows 64-byte aligned)")
    kinds = (("direct", obs_direct), ("scratch+plain copy", obs_scratch_plain),
             ("scratch+stream 16 B", obs_scratch_stream), ("scratch only", obs_scratch_only))
    for game in args.games:
        for batch in args.batches:
            env = UnoVectorEnv(game, batch, num_players=args.players, seed=0, num_threads=1)
            env.reset()
            policy = RandomLegalPolicy(0)
            for _ in range(60):
                env.step(policy.act_batch(env.observations, env.masks))
            out = aligned_rows(batch, env.obs_dim)
            game_args = (env.states, env.game.cfg, env.game.spec, env.game.obs_offsets, env.seats, out)
            calls = max(1, 100_000 // batch)
            times = {name: ns_per_row(lambda f=f, a=game_args: f(*a), batch, calls)  # type: ignore[misc]
                     for name, f in kinds}
            cells = "   ".join(f"{name} {t:7.1f}" for name, t in times.items())
            print(f"   {game} {args.players}p B={batch:<6}" + cells, flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
