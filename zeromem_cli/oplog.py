"""The operations log: what zeromem did (op, time, result count, tokens pack printed), never
content.

`stats` reads it to compare what `pack` prints with what pasting every memory would cost. It is
best effort by design: a log write never fails or noticeably slows the command it records. It
waits at most ``LOCK_WAIT_MS`` for the write lock, skips itself on any database error, and keeps
only the newest ``MAX_ENTRIES`` rows. ``log.enabled = false`` (config) turns it off.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from zeromem_cli.plain import Record
from zeromem_cli.storage.db import BUSY_TIMEOUT_SECONDS
from zeromem_cli.times import to_iso

if TYPE_CHECKING:
    from zeromem_cli.store import MemoryStore

MAX_ENTRIES = 10_000
LOCK_WAIT_MS = 200
_BUSY_TIMEOUT_MS = int(BUSY_TIMEOUT_SECONDS * 1000)  # the usual one, restored after a log write


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
    if not enabled:
        return False
    conn = store.connection
    try:
        conn.execute(f"PRAGMA busy_timeout = {LOCK_WAIT_MS}")
        # No fsync for this commit (WAL with synchronous=NORMAL): a log entry is not worth a
        # disk flush on every search, and the checkpoint when the store closes (back under
        # FULL) flushes it with everything else.
        conn.execute("PRAGMA synchronous = NORMAL")
        try:
            with store.transaction() as tx:
                cursor = tx.execute(
                    "INSERT INTO operations_log (at, op, result_count, tokens) VALUES (?, ?, ?, ?)",
                    (to_iso(store.now()), op, int(result_count), int(tokens)),
                )
                if cursor.lastrowid is not None and cursor.lastrowid % 100 == 0:
                    tx.execute(
                        "DELETE FROM operations_log WHERE id <= ?",
                        (cursor.lastrowid - MAX_ENTRIES,),
                    )
        finally:
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
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
        rows = store.connection.execute(
            "SELECT op, count(*), coalesce(sum(result_count), 0), coalesce(sum(tokens), 0) "
            "FROM operations_log GROUP BY op ORDER BY op"
        ).fetchall()
    except sqlite3.Error:
        return {}
    return {r[0]: OperationSummary(r[0], r[1], r[2], r[3]) for r in rows}


__all__ = ["record_operation", "summarize", "OperationSummary", "MAX_ENTRIES"]
