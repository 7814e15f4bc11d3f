"""Software prefetch for the batch kernels: ask for the next games' memory while the current game runs.

A batched step visits each game once, so from one call to the next every game's data has been evicted once the
batch outgrows the caches (B=8192 classic: 2.7 KB of state, 1 KB of observation and the mask per game, ~30 MB in
all).  Each game then waits on a dozen cache misses in a row: the kernel reads a few fields, computes, reads the
next ones, and the processor's own prefetchers cannot guess a jump of one state row.  Measured on a 2-core AMD
EPYC, one thread: B=8192 ran at ~0.7x the steps/s of B=1024 with or without a shorter row, and at ~1.0x with
these prefetches (``benchmarks/bench_vector.py``).  A prefetch never faults and changes no value: it only
moves memory into the cache earlier, so results stay bit-identical.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from . import engine as E
from ._cache import rule_sources, track_dependencies
from ._jit import njit
from .facts import plays_dice

# its functions compile the facts table and the layout into themselves (inlined into the batch kernels)
track_dependencies(__file__, rule_sources())


def _prefetch_intrinsic(write: int):  # type: ignore[no-untyped-def]
    def prefetch(typingctx, arr, i, j):  # type: ignore[no-untyped-def]
        sig = types.void(arr, i, j)

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], args[2]], wraparound=False)
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
            # llvm.prefetch(address, rw, locality 3 = keep in every cache level, cache type 1 = data)
            builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, write), ir.Constant(i32, 3),
                              ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return sig, codegen

    return intrinsic(prefetch)


#: ``prefetch_read(arr, i, j)`` / ``prefetch_write(arr, i, j)``: the cache line of ``arr[i, j]`` (a 2-D array)
#: into the caches, to be read / written (compiled code only)
prefetch_read = _prefetch_intrinsic(0)
prefetch_write = _prefetch_intrinsic(1)


LINE32 = 16  # float32 entries (observations) per 64-byte cache line
LINE_STATE = 64 // np.dtype(E.STATE_DTYPE).itemsize  # state row entries per cache line
HAND_LINES = (E.MAX_KINDS + LINE_STATE - 1) // LINE_STATE + 1  # lines one seat's hand may straddle
HOT_END = E.O_DISC_COUNT + E.MAX_KINDS  # the scalars, the per-seat counters and the discard counts


@njit(cache=True, inline="always")
def prefetch_game_head(states, b):
    """The fixed fields every step reads (the row's first ``HOT_END`` entries) of game ``b``."""
    for c in range(0, HOT_END + LINE_STATE, LINE_STATE):
        prefetch_read(states, b, min(c, HOT_END - 1))


@njit(cache=True, inline="always")
def _prefetch_hands(states, b, first, last):
    """The hands of seats ``first .. last-1`` of game ``b`` (seats the row does not hold are skipped)."""
    for seat in range(first, last):
        hand = E.O_HAND + seat * E.MAX_KINDS
        if seat >= 0 and hand + E.MAX_KINDS <= states.shape[1]:
            for line in range(HAND_LINES):
                prefetch_read(states, b, hand + min(line * LINE_STATE, E.MAX_KINDS - 1))


@njit(cache=True, inline="always")
def prefetch_game_rest(states, obs, masks, cfg, b):
    """What a step of game ``b`` reads beyond its head, which must be in cache already (its seat to act and pile
    sizes say where): the hands of the seat to act and of the next seat, the pile tops, UNO Dice's dice and
    hands; and its observation and mask rows, which the step writes."""
    st = states[b]
    n = cfg[E.C_NP]
    cur = st[E.S_CUR]
    if plays_dice(cfg):  # UNO Dice observes every seat's hand counts
        _prefetch_hands(states, b, 0, n)
    elif 0 <= cur < n:  # the seat to act, and the next one, who acts (is observed, has a mask) after the step
        _prefetch_hands(states, b, cur, cur + 1)
        nxt = (cur + st[E.S_DIR] + n) % n
        _prefetch_hands(states, b, nxt, nxt + 1)
    draw_n, disc_n = st[E.S_DRAW_N], st[E.S_DISC_N]
    if 0 < draw_n <= E.MAX_ITEMS:
        prefetch_read(states, b, E.O_DRAW + draw_n - 1)
    if 0 <= disc_n < E.MAX_ITEMS:
        prefetch_read(states, b, E.O_DISC + disc_n)
    if plays_dice(cfg):
        nd = cfg[E.C_NUM_DICE]
        for c in range(0, nd + LINE_STATE, LINE_STATE):
            prefetch_read(states, b, E.O_DIE_LOC + min(c, nd - 1))
            prefetch_read(states, b, E.O_DIE_FACE + min(c, nd - 1))
    for c in range(0, obs.shape[1], LINE32):
        prefetch_write(obs, b, c)
    for c in range(0, masks.shape[1], 4 * LINE32):
        prefetch_write(masks, b, c)
