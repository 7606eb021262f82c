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
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from zeromem_cli.errors import InvalidInputError, NotFoundError
from zeromem_cli.models import Filters, Memory
from zeromem_cli.storage.db import map_error
from zeromem_cli.store import MemoryStore
from zeromem_cli.times import to_iso

# Rows per gc transaction: large enough to be quick, small enough that a concurrent `add`
# never waits long for the write lock.
GC_BATCH = 500
# Ids per `IN (json_each(?))` chunk when a bulk purge reads the rows it deletes.
_CHUNK = 2000

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

    def check(self) -> None:
        has_criterion = bool(
            self.ids or self.key or self.query or self.category or self.tags or self.before
        )
        if not (has_criterion or self.everything):
            raise InvalidInputError(
                "say what to forget: ids, --key, --query, --category, --tag, --before, or --all"
            )
        if self.limit is not None and self.query is None:
            raise InvalidInputError("--limit needs --query (it keeps the N best matches)")
        if self.state not in (LIVE, TRASH, ANY):
            raise InvalidInputError(f"unknown selection state {self.state!r}")


def _scope_sql(store: MemoryStore, scoped: bool = True) -> tuple[str, dict[str, Any]]:
    if not scoped:
        return "1", {}
    user, agent, session = store.scope.as_columns()
    return (
        "m.user = :s_user AND m.agent = :s_agent AND m.session = :s_session",
        {"s_user": user, "s_agent": agent, "s_session": session},
    )


def _state_sql(state: str) -> str:
    return {
        LIVE: "m.deleted_at IS NULL",
        TRASH: "m.deleted_at IS NOT NULL",
        ANY: "1",
    }[state]


def select(store: MemoryStore, selection: Selection) -> list[Memory]:
    """The memories ``selection`` picks in the store's scope (expired ones included): by rank
    when there is a query, otherwise oldest first. Explicit ids must all exist, in the selected
    state, or NotFoundError names the missing ones."""
    selection.check()
    scope, params = _scope_sql(store)
    clauses = [scope, _state_sql(selection.state)]
    ids = list(dict.fromkeys(selection.ids))
    for memory_id in ids:
        if isinstance(memory_id, bool) or not isinstance(memory_id, int) or memory_id < 1:
            raise InvalidInputError(f"not a memory id: {memory_id!r}")
    ranked: list[int] | None = None
    if selection.query is not None:
        hits = store.search(
            selection.query,
            limit=sys.maxsize,
            filters=Filters(include_expired=True, include_deleted=True),
        )
        ranked = [h.id for h in hits]
    if ids:
        clauses.append("m.id IN (SELECT value FROM json_each(:ids))")
        params["ids"] = json.dumps(ids)
    if selection.key is not None:
        clauses.append("m.key = :key")
        params["key"] = selection.key
    if selection.category is not None:
        clauses.append("m.category = :category")
        params["category"] = selection.category
    for number, tag in enumerate(dict.fromkeys(selection.tags)):
        clauses.append(f"EXISTS (SELECT 1 FROM json_each(m.tags) WHERE value = :tag{number})")
        params[f"tag{number}"] = tag
    if selection.before is not None:
        clauses.append("m.created_at < :before")
        params["before"] = to_iso(selection.before)
    if ranked is not None:
        clauses.append("m.id IN (SELECT value FROM json_each(:ranked))")
        params["ranked"] = json.dumps(ranked)
    sql = f"SELECT m.* FROM memories m WHERE {' AND '.join(clauses)} ORDER BY m.id"
    try:
        rows = store.connection.execute(sql, params).fetchall()
    except sqlite3.Error as exc:
        raise map_error(exc, store.path) from None
    memories = [store.row_to_memory(r) for r in rows]
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


def forget(store: MemoryStore, ids: Sequence[int]) -> int:
    """Soft-delete the live memories among ``ids`` in one transaction; return how many."""
    now = to_iso(store.now())
    with store.transaction() as conn:
        cursor = conn.executemany(
            "UPDATE memories SET deleted_at = ?, deleted_reason = 'forgotten' "
            "WHERE id = ? AND deleted_at IS NULL",
            ((now, memory_id) for memory_id in dict.fromkeys(ids)),
        )
        return max(cursor.rowcount, 0)


@dataclass
class PurgeResult:
    purged: int
    wal_truncated: bool  # False: a reader kept the WAL busy; old pages may remain there


def _delete_for_good(store: MemoryStore, conn: sqlite3.Connection, ids: Sequence[int]) -> int:
    """Delete rows, history and index entries of ``ids`` (inside the caller's transaction)."""
    purged = 0
    ids = list(dict.fromkeys(ids))
    for start in range(0, len(ids), _CHUNK):
        chunk = json.dumps(ids[start : start + _CHUNK])
        rows = conn.execute(
            "SELECT id, content, tags, category, key FROM memories "
            "WHERE id IN (SELECT value FROM json_each(?))",
            (chunk,),
        ).fetchall()
        store.drop_from_index(conn, rows)
        conn.execute(
            "DELETE FROM memory_history WHERE memory_id IN (SELECT value FROM json_each(?))",
            (chunk,),
        )
        purged += conn.execute(
            "DELETE FROM memories WHERE id IN (SELECT value FROM json_each(?))", (chunk,)
        ).rowcount
    return purged


