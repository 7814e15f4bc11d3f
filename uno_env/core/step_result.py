"""What a step of the compiled core returns, and the one function that reads it.

``engine.step_masked`` (and ``observe.step_and_observe`` over it) returns one int, ``status | rewarded << 2 |
done << 3 | seat << 8``, so that a step costs no tuple (``engine.step_one`` returns the status alone): the shells
(AEC, OpenSpiel), the arena's games, its lockstep games and the compiled observer all read it with
:func:`decode_step` (compiled code with :func:`decode_step_compiled`, the same function; the AEC env's step loop
with :data:`STEP_RESULTS`, its values for every code).
"""
from __future__ import annotations

from ._jit import njit
from .layout import MAX_PLAYERS


def decode_step(code: int) -> tuple[int, bool, int, int]:
    """``(status, rewarded, done, seat)`` of a step's result code.

    ``status``: ``layout.OK`` (0) or why the action was refused (``ERR_ILLEGAL``, ``ERR_RANGE``, ``ERR_OVER``; the
    state is then unchanged); ``rewarded``: the step paid rewards (they are in the caller's reward array);
    ``done``: 0 while the episode runs, 1 terminated, 2 truncated (``max_turns``); ``seat``: the seat to act next
    (the last one to act once the episode is over).
    """
    return code & 3, (code & 4) != 0, (code >> 3) & 3, code >> 8


#: :func:`decode_step` for compiled callers (inlined where it is called)
decode_step_compiled = njit(inline="always")(decode_step)

#: :func:`decode_step` of every code a step can return (the seat is below ``MAX_PLAYERS``), for the per-step Python
#: loops (the AEC env): ``STEP_RESULTS[code]`` is a tuple index, where a call of :func:`decode_step` cost the AEC
#: env's step loop 2% of its speed
STEP_RESULTS = tuple(decode_step(code) for code in range(MAX_PLAYERS << 8))
