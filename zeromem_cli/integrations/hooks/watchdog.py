"""The hard time limit of a hook run: past ``hooks.timeout_ms`` the process ends, exit 0.

A timer thread, not a signal: SQLite waiting on a lock (its busy timeout is 30 s) sleeps in C,
where a Python signal handler would not run until it returns; the thread runs meanwhile,
because sqlite3 releases the GIL while it waits. When the time is up the thread writes the
harness's "nothing" answer and one line on stderr, then ``os._exit(0)``: no buffer is flushed,
so no partial answer ever reaches stdout, and an open write transaction simply rolls back.

The answer is written under a lock that the run takes before it prints its own: either the run
prints its answer or the watchdog prints nothing, never both.
"""

from __future__ import annotations

import os
import threading


class Watchdog:
    def __init__(self, seconds: float, nothing: str, label: str) -> None:
        self._nothing = nothing
        self._label = label
        self.answer_lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._seconds = seconds

    def start(self) -> Watchdog:
        self._timer.start()
        return self

    def cancel(self) -> None:
        self._timer.cancel()

    def _expire(self) -> None:
        if not self.answer_lock.acquire(blocking=False):
            return  # the run is printing its answer: let it finish
        line = f"zeromem hook {self._label}: timed out after {self._seconds * 1000:.0f} ms\n"
        try:
            if self._nothing:
                os.write(1, self._nothing.encode())
            os.write(2, line.encode())
        finally:
            os._exit(0)
