"""Embedding the memories that have no vector of their current text: ``zeromem index`` (and
``gc``), after an import, an upgrade, a change of model, or writes made without the extra.

Resumable by construction: each batch is embedded outside any transaction, then written in a
short transaction of its own, and the next batch starts from the memories still without a
vector, so an interrupted run loses at most one batch of work and a second run picks up there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from zeromem_cli.models import Scope
from zeromem_cli.semantic import blocks
from zeromem_cli.semantic.embedder import Embedder
from zeromem_cli.storage import vectors as stored

BATCH = 32  # memories embedded, then written, at a time

T = TypeVar("T")
# What ``MemoryStore`` hands in: a read of its connection (busy retry, mapped errors) and a
# write transaction; the indexer never holds the connection itself.
Read = Callable[[Callable[[Any], T]], T]
Transaction = Callable[[], Any]


@dataclass
class IndexReport:
    embedded: int = 0
    covered: int = 0  # live memories with a current vector, after the run
    total: int = 0  # live memories

    def summary(self) -> str:
        return (
            f"index: embedded {self.embedded} memories; {self.covered} of {self.total} "
            "live memories have a vector"
        )


def coverage(conn: Any, scope: Scope | None, now: datetime) -> tuple[int, int]:
    """(live memories of ``scope`` (None: all) with a current vector, live memories)."""
    return stored.coverage(conn, scope, now)


def index(
    read: Read[Any],
    transaction: Transaction,
    embedder: Embedder,
    now: datetime,
    scope: Scope | None = None,
    progress: Callable[[int], None] | None = None,
    batch: int = BATCH,
) -> IndexReport:
    """Embed every live memory of ``scope`` (None: all) lacking a vector of its current text.
    ``progress(n)`` is told after each batch written, with the number of memories in it."""
    report = IndexReport()
    if read(stored.model) not in (None, embedder.name):
        with transaction() as conn:
            stored.set_model(conn, embedder.name)  # another model's vectors: start over
    after = 0
    while True:
        # The read runs at once, with this pass's ``after``.
        rows = read(lambda conn: stored.unembedded(conn, after, batch, scope))  # noqa: B023
        if not rows:
            break
        after = int(rows[-1]["id"])
        matrix = embedder.passages([row["content"] for row in rows])
        entries = [
            (int(row["id"]), int(row["content_hash"]), (row["user"], row["project"]))
            for row in rows
        ]
        with transaction() as conn:
            fresh = _still_current(conn, entries)
            if fresh:
                keep = [n for n, entry in enumerate(entries) if entry in fresh]
                blocks.put(conn, embedder.name, [entries[n] for n in keep], matrix[keep])
        report.embedded += len(fresh)
        if progress is not None:
            progress(len(rows))
    report.covered, report.total = read(lambda conn: coverage(conn, scope, now))
    return report


def _still_current(
    conn: Any, entries: list[tuple[int, int, tuple[str, str]]]
) -> set[tuple[int, int, tuple[str, str]]]:
    """The entries whose memory still has that text (another writer may have changed it
    while the batch was embedded)."""
    hashes = stored.content_hashes(conn, [entry[0] for entry in entries])
    return {entry for entry in entries if hashes.get(entry[0]) == entry[1]}
