"""What a step of the compiled core returns, and the one function that reads it.

``engine.step_masked`` (and ``observe.step_and_observe`` over it) returns one int, ``status | rewarded << 2 |
done << 3 | seat << 8``, so that a step costs no tuple (``engine.step_one`` returns the status alone): the shells
(AEC, OpenSpiel), the arena's games, its lockstep games and the compiled observer all read it with
:func:`decode_step` (compiled code with :func:`decode_step_compiled`, the same function).
"""
from __future__ import annotations

from ._jit import njit


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
