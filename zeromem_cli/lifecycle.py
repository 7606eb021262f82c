"""Forgetting in bulk, purging for good, and ``gc``: how memories leave the store.

A memory leaves in two steps. Soft deletion (``forget``, expiry, archiving) sets ``deleted_at``
and a ``deleted_reason`` (forgotten / expired / archived): the row, its history and its index
entries stay, and ``restore`` brings it back. Purging deletes the row, its history and its
FTS entries, with ``secure_delete`` on (freed bytes are zeroed), then rewrites the FTS index
(``optimize``, so no old segment keeps its tokens) and truncates the WAL, so the text is no
longer anywhere in the database files.

Bulk ``forget`` / purge runs in one transaction, whatever the number of memories. ``gc`` works in
short batches (one ``BEGIN IMMEDIATE`` each) so concurrent writers wait milliseconds, not the
whole run; every batch re-checks its condition under the write lock, so two gc runs at once never
process (or count) the same memory twice.

Called through ``MemoryStore`` (``select``, ``purge``, ``gc``), which owns the connection, the
scope, the clock and the error mapping and hands them in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from zeromem_cli import search
from zeromem_cli.errors import InvalidInputError, NotFoundError
from zeromem_cli.models import Memory, Scope
from zeromem_cli.times import to_iso

if TYPE_CHECKING:
    from zeromem_cli.storage.base import Backend
    from zeromem_cli.store import MemoryStore

Transaction = Callable[[], AbstractContextManager["Backend"]]

# Rows per gc transaction: large enough to be quick, small enough that a concurrent `add`
# never waits long for the write lock.
GC_BATCH = 500

LIVE, TRASH, ANY = "live", "trash", "any"


@dataclass
class Selection:
    """Which memories of the store's scope a ``forget`` acts on. Every given criterion must
    hold (they are AND-ed); ``everything`` must be set explicitly to select a whole scope."""

    ids: Sequence[int] = ()
    key: str | None = None
    query: str | None = None
    category: str | None = None
    tags: Sequence[str] = ()
    before: datetime | None = None
    everything: bool = False
    state: str = LIVE  # live, trash (soft-deleted only) or any
    limit: int | None = None  # with query: only the N best matches

    def check(self, verb: str = "forget") -> None:
        has_criterion = bool(
            self.ids or self.key or self.query or self.category or self.tags or self.before
        )
        if not (has_criterion or self.everything):
            raise InvalidInputError(
                f"say what to {verb}: ids, --key, --query, --category, --tag, --before, or --all"
            )
        if self.limit is not None and self.query is None:
            raise InvalidInputError("--limit needs --query (it keeps the N best matches)")
        if self.state not in (LIVE, TRASH, ANY):
            raise InvalidInputError(f"unknown selection state {self.state!r}")


def checked_ids(selection: Selection, verb: str = "forget") -> list[int]:
    """The selection's explicit ids, distinct, once the selection is checked (it says what to
    act on; every id is a positive whole number)."""
    selection.check(verb)
    ids = list(dict.fromkeys(selection.ids))
    for memory_id in ids:
        if isinstance(memory_id, bool) or not isinstance(memory_id, int) or memory_id < 1:
            raise InvalidInputError(f"not a memory id: {memory_id!r}")
    return ids


def holding_every_word(query: str, hits: list[Memory]) -> list[int]:
    """The ids of the hits holding every content word of ``query``, best first.

    A query selects only these, not everything ``search`` finds (``search``'s forms of a word
    count: case, accents, stems, spellings): search ORs the words, which is right for finding
    and wrong for deleting (``张伟的手机号`` would select every memory about 张伟)."""
    return [hit.id for hit in search.holding_every_word(query, hits)]


def select(
    backend: Backend,
    scope: Scope,
    selection: Selection,
    ids: list[int],
    ranked: list[int] | None,
) -> list[Memory]:
    """The memories ``selection`` picks in ``scope`` (expired ones included): in ``ranked``
    order when the selection has a query, otherwise oldest first. Explicit ids must all exist,
    in the selected state, or NotFoundError names the missing ones."""
    memories = backend.selected(
        scope,
        state=selection.state,
        ids=ids,
        key=selection.key,
        category=selection.category,
        tags=selection.tags,
        before=selection.before,
        ranked=ranked,
    )
    if ids:
        found = {m.id for m in memories}
        if selection.query is None and (missing := [i for i in ids if i not in found]):
            where = {LIVE: "in this scope", TRASH: "in the trash", ANY: "in this scope"}
            listed = ", ".join(f"#{i}" for i in missing)
            raise NotFoundError(f"no memory {listed} {where[selection.state]}")
    if ranked is not None:
        order = {memory_id: rank for rank, memory_id in enumerate(ranked)}
        memories.sort(key=lambda m: order[m.id])
        if selection.limit is not None:
            memories = memories[: selection.limit]
    return memories


def restore(store: MemoryStore, ids: Sequence[int]) -> list[Memory]:
    """Bring the soft-deleted memories among ``ids`` back, in one transaction (a key now held
    by a live memory refuses them all); the restored memories."""
    with store.transaction():
        return [store.restore(memory_id) for memory_id in dict.fromkeys(ids)]


@dataclass
class PurgeResult:
    purged: int
    wal_truncated: bool  # False: a reader kept the WAL busy; old pages may remain there


def checkpoint(backend: Backend) -> bool:
    """Copy the WAL into the main file and truncate it to zero bytes. Waits (busy timeout) for
    readers; returns False when one still held an old snapshot."""
    return backend.checkpoint()


def purge(backend: Backend, ids: Sequence[int], semantic: bool = False) -> int:
    """Delete memories for good (live or in the trash), inside the caller's transaction:
    rows, history, vectors and index entries go, and the index is rewritten so no old segment
    keeps their tokens. The caller truncates the WAL after the commit (``checkpoint``).
    ``semantic`` (the store uses semantic recall): only these vectors leave their blocks;
    otherwise every block holding one of them goes (``zeromem index`` rebuilds it)."""
    if semantic:
        from zeromem_cli.semantic.blocks import remove

        remove(backend, list(ids))
    purged = backend.delete_for_good(ids)
    if purged:
        backend.optimize()
    return int(purged)


# -- gc -------------------------------------------------------------------------------------


@dataclass
class GcPolicy:
    trash_retention_days: int = 30
    archive_enabled: bool = False
    archive_after_days: int = 180
    archive_max_importance: int = 3


@dataclass
class GcReport:
    """What one gc run did (or, with dry_run, would do). Counts are this run's own work."""

    expired: int = 0  # live, expired -> trash
    purged: int = 0  # trash older than the retention -> deleted for good
    archived: int = 0  # stale and unimportant -> archived (restorable)
    optimized: bool = False
    vacuumed: bool = False
    wal_truncated: bool = True
    dry_run: bool = False
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        verb = "would move" if self.dry_run else "moved"
        parts = [
            f"{verb} {self.expired} expired to trash",
            f"{'would purge' if self.dry_run else 'purged'} {self.purged} from trash",
            f"{'would archive' if self.dry_run else 'archived'} {self.archived}",
        ]
        if self.optimized:
            parts.append("index optimized")
        if self.vacuumed:
            parts.append("vacuumed")
        return "gc: " + ", ".join(parts)


