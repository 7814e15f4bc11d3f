"""Threads for the batched simulator: chunks of games handed to a small pool of Python threads.

The batch kernels are compiled with ``nogil=True``, so plain Python threads run them in parallel.  This replaces
numba's ``parallel=True`` threading layers, which were unsafe by default:

* numba's OpenMP layer shares the OpenMP runtime with torch (both load ``libgomp.so.1``), and its busy-waiting
  workers made a batch on a loaded machine 14-20x slower than one thread; the wait policy that fixes it
  (``OMP_WAIT_POLICY``) is read once per process and would change torch's behaviour too.
* ``numba.set_num_threads`` is process-wide state that every other numba user in the process shares.

Here nothing outside this module changes: no environment variable, no runtime's thread count.  Work is split into
more chunks than threads and every thread, the caller's included, claims the next unclaimed chunk; a thread that
the OS does not schedule (a busy machine) just claims fewer chunks and the caller does the rest, so a call is never
much slower than running it on one thread.  That pool's idle workers sleep on a condition variable.

The simulator's step claims its chunks inside the compiled code (``players.batch_play.advance_lead``, ``helper_spin``):
each thread takes pieces of the batch from atomic counters until none is left, so the work is handed out once per
thread, not once per chunk.  Between steps the helper threads stay in their compiled call and spin (without the
GIL, for about a millisecond, :data:`HELPER_SPIN_SECONDS`) for the next step, which the caller publishes by
raising a counter: waking a sleeping thread cost 100-300 microseconds on the AMD EPYC development VM, up to half
of a 1,024-game step.  A helper that has stopped spinning sleeps until the caller wakes it (:class:`HelperPool`).
"""
from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable
from typing import Protocol

