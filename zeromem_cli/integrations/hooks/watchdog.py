"""The hard time limit of a hook run: past ``hooks.timeout_ms`` of work the process ends, exit 0.

What is limited is the run's own work, its CPU time (``time.process_time``): a loaded machine
that gives the hook a slower share of its cores must not drop the injection. A run that
waits without working (SQLite waiting on another process's lock: its busy timeout is 30 s) is
limited by the time it spent blocked instead, two seconds past the limit: under the timeout
``setup`` writes for the harness (``setup.targets``: the limit plus three seconds). Blocked is
wall time less the time the run's thread ran and the time it sat ready in the run queue
(Linux's ``/proc/self/task/<tid>/schedstat``): at load 20 a hook waited for a CPU for over
two seconds without blocking at all, and must not be taken for one stuck on a lock. Where
schedstat is missing, wall time stands in for blocked time.

A thread, not a signal: SQLite waiting on a lock sleeps in C, where a Python signal handler
would not run until it returns; the thread runs meanwhile, because sqlite3 releases the GIL
while it waits. When the time is up the thread writes the harness's "nothing" answer and one
line on stderr, then ``os._exit(0)``: no buffer is flushed, so no partial answer ever reaches
stdout, and an open write transaction simply rolls back.

The answer is written under a lock that the run takes before it prints its own: either the run
prints its answer or the watchdog prints nothing, never both.
"""

from __future__ import annotations

import os
import threading
import time

# How often the watchdog looks at the clocks, in seconds.
TICK = 0.05
# Wall time allowed past the CPU limit, in seconds (a run waiting on a lock).
WALL_GRACE = 2.0


class Watchdog:
    def __init__(self, seconds: float, nothing: str, label: str) -> None:
        self._nothing = nothing
        self._label = label
        self.answer_lock = threading.Lock()
        self._seconds = seconds
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def start(self) -> Watchdog:
        """Start watching the calling thread's run (call it from the thread doing the work)."""
        self._schedstat = f"/proc/self/task/{threading.get_native_id()}/schedstat"
        self._cpu_start = time.process_time()
        self._wall_start = time.monotonic()
        self._busy_start = _busy(self._schedstat)
        self._thread.start()
        return self

    def cancel(self) -> None:
        self._done.set()

    def _watch(self) -> None:
        while not self._done.wait(TICK):
            cpu = time.process_time() - self._cpu_start
            wall = time.monotonic() - self._wall_start
            if cpu > self._seconds:
                self._expire("of work")
                return
            if (
                wall > self._seconds + WALL_GRACE
                and self._blocked(wall) > self._seconds + WALL_GRACE
            ):
                self._expire(f"waiting ({wall * 1000:.0f} ms in all)")
                return

    def _blocked(self, wall: float) -> float:
        """Seconds the watched thread spent neither running nor ready to run (wall time
        where the kernel does not say)."""
        busy = _busy(self._schedstat)
        if busy is None or self._busy_start is None:
            return wall
        return wall - (busy - self._busy_start)

    def _expire(self, what: str) -> None:
        if not self.answer_lock.acquire(blocking=False):
            return  # the run is printing its answer: let it finish
        line = f"zeromem hook {self._label}: timed out after {self._seconds * 1000:.0f} ms {what}\n"
        try:
            if self._nothing:
                os.write(1, self._nothing.encode())
            os.write(2, line.encode())
        finally:
            os._exit(0)


def _busy(schedstat: str) -> float | None:
    """Seconds a thread has run plus waited in the run queue, from its schedstat line
    ("run_ns wait_ns slices"); None where the file is missing or unreadable."""
    try:
        with open(schedstat, encoding="ascii") as stat:
            ran, waited = stat.read().split()[:2]
        return (int(ran) + int(waited)) / 1e9
    except (OSError, ValueError):
        return None