Apply = Callable[["Backend", list[int]], int]


def _batched(
    backend: Backend,
    transaction: Transaction,
    selection: str,
    scope: Scope | None,
    params: dict[str, Any],
    apply: Apply,
    dry_run: bool,
) -> int:
    """Run ``apply(backend, ids)`` on the ids of a gc ``selection`` (``Backend.gc_count``),
    GC_BATCH per transaction, until none is left; return how many were processed."""
    if dry_run:
        return backend.gc_count(selection, scope, params)
    total = 0
    while True:
        with transaction() as tx:
            ids = tx.gc_batch(selection, scope, params, GC_BATCH)
            if not ids:
                return total
            total += int(apply(tx, ids))


def _soft_delete(reason: str, now: str) -> Apply:
    return lambda backend, ids: backend.soft_delete(ids, now, reason)


def collect_garbage(
    backend: Backend,
    transaction: Transaction,
    scope: Scope | None,
    moment: datetime,
    policy: GcPolicy,
    *,
    vacuum: bool = False,
    dry_run: bool = False,
) -> GcReport:
    """Expire, purge old trash, archive stale memories (if enabled), optimize the index and
    optionally VACUUM. ``scope`` None: every scope; ``transaction()`` opens one short write
    transaction on ``backend`` (``MemoryStore.transaction``)."""
    now = to_iso(moment)
    params = {"now": now}
    report = GcReport(dry_run=dry_run)

    report.expired = _batched(
        backend, transaction, "expired", scope, params, _soft_delete("expired", now), dry_run
    )

    purge_cutoff = to_iso(moment - timedelta(days=policy.trash_retention_days))
    report.purged = _batched(
        backend,
        transaction,
        "old_trash",
        scope,
        {**params, "purge_cutoff": purge_cutoff},
        lambda backend, ids: backend.delete_for_good(ids),
        dry_run,
    )

    if policy.archive_enabled:
        stale_cutoff = to_iso(moment - timedelta(days=policy.archive_after_days))
        report.archived = _batched(
            backend,
            transaction,
            "stale",
            scope,
            {
                **params,
                "stale_cutoff": stale_cutoff,
                "max_importance": policy.archive_max_importance,
            },
            _soft_delete("archived", now),
            dry_run,
        )

    if dry_run:
        return report
    with transaction() as tx:
        tx.optimize()
    report.optimized = True
    if vacuum:
        backend.vacuum()
        report.vacuumed = True
    report.wal_truncated = checkpoint(backend)
    if not report.wal_truncated:
        report.notes.append("the WAL could not be truncated: another process was reading")
    return report
