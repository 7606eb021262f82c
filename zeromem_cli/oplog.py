"""The operations log: what zeromem did (op, time, result count, tokens pack printed), never
content.

`stats` reads it to compare what `pack` prints with what pasting every memory would cost. It is
best effort by design: a log write never fails or noticeably slows the command it records. It
waits at most ``LOCK_WAIT_MS`` for the write lock, skips itself on any database error, and keeps
only the newest ``MAX_ENTRIES`` rows. The store writes it (``MemoryStore.operation``), never a
face; ``log.enabled = false`` (config) turns it off for every face (``StoreSettings.log``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING

from zeromem_cli.plain import Record
from zeromem_cli.times import to_iso

if TYPE_CHECKING:
    from zeromem_cli.storage.base import Backend

MAX_ENTRIES = 10_000
LOCK_WAIT_MS = 200


def record(
    backend: Backend,
    transaction: Callable[[], AbstractContextManager[Backend]],
    now: datetime,
    op: str,
    result_count: int = 0,
    tokens: int = 0,
) -> bool:
    """Append one entry to the log (``MemoryStore.operation`` calls this once per logged
    operation); returns whether it was written."""
    try:
        # Waits at most LOCK_WAIT_MS for the write lock, and no fsync for this commit: a log
        # entry is not worth a disk flush on every search (see ``Backend.best_effort_writes``).
        with backend.best_effort_writes(LOCK_WAIT_MS), transaction() as tx:
            tx.append(to_iso(now), op, result_count, tokens, MAX_ENTRIES)
    except Exception:  # a log entry is never worth failing the command it records
        return False
    return True


class OperationSummary(Record):
    """One operation's totals in the log."""

    __slots__ = ("op", "count", "results", "tokens")
    op: str
    count: int
    results: int
    tokens: int

    def __init__(self, op: str, count: int, results: int, tokens: int) -> None:
        self.op = op
        self.count = count
        self.results = results
        self.tokens = tokens

    @property
    def average_tokens(self) -> float:
        return self.tokens / self.count if self.count else 0.0


def summarize(backend: Backend) -> dict[str, OperationSummary]:
    """Per operation: how many times it ran, results and tokens in total."""
    return {r[0]: OperationSummary(*r) for r in backend.totals()}


__all__ = ["record", "summarize", "OperationSummary", "MAX_ENTRIES"]
