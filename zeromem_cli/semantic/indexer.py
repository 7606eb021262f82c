"""Embedding the memories that have no vector of their current text: ``zeromem index`` (and
``gc``), after an import, an upgrade, a change of model, or writes made without the extra.

Resumable by construction: each batch is embedded outside any transaction, then written in a
short transaction of its own, and the next batch starts from the memories still without a
vector, so an interrupted run loses at most one batch of work and a second run picks up there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from zeromem_cli.errors import NotFoundError
from zeromem_cli.models import Scope
from zeromem_cli.semantic import blocks
from zeromem_cli.semantic.embedder import Embedder
from zeromem_cli.storage import vectors as stored
from zeromem_cli.storage.db import mapped_errors, read

BATCH = 32  # memories embedded, then written, at a time


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


def pending(store: Any, scope: Scope | None = None) -> int:
    """Live memories without a vector of their current text (``scope`` None: every scope)."""
    covered, total = coverage(store, scope)
    return total - covered


def coverage(store: Any, scope: Scope | None = None) -> tuple[int, int]:
    """(live memories with a current vector, live memories)."""
    now = store.now()
    return read(store.connection, store.path, lambda conn: stored.coverage(conn, scope, now))


def index(
    store: Any,
    embedder: Embedder,
    *,
    scope: Scope | None = None,
    progress: Callable[[int], None] | None = None,
    batch: int = BATCH,
) -> IndexReport:
    """Embed every live memory of ``scope`` (None: all) lacking a vector of its current text.
    ``progress(n)`` is told after each batch written, with the number of memories in it."""
    report = IndexReport()
    with mapped_errors(store.path):
        if stored.model(store.connection) not in (None, embedder.name):
            with store.transaction() as conn:
                stored.set_model(conn, embedder.name)  # another model's vectors: start over
    after = 0
    while True:
        rows = _batch(store, after, batch, scope)
        if not rows:
            break
        after = int(rows[-1]["id"])
        matrix = embedder.passages([row["content"] for row in rows])
        entries = [
            (int(row["id"]), int(row["content_hash"]), (row["user"], row["project"]))
            for row in rows
        ]
        with store.transaction() as conn:
            fresh = _still_current(conn, entries)
            if fresh:
                keep = [n for n, entry in enumerate(entries) if entry in fresh]
                blocks.put(conn, embedder.name, [entries[n] for n in keep], matrix[keep])
        report.embedded += len(fresh)
        if progress is not None:
            progress(len(rows))
    report.covered, report.total = coverage(store, scope)
    return report


def embed_some(
    store: Any,
    embedder: Embedder,
    memory_ids: Sequence[int],
    keep_going: Callable[[], bool],
    *,
    batch: int = 4,
) -> int:
    """Embed these memories of ``store``'s scope (just written without a vector: a harness
    hook's capture), newest first, a small batch at a time while ``keep_going()``; the
    number embedded. What is left waits for ``index`` or ``gc`` and is found by words."""
    embedded = 0
    wanted = sorted(dict.fromkeys(memory_ids), reverse=True)
    for start in range(0, len(wanted), batch):
        if not keep_going():
            break
        found = []
        for memory_id in wanted[start : start + batch]:
            try:
                found.append(store.get(memory_id))
            except NotFoundError:  # forgotten or merged meanwhile
                continue
        if not found:
            continue
        hashes = _hashes(store, [memory.id for memory in found])
        matrix = embedder.passages([memory.content for memory in found])
        entries = [
            (m.id, int(hashes[m.id]), (m.scope.user or "", m.scope.project or ""))
            for m in found
            if m.id in hashes
        ]
        keep = [n for n, m in enumerate(found) if m.id in hashes]
        with store.transaction() as conn:
            fresh = _still_current(conn, entries)
            rows = [n for n, entry in zip(keep, entries, strict=True) if entry in fresh]
            if rows:
                blocks.put(conn, embedder.name, [e for e in entries if e in fresh], matrix[rows])
        embedded += len(fresh)
    return embedded


def _hashes(store: Any, memory_ids: list[int]) -> dict[int, int]:
    return read(store.connection, store.path, lambda conn: stored.content_hashes(conn, memory_ids))


def _batch(store: Any, after: int, size: int, scope: Scope | None) -> list[Any]:
    """The next memories (ids above ``after``) without a current vector."""
    return read(
        store.connection, store.path, lambda conn: stored.unembedded(conn, after, size, scope)
    )


def _still_current(
    conn: Any, entries: list[tuple[int, int, tuple[str, str]]]
) -> set[tuple[int, int, tuple[str, str]]]:
    """The entries whose memory still has that text (another writer may have changed it
    while the batch was embedded)."""
    hashes = stored.content_hashes(conn, [entry[0] for entry in entries])
    return {entry for entry in entries if hashes.get(entry[0]) == entry[1]}
