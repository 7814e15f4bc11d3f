"""A batched env's threaded steps: the helper threads' team and the caller's wait for them."""
from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np

from .. import _threads
from ..core import batch as K
from ..players import batch_play as P


class _StepTeam:
    """One env's threaded steps: the control array its threads share (``core.batch.C_*``), the buffers the step's
    rows and actions are copied into for the helpers, and the arrays every compiled call of the team takes (a
    new team is made when one of them is replaced, e.g. a new opponent pool).

    The caller publishes a step (``batch.publish``), then runs its part (``batch.advance_lead``); helpers that are
    not spinning for steps (the first step, or after an idle millisecond) are woken through
    ``_threads.helpers``.  No result depends on which thread ran which games."""

    def __init__(self, threads: int, head: tuple, arrays: tuple, capacity: int):
        self.threads = threads
        self.head, self.arrays = head, arrays
        self.ctrl = np.zeros(K.control_len(threads), dtype=np.int64)
        self.rows_buf = np.zeros(capacity, dtype=np.int64)
        self.actions_buf = np.zeros(capacity, dtype=np.int64)
        self.gen = 0
        self.error: BaseException | None = None
        self.pid = os.getpid()
        # the caller's time between two steps (a moving average): the helpers spin through it when it is short
        self.gap = 0.0
        self.last_end: float | None = None
        # compile (or load from the cache) the helpers' loop here: a helper thread compiling it would help with
        # nothing for seconds, and a daemon thread inside LLVM when the interpreter exits aborts the process
        self.ctrl[K.C_STOP] = 1
        self.spin(1)
        self.ctrl[K.C_STOP] = 0

    def serves(self, head: tuple, arrays: tuple) -> bool:
        """Whether this team's calls take exactly these arrays (and its helpers live in this process)."""
        return (self.pid == os.getpid() and all(a is b for a, b in zip(head, self.head))
                and all(a is b for a, b in zip(arrays, self.arrays)))

    # -- the helpers' side (``_threads.HelperPool``)
    def spin(self, index: int) -> None:
        P.helper_spin(self.ctrl, index, self.threads, *self.head, self.rows_buf, self.actions_buf, *self.arrays)

    def fail(self, exc: BaseException) -> None:
        self.error = exc
        self.ctrl[K.C_ERROR] = 1

    def stop(self) -> None:
        self.ctrl[K.C_STOP] = 1

    # -- the caller's side
    def run(self, rows: np.ndarray, actions: np.ndarray, mode: int) -> int:
        """Step ``rows`` on every thread; returns the games left waiting for a seed-list refill."""
        if self.error is not None:
            raise RuntimeError("a helper thread of this env failed earlier (its games may be part-stepped): make a "
                               "new env, or use num_threads=1") from self.error
        now = time.perf_counter()
        if self.last_end is not None:  # clipped: one long pause (the env left idle for a while) counts as two spins
            self.gap += 0.3 * (min(now - self.last_end, 2 * _threads.HELPER_SPIN_SECONDS) - self.gap)
        spins = _threads.helper_spins() if self.gap < _threads.HELPER_SPIN_SECONDS else 0
        self.gen += 1
        n, na = rows.shape[0], actions.shape[0]
        # no step of this team is running (the last one ended with every game done), so no thread reads these
        self.rows_buf[:n] = rows
        self.actions_buf[:na] = actions
        if K.publish(self.ctrl, self.gen, self.threads, n, na, mode, _threads.claim_size(n, self.threads), spins):
            self.ctrl[K.C_STOP] = 0  # a helper is asleep: wake it (the step is published: it starts on it)
            _threads.helpers.wake(self, range(1, self.threads))
        if not P.advance_lead(self.ctrl, self.gen, self.threads, _threads.SETTLE_SPINS, *self.head, self.rows_buf,
                              self.actions_buf, *self.arrays):
            _await_step(self.ctrl, n, lambda: self.error)
        self.last_end = time.perf_counter()
        return int(self.ctrl[K.C_DRY])


def _await_step(ctrl: np.ndarray, n: int, error: Callable[[], BaseException | None]) -> None:
    """Until every game of the step ``ctrl`` published is done: a helper holds a chunk (it is running it, or the OS
    has descheduled it); short sleeps, so a busy machine's scheduler can run it.  A failed helper (``C_ERROR``) is
    raised, not waited for.  An interrupt (Ctrl-C) is raised only once the helpers are out of the step's games, so
    that the next step never overlaps them."""
    interrupted: BaseException | None = None
    while not K.wait_done(ctrl, n, _threads.SETTLE_SPINS):
        if ctrl[K.C_ERROR]:
            raise RuntimeError("a helper thread failed while stepping; its games were left part-stepped") \
                from error()
        try:
            time.sleep(0)
        except BaseException as exc:  # noqa: BLE001 - re-raised below, once the step is whole
            interrupted = exc
    if interrupted is not None:
        raise interrupted
