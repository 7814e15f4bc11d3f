"""The rules core's compile decorators: numba's ``njit`` without, and (for code that allocates) with, reference
counting of arrays.

numba counts the references to an array's memory: a compiled function that receives an array adds one to the
count (an atomic add on the array's shared counter) and subtracts it again when it returns, unless its optimiser
proves the pair useless, which it cannot across the many branches of a rule.  The rules hand the state row, the
options, the kind table, the dice, the PRNG word, the mask and the rewards to dozens of small functions per step,
so a step paid for a hundred or so atomic operations on a few shared counters.  Measured (``perf`` on UNO Dice,
2 players, 128 games, one thread, Intel Xeon VM): 45-50% of the batched step's samples were in ``NRT_incref`` /
``NRT_decref``.  Without the counting, B=1024 ran 3.0x (classic), 3.1x (pocket) and 2.0x (UNO Dice) the steps per
CPU-second on that machine, idle (``benchmarks/results/bench_ab_dice7_61ddd18.txt``; ``docs/benchmarks.md``).

Nothing in the rules needs the count: every array they read or write belongs to their caller (Python or a batch
kernel) for the whole call, and they allocate nothing.  The compiled players and the search's simulations
(``uno_env.players``) do not allocate either: their work arrays (``players/workspace.py``) come from a thin entry
point compiled with :func:`njit_refcounted` (``batch_play.advance``, ``baselines.baseline_actions``,
``search.search``, ...) that allocates them once per call and hands them to the loop compiled with :func:`njit`.
A function compiled with :func:`njit` that tries to allocate does not compile (numba refuses ``np.empty`` and the
like without reference counting, and so a slice copy between two arrays, ``a[:] = b``, which numba makes through a
temporary in case they overlap: such copies are loops), so a missing count fails loudly, never as a leak.
Functions marked ``inline="always"`` take their caller's setting.

The flag must be explicit on every compiled function of the core: numba compiles a function that leaves it
unset with the setting of whichever caller compiled it first, so one path's choice would leak into another's.
"""
from __future__ import annotations

from typing import Any

import numba

_numba_njit: Any = numba.njit  # typed as Any: numba's type stubs do not list its ``_nrt`` option


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit`` compiled without reference counting of arrays (the rules, the observer, the batch loops)."""
    return _numba_njit(*args, _nrt=False, **kwargs)


def njit_refcounted(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit`` with reference counting, for functions that allocate arrays."""
    return _numba_njit(*args, _nrt=True, **kwargs)
