"""An atomic add on an int64 array entry, for compiled code that several threads run at once.

The batched simulator's threads each make one call of ``batch.advance_shared`` per step and take chunks of games
from a shared counter with :func:`fetch_add` inside the compiled code, instead of one Python call (and one numba
dispatch of two dozen arguments, holding the GIL) per chunk.  Sequentially consistent, so a thread that reads a
counter the others added to also sees everything they wrote before adding.
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