def _optimize_index(conn: sqlite3.Connection) -> None:
    # Merge every FTS segment into one: segments that still held the purged tokens are
    # rewritten and their pages freed (and zeroed, with secure_delete).
    conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")


def checkpoint(store: MemoryStore) -> bool:
    """Copy the WAL into the main file and truncate it to zero bytes. Waits (busy timeout) for
    readers; returns False when one still held an old snapshot."""
    try:
        busy = store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    except sqlite3.Error as exc:
        raise map_error(exc, store.path) from None
    return not busy


def purge(store: MemoryStore, ids: Sequence[int]) -> PurgeResult:
    """Delete memories for good (live or in the trash), in one transaction, so that their text
    is in none of the database files afterwards: rows, history and index entries go, the
    index is rewritten and the WAL truncated."""
    with store.transaction() as conn:
        purged = _delete_for_good(store, conn, ids)
        if purged:
            _optimize_index(conn)
    return PurgeResult(purged, checkpoint(store) if purged else True)


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


def _batched(
    store: MemoryStore, candidates_sql: str, params: dict[str, Any], apply: Any, dry_run: bool
) -> int:
    """Run ``apply(conn, ids)`` on the ids ``candidates_sql`` selects, GC_BATCH per
    transaction, until none is left; return how many were processed."""
    if dry_run:
        count_sql = f"SELECT count(*) FROM ({candidates_sql})"
        try:
            return int(store.connection.execute(count_sql, params).fetchone()[0])
        except sqlite3.Error as exc:
            raise map_error(exc, store.path) from None
    total = 0
    while True:
        with store.transaction() as conn:
            ids = [
                r[0] for r in conn.execute(f"{candidates_sql} LIMIT {GC_BATCH}", params).fetchall()
            ]
            if not ids:
                return total
            total += int(apply(conn, ids))


def _soft_delete(reason: str, now: str) -> Any:
    def apply(conn: sqlite3.Connection, ids: list[int]) -> int:
        return conn.execute(
            "UPDATE memories SET deleted_at = ?, deleted_reason = ? "
            "WHERE id IN (SELECT value FROM json_each(?)) AND deleted_at IS NULL",
            (now, reason, json.dumps(ids)),
        ).rowcount

    return apply


def collect_garbage(
    store: MemoryStore,
    policy: GcPolicy,
    *,
    all_scopes: bool = True,
    vacuum: bool = False,
    dry_run: bool = False,
) -> GcReport:
    """Expire, purge old trash, archive stale memories (if enabled), optimize the index and
    optionally VACUUM. ``all_scopes=False`` limits the row work to the store's scope."""
    moment = store.now()
    now = to_iso(moment)
    scope, params = _scope_sql(store, scoped=not all_scopes)
    params = {**params, "now": now}
    report = GcReport(dry_run=dry_run)

    report.expired = _batched(
        store,
        f"SELECT m.id FROM memories m WHERE {scope} AND m.deleted_at IS NULL "
        "AND m.expires_at IS NOT NULL AND m.expires_at <= :now",
        params,
        _soft_delete("expired", now),
        dry_run,
    )

    purge_cutoff = to_iso(moment - timedelta(days=policy.trash_retention_days))
    report.purged = _batched(
        store,
        f"SELECT m.id FROM memories m WHERE {scope} AND m.deleted_at IS NOT NULL "
        "AND m.deleted_at <= :purge_cutoff AND m.deleted_reason IS NOT 'archived'",
        {**params, "purge_cutoff": purge_cutoff},
        lambda conn, ids: _delete_for_good(store, conn, ids),
        dry_run,
    )

    if policy.archive_enabled:
        stale_cutoff = to_iso(moment - timedelta(days=policy.archive_after_days))
        report.archived = _batched(
            store,
            f"SELECT m.id FROM memories m WHERE {scope} AND m.deleted_at IS NULL "
            "AND m.pinned = 0 AND m.importance <= :max_importance "
            "AND max(m.updated_at, coalesce(m.last_accessed_at, '')) <= :stale_cutoff",
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
    with store.transaction() as conn:
        _optimize_index(conn)
    report.optimized = True
    if vacuum:
        try:
            store.connection.execute("VACUUM")
        except sqlite3.Error as exc:
            raise map_error(exc, store.path) from None
        report.vacuumed = True
    report.wal_truncated = checkpoint(store)
    if not report.wal_truncated:
        report.notes.append("the WAL could not be truncated: another process was reading")
    return report


def trash(
    store: MemoryStore, *, reason: str | None = None, limit: int | None = None
) -> list[Memory]:
    """Soft-deleted memories of the store's scope, most recently deleted first."""
    scope, params = _scope_sql(store)
    sql = f"SELECT m.* FROM memories m WHERE {scope} AND m.deleted_at IS NOT NULL"
    if reason is not None:
        sql += " AND m.deleted_reason = :reason"
        params["reason"] = reason
    sql += " ORDER BY m.deleted_at DESC, m.id DESC"
    if limit is not None:
        sql += " LIMIT :limit"
        params["limit"] = limit
    try:
        rows = store.connection.execute(sql, params).fetchall()
    except sqlite3.Error as exc:
        raise map_error(exc, store.path) from None
    return [store.row_to_memory(r) for r in rows]
