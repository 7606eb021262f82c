"""Embedding the memories that have no vector of their current text: ``zeromem index`` (and
``gc``), after an import, an upgrade, a change of model, or writes made without the extra.

Resumable by construction: each batch is embedded outside any transaction, then written in a
short transaction of its own, and the next batch starts from the memories still without a
vector, so an interrupted run loses at most one batch of work and a second run picks up there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from zeromem_cli.models import Scope
from zeromem_cli.semantic import blocks
from zeromem_cli.semantic.embedder import Embedder

BATCH = 32  # memories embedded, then written, at a time

if TYPE_CHECKING:
    from zeromem_cli.storage.base import Backend

# What ``MemoryStore`` hands in beside its backend (whose ``read`` retries while busy and maps
# errors): its write transaction.
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


def coverage(backend: Backend, scope: Scope | None, now: datetime) -> tuple[int, int]:
    """(live memories of ``scope`` (None: all) with a current vector, live memories)."""
    return backend.vector_coverage(scope, now)


def index(
    backend: Backend,
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
    if backend.read(lambda it: it.vector_model()) not in (None, embedder.name):
        with transaction() as tx:
            tx.set_vector_model(embedder.name)  # another model's vectors: start over
    after = 0
    while True:
        # The read runs at once, with this pass's ``after``.
        rows = backend.read(lambda it: it.unembedded(after, batch, scope))  # noqa: B023
        if not rows:
            break
        after = int(rows[-1]["id"])
        matrix = embedder.passages([row["content"] for row in rows])
        entries = [
            (int(row["id"]), int(row["content_hash"]), (row["user"], row["project"]))
            for row in rows
        ]
        with transaction() as tx:
            fresh = _still_current(tx, entries)
            if fresh:
                keep = [n for n, entry in enumerate(entries) if entry in fresh]
                blocks.put(tx, embedder.name, [entries[n] for n in keep], matrix[keep])
        report.embedded += len(fresh)
        if progress is not None:
            progress(len(rows))
    report.covered, report.total = backend.read(lambda it: coverage(it, scope, now))
    return report


def embed_some(
    backend: Backend,
    transaction: Transaction,
    embedder: Embedder,
    memory_ids: Sequence[int],
    keep_going: Callable[[], bool],
    *,
    batch: int = 4,
) -> int:
    """Embed these memories (just written without a vector: a harness hook's capture),
    newest first, a small batch at a time while ``keep_going()``; the number embedded.
    What is left waits for ``index`` or ``gc`` and is found by words."""
    embedded = 0
    wanted = sorted(dict.fromkeys(memory_ids), reverse=True)
    for start in range(0, len(wanted), batch):
        if not keep_going():
            break
        ids = wanted[start : start + batch]
        # Only the live ones (forgotten or merged meanwhile: no hash), newest first.
        hashes = backend.read(lambda it: it.content_hashes(ids))  # noqa: B023
        found = sorted(
            (m for m in backend.read(lambda it: it.by_ids(ids)) if m.id in hashes),  # noqa: B023
            key=lambda m: -m.id,
        )
        if not found:
            continue
        matrix = embedder.passages([memory.content for memory in found])
        entries = [
            (m.id, int(hashes[m.id]), (m.scope.user or "", m.scope.project or "")) for m in found
        ]
        with transaction() as tx:
            fresh = _still_current(tx, entries)
            if fresh:
                keep = [n for n, entry in enumerate(entries) if entry in fresh]
                blocks.put(tx, embedder.name, [entries[n] for n in keep], matrix[keep])
        embedded += len(fresh)
    return embedded


def _still_current(
    backend: Backend, entries: list[tuple[int, int, tuple[str, str]]]
) -> set[tuple[int, int, tuple[str, str]]]:
    """The entries whose memory still has that text (another writer may have changed it
    while the batch was embedded)."""
    hashes = backend.content_hashes([entry[0] for entry in entries])
    return {entry for entry in entries if hashes.get(entry[0]) == entry[1]}