ENV_VAR = "UNO_ENV_NUM_THREADS"
MAX_THREADS = 1024  # each thread is an OS thread started on the first threaded step: a typo must not start millions
MIN_CHUNK = 64  # games per chunk at least: below that a chunk costs more to hand over than to run
CHUNKS_PER_THREAD = 4  # several chunks per thread so that a descheduled thread holds back little work
# games per piece that threads claim inside a compiled call (``core.batch.claim``): claiming costs a
# fraction of a microsecond, so pieces can be small; a big batch's pieces stay long enough for the kernel's
# prefetching, which starts over at every piece
MIN_CLAIM = 32
CLAIMS_PER_THREAD = 16
# reads of the shared counter the caller makes while a helper finishes its last chunk, before it sleeps: about 75
# microseconds on the Intel VM (an atomic read takes 9 ns), a few chunks of 32 games
SETTLE_SPINS = 8000
# how long a helper spins for the next step after its last one before it goes to sleep: longer than the Python
# between two steps of a 1,024-game batch with a cheap policy (0.1-0.3 ms), short enough that an env that stops
# stepping (an update, an evaluation, a busy machine where the runner keeps to one thread) soon frees the CPU
HELPER_SPIN_SECONDS = 0.001


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask, which container CPU pinning sets), at least 1."""
    try:
        return min(max(1, len(os.sched_getaffinity(0))), MAX_THREADS)
    except (AttributeError, OSError):  # pragma: no cover - platforms without sched_getaffinity
        return min(max(1, os.cpu_count() or 1), MAX_THREADS)


def default_num_threads() -> int:
    """``$UNO_ENV_NUM_THREADS`` if set, else the number of usable CPUs."""
    raw = os.environ.get(ENV_VAR, "").strip()
    if not raw:
        return available_cpus()
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_THREADS:
        raise ValueError(f"environment variable {ENV_VAR}={raw!r}: expected a positive integer (at most "
                         f"{MAX_THREADS}; threads of the batched simulator), e.g. {ENV_VAR}=1")
    return value


def resolve_num_threads(num_threads: object) -> int:
    """Validate a ``num_threads=`` argument; None means :func:`default_num_threads`."""
    if num_threads is None:
        return default_num_threads()
    is_int = isinstance(num_threads, int) and not isinstance(num_threads, bool) or _is_np_int(num_threads)
    if not is_int or not 1 <= int(num_threads) <= MAX_THREADS:  # type: ignore[call-overload]
        raise ValueError(f"num_threads must be a positive integer (at most {MAX_THREADS}) or None (None: ${ENV_VAR} "
                         f"if set, else the number of usable CPUs); got {num_threads!r}")
    return int(num_threads)  # type: ignore[call-overload]


def _is_np_int(x: object) -> bool:
    import numpy as np

    return isinstance(x, np.integer)


def chunk_bounds(n: int, threads: int) -> list[tuple[int, int]]:
    """Split ``range(n)`` into contiguous chunks for ``threads`` threads (one chunk when threading cannot pay)."""
    if threads <= 1 or n < 2 * MIN_CHUNK:
        return [(0, n)]
    count = min(threads * CHUNKS_PER_THREAD, n // MIN_CHUNK)
    step, extra = divmod(n, count)
    bounds, lo = [], 0
    for i in range(count):
        hi = lo + step + (1 if i < extra else 0)
        bounds.append((lo, hi))
        lo = hi
    return bounds


class _Job:
    __slots__ = ("fn", "count", "next", "total", "finished", "lock", "done", "error")

    def __init__(self, fn: Callable[[int], int], count: int):
        self.fn, self.count = fn, count
        self.next = itertools.count()  # next(...) is atomic under the GIL: each chunk is claimed once
        self.total = 0
        self.finished = 0
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.error: BaseException | None = None

    def work(self, index: int = 0) -> None:
        while True:
            i = next(self.next)
            if i >= self.count:
                return
            result = 0
            try:
                if self.error is None:
                    result = self.fn(i)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, which re-raises it
                self.error = exc
            with self.lock:
                self.total += result
                self.finished += 1
                if self.finished == self.count:
                    self.done.set()


class _Pool:
    """Worker threads (daemons, started on first use) that help the calling thread through one job at a time."""

    def __init__(self) -> None:
        self._busy = threading.Lock()
        self._cv = threading.Condition()
        self._generation = 0  # bumped per job: a worker wakes once per job, never for a stale signal
        self._workers: list[threading.Thread] = []
        self._job: _Job | None = None

    def _worker(self, index: int) -> None:
        seen = 0
        while True:
            with self._cv:
                while self._generation == seen:
                    self._cv.wait()
                seen = self._generation
                job = self._job
            if job is not None:
                job.work(index)

    def run(self, fn: Callable[[int], int], count: int, threads: int) -> int:
        """``sum(fn(i) for i in range(count))``, the calls spread over up to ``threads`` threads."""
        helpers = min(threads, count) - 1
        # a second caller (another Python thread) while a job runs does its work alone rather than wait
        if helpers <= 0 or not self._busy.acquire(blocking=False):
            return sum(fn(i) for i in range(count))
        job = _Job(fn, count)
        self._run_job(job, helpers)
        return job.total

    def _run_job(self, job: _Job, helpers: int) -> None:
        """Start ``helpers`` workers on ``job`` (the pool is already ``_busy``), work on it on the calling thread too,
        wait for it to be done and release the pool; an error of any thread is raised here."""
        try:
            self._start_helpers(job, helpers)
            job.work()
            job.done.wait()
        except BaseException as exc:  # e.g. Ctrl-C: stop handing out work, let the running calls end
            if job.error is None:
                job.error = exc
            job.done.wait(timeout=1.0)
            raise
        finally:
            self._job = None
            self._busy.release()
        if job.error is not None:
            raise job.error

    def _start_helpers(self, job: _Job, helpers: int) -> None:
        while len(self._workers) < helpers:
            t = threading.Thread(target=self._worker, args=(len(self._workers) + 1,),
                                 name=f"uno-env-worker-{len(self._workers)}", daemon=True)
            t.start()
            self._workers.append(t)
        with self._cv:
            self._job = job
            self._generation += 1
            self._cv.notify(helpers)


class HelperPool:
    """Threads (daemons, started on first use) that run helper jobs: ``job.spin(index)``, a compiled loop that
    helps with one env's steps and returns once it has spun idle for a while (``players.batch_play.helper_spin``).

    Helper ``index`` (1, 2, ...) is always the same thread, so a helper's share of a batch stays in its core's
    caches.  :meth:`wake` hands helpers a job; a helper still spinning for another job is asked to leave it
    (``job.stop()``) first.  An exception in ``job.spin`` goes to ``job.fail(exc)``, which the job's caller
    raises instead of waiting."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._threads: dict[int, threading.Thread] = {}
        self._pending: dict[int, _HelperJob] = {}
        self._running: dict[int, _HelperJob] = {}

    def wake(self, job: _HelperJob, indices: range) -> None:
        with self._cv:
            for index in indices:
                running = self._running.get(index)
                if running is not None and running is not job:
                    running.stop()
                self._pending[index] = job
                if index not in self._threads:
                    t = threading.Thread(target=self._worker, args=(index,), name=f"uno-env-helper-{index}",
                                         daemon=True)
                    self._threads[index] = t
                    t.start()
            self._cv.notify_all()

    def _worker(self, index: int) -> None:
        while True:
            with self._cv:
                while index not in self._pending:
                    self._cv.wait()
                job = self._pending.pop(index)
                self._running[index] = job
            try:
                job.spin(index)
            except BaseException as exc:  # noqa: BLE001 - handed to the job's caller, which re-raises it
                job.fail(exc)
            finally:
                with self._cv:
                    if self._running.get(index) is job:
                        del self._running[index]
            del job  # an env's arrays are not kept alive by an idle helper


