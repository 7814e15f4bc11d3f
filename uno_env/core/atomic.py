"""Atomic operations on int64 array entries, for compiled code that several threads run at once.

The batched simulator's threads claim chunks of a step's games from counters in a control array inside their
compiled calls (``batch.publish``, ``claim``, ``helper_spin``), instead of one Python call (and one numba dispatch
of two dozen arguments, holding the GIL) per chunk, and its helper threads spin on that array between steps.  All
sequentially consistent, so a thread that reads a counter the others wrote also sees everything they wrote before.
"""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def fetch_add(typingctx, arr, i, value):  # type: ignore[no-untyped-def]
    """``old = arr[i]; arr[i] += value; return old`` as one atomic operation (``arr`` a 1-D int64 array)."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.int64 and arr.ndim == 1):
        return None
    sig = types.int64(arr, types.intp, types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], signature.args[1], types.intp)
        val = context.cast(builder, args[2], signature.args[2], types.int64)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [idx], wraparound=False)
        return builder.atomic_rmw("add", ptr, val, "seq_cst")

    return sig, codegen


def _int64_vector(arr) -> bool:  # type: ignore[no-untyped-def]
    return isinstance(arr, types.Array) and arr.dtype == types.int64 and arr.ndim == 1


def _pointer(context, builder, aryty, ary_value, idx_value, idx_type):  # type: ignore[no-untyped-def]
    ary = context.make_array(aryty)(context, builder, ary_value)
    idx = context.cast(builder, idx_value, idx_type, types.intp)
    return cgutils.get_item_pointer(context, builder, aryty, ary, [idx], wraparound=False)


@intrinsic
def load(typingctx, arr, i):  # type: ignore[no-untyped-def]
    """``arr[i]`` read atomically (sequentially consistent): a spin loop's read that the compiler may not hoist."""
    if not _int64_vector(arr):
        return None
    sig = types.int64(arr, types.intp)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ptr = _pointer(context, builder, signature.args[0], args[0], args[1], signature.args[1])
        return builder.load_atomic(ptr, "seq_cst", 8)

    return sig, codegen


@intrinsic
def store(typingctx, arr, i, value):  # type: ignore[no-untyped-def]
    """``arr[i] = value`` written atomically (sequentially consistent): every write before it is seen first."""
    if not _int64_vector(arr):
        return None
    sig = types.void(arr, types.intp, types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ptr = _pointer(context, builder, signature.args[0], args[0], args[1], signature.args[1])
        val = context.cast(builder, args[2], signature.args[2], types.int64)
        builder.store_atomic(val, ptr, "seq_cst", 8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def compare_exchange(typingctx, arr, i, expected, value):  # type: ignore[no-untyped-def]
    """``old = arr[i]; if old == expected: arr[i] = value; return old`` as one atomic operation."""
    if not _int64_vector(arr):
        return None
    sig = types.int64(arr, types.intp, types.int64, types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ptr = _pointer(context, builder, signature.args[0], args[0], args[1], signature.args[1])
        exp = context.cast(builder, args[2], signature.args[2], types.int64)
        val = context.cast(builder, args[3], signature.args[3], types.int64)
        pair = builder.cmpxchg(ptr, exp, val, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return sig, codegen
