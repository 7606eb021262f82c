"""The operations log: what zeromem did (op, time, result count, tokens pack printed), never
content.

`stats` reads it to compare what `pack` prints with what pasting every memory would cost. It is
best effort by design: a log write never fails or noticeably slows the command it records. It
waits at most ``LOCK_WAIT_MS`` for the write lock, skips itself on any database error, and keeps
only the newest ``MAX_ENTRIES`` rows. ``log.enabled = false`` (config) turns it off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zeromem_cli.errors import StoreError
from zeromem_cli.plain import Record
from zeromem_cli.times import to_iso

if TYPE_CHECKING:
    from zeromem_cli.store import MemoryStore

MAX_ENTRIES = 10_000
LOCK_WAIT_MS = 200


def logging_enabled() -> bool:
    """``log.enabled`` from flags-free config resolution (env > file > default)."""
    from zeromem_cli.config import Config

    return bool(Config().get("log.enabled"))


def record_operation(
    store: MemoryStore,
    op: str,
    result_count: int = 0,
    tokens: int = 0,
    *,
    enabled: bool | None = None,
) -> bool:
    """Append one entry to the log; returns whether it was written.

    ``enabled=None`` reads ``log.enabled`` from the configuration.
    """
    if enabled is None:
        enabled = logging_enabled()
    if not enabled or not store.writable:  # a read-only database records nothing
        return False
    try:
        # Waits at most LOCK_WAIT_MS for the write lock, and no fsync for this commit: a log
        # entry is not worth a disk flush on every search (see ``Backend.best_effort_writes``).
        with store.backend.best_effort_writes(LOCK_WAIT_MS), store.transaction() as backend:
            backend.append(to_iso(store.now()), op, result_count, tokens, MAX_ENTRIES)
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


def summarize(store: MemoryStore) -> dict[str, OperationSummary]:
    """Per operation: how many times it ran, results and tokens in total."""
    try:
        with store.backend.mapped_errors():
            rows = store.backend.totals()
    except StoreError:
        return {}
    return {r[0]: OperationSummary(*r) for r in rows}


__all__ = ["record_operation", "summarize", "OperationSummary", "MAX_ENTRIES"]