class _HelperJob(Protocol):
    def spin(self, index: int) -> None: ...
    def fail(self, exc: BaseException) -> None: ...
    def stop(self) -> None: ...


_pool = _Pool()
helpers = HelperPool()


def _reset_after_fork() -> None:
    # threads do not survive fork(): a child (SubprocVecEnv, multiprocessing workers) starts its own pool
    global _pool, helpers
    _pool = _Pool()
    helpers = HelperPool()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


_spins: int | None = None


def helper_spins() -> int:
    """How many reads a helper's spin loop makes in :data:`HELPER_SPIN_SECONDS` (timed once per process)."""
    global _spins
    if _spins is None:
        import numpy as np

        from .core import batch as K

        ctrl = np.zeros(K.control_len(1), dtype=np.int64)
        K.spin_probe(ctrl, 1000)  # compiled (or loaded from the cache) outside the timing
        probe = 200_000
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            K.spin_probe(ctrl, probe)
            best = min(best, time.perf_counter() - start)
        _spins = max(1000, int(probe * HELPER_SPIN_SECONDS / max(best, 1e-9)))
    return _spins


def claim_size(n: int, threads: int) -> int:
    """Games per piece of work that threads claim from a shared counter: small enough that a thread the OS
    deschedules holds back little, large enough that claiming costs nothing next to running them."""
    return max(MIN_CLAIM, -(-n // (threads * CLAIMS_PER_THREAD)))


def run_chunks(fn: Callable[[int, int], int], n: int, threads: int) -> int:
    """``sum(fn(lo, hi))`` over chunks ``[lo, hi)`` covering ``range(n)``, on up to ``threads`` threads."""
    bounds = chunk_bounds(n, threads)
    if len(bounds) == 1:
        return fn(0, n)
    return _pool.run(lambda i: fn(*bounds[i]), len(bounds), threads)


class Runner:
    """Runs a batch's chunks on up to ``num_threads`` threads, or on the calling thread alone when that is faster.

    Even with work handed out in chunks, a helper thread that the OS preempts in the middle of a chunk holds the
    whole call up until it runs again: on a machine with more runnable threads than CPUs, threads then lose to
    one thread.  So the runner times its calls (seconds per game, a moving average for each way of running) and
    uses the faster way, trying the other one for ``EXPLORE_CALLS`` calls every ``EXPLORE_EVERY`` calls to notice
    when the load changes (an exploring call can only lower the other way's estimate, so threads come back within
    one exploration once a machine is quiet again).  A single call more than twice as slow as the average is left
    out of it (a helper the OS ran late once); two in a row count.  Which way a call runs never changes its
    results.
    """

    EXPLORE_EVERY = 32
    # calls in a row that an exploration of the threads makes: the first threaded call after the helpers slept for
    # a while pays their wake-up (measured: it made the runner keep to one thread on a quiet machine), the next
    # ones do not.  An exploration of the calling thread alone is one call: a second one let the helpers' spin
    # (``HELPER_SPIN_SECONDS``) run out, so the next threaded call paid a wake-up and looked slower than it is
    EXPLORE_CALLS = 2
    ALPHA = 0.3  # weight of a new timing in the moving average

    def __init__(self, num_threads: int):
        self.num_threads = num_threads
        self._cost: list[float | None] = [None, None]  # seconds per game: calling thread alone, all threads
        self._seen = [0, 0]  # timed calls per way (the first of each is a warm-up and not used)
        self._calls = 0
        self._explore_way = 0
        self._explore_left = 0  # calls left in the current exploration
        self._slow_once = [False, False]  # whether the way's last call was an outlier left out of its average

    @property
    def threaded_share(self) -> float | None:
        """Estimated time of a threaded call relative to one on the calling thread (None: not measured yet)."""
        one, many = self._cost
        return None if one is None or many is None else many / one

    def one_chunk(self, n: int) -> bool:
        """Whether :meth:`run` does ``n`` games in one call on the calling thread (one thread, or too few games)."""
        return self.num_threads <= 1 or n < 2 * MIN_CHUNK

    def run(self, fn: Callable[[int, int], int], n: int) -> int:
        """``sum(fn(lo, hi))`` over chunks covering ``range(n)``."""
        if self.one_chunk(n):
            return fn(0, n)
        return self.either(lambda: fn(0, n), lambda: run_chunks(fn, n, self.num_threads), n)

    def either(self, alone: Callable[[], int], threaded: Callable[[], int], n: int) -> int:
        """``alone()`` or ``threaded()``, whichever has been faster (two ways of doing the same ``n`` games)."""
        self._calls += 1
        one, many = self._cost
        exploring = self._explore_left > 0
        if exploring:
            way = self._explore_way
            self._explore_left -= 1
        elif one is None or many is None:
            way = 0 if self._seen[0] <= self._seen[1] else 1
        else:
            way = 1 if many < one else 0
            if self._calls % self.EXPLORE_EVERY == 0:
                way, exploring = 1 - way, True
                self._explore_way, self._explore_left = way, (self.EXPLORE_CALLS if way == 1 else 1) - 1
        start = time.perf_counter()
        result = alone() if way == 0 else threaded()
        cost = (time.perf_counter() - start) / n
        self._seen[way] += 1
        if self._seen[way] > 1:
            old = self._cost[way]
            if old is None:
                self._cost[way] = cost
            elif exploring:
                # optimistic for the way not in use: its average dates from the last time it was used (often a
                # busier moment), and one slow sample is mostly noise; if it is better now it gets used, and its
                # average follows every call from then on
                self._cost[way] = min(old, cost)
            elif cost > 2.0 * old and not self._slow_once[way]:
                # one slow call (a helper the OS ran late once on a quiet machine) used to tip the runner to one
                # thread until the next exploration, 32 calls later; a loaded machine makes slow calls in a row,
                # and the second one counts in full
                self._slow_once[way] = True
            else:
                self._slow_once[way] = False
                self._cost[way] = old + self.ALPHA * (cost - old)
        return result
