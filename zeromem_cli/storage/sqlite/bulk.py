"""Statements over many memories at once: the selections and batches of ``forget`` and ``gc``,
purging for good, index optimize, WAL checkpoint and VACUUM, the counts of ``stats``, and the
reads and inserts of a bulk import.

Each function runs inside the caller's transaction, or outside any when SQLite requires it
(``checkpoint``, ``vacuum``); the batching, the dry runs and the plans are the policy modules'
(``lifecycle``, ``stats``, ``transfer.imports``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from operator import itemgetter
from typing import Any

from zeromem_cli.models import Memory, Scope
from zeromem_cli.storage.records import COLUMNS, HISTORY_COLUMNS, ImportConflict
from zeromem_cli.storage.sqlite import db, fts, vectors
from zeromem_cli.storage.sqlite.memories import archive_version, to_memory
from zeromem_cli.storage.sqlite.sql import scope_clause
from zeromem_cli.storage.uids import uid_to_db
from zeromem_cli.times import to_iso

# Ids per `IN (json_each(?))` chunk when a bulk purge reads the rows it deletes.
_CHUNK = 2000

# -- forget and trash ------------------------------------------------------------------------------

_STATES = {"live": "m.deleted_at IS NULL", "trash": "m.deleted_at IS NOT NULL", "any": "1"}


def selected(
    conn: sqlite3.Connection,
    scope: Scope,
    *,
    state: str,
    ids: Sequence[int] = (),
    key: str | None = None,
    category: str | None = None,
    tags: Sequence[str] = (),
    before: datetime | None = None,
    ranked: Sequence[int] | None = None,
) -> list[Memory]:
    """The memories of ``scope`` in ``state`` (live, trash or any; expired ones included) that
    meet every criterion given, by id: among ``ids``, with this key, category, every tag,
    created before ``before``, among ``ranked``."""
    scope_sql, params = scope_clause(scope)
    clauses = [scope_sql, _STATES[state]]
    if ids:
        clauses.append("m.id IN (SELECT value FROM json_each(:ids))")
        params["ids"] = json.dumps(list(ids))
    if key is not None:
        clauses.append("m.key = :key")
        params["key"] = key
    if category is not None:
        clauses.append("m.category = :category")
        params["category"] = category
    for number, tag in enumerate(dict.fromkeys(tags)):
        clauses.append(f"EXISTS (SELECT 1 FROM json_each(m.tags) WHERE value = :tag{number})")
        params[f"tag{number}"] = tag
    if before is not None:
        clauses.append("m.created_at < :before")
        params["before"] = to_iso(before)
    if ranked is not None:
        clauses.append("m.id IN (SELECT value FROM json_each(:ranked))")
        params["ranked"] = json.dumps(list(ranked))
    sql = f"SELECT m.* FROM memories m WHERE {' AND '.join(clauses)} ORDER BY m.id"
    return [to_memory(r) for r in conn.execute(sql, params).fetchall()]


def forget_live(conn: sqlite3.Connection, ids: Iterable[int], now: datetime) -> int:
    """Soft-delete (forgotten) the live memories among ``ids``; how many there were."""
    stamp = to_iso(now)
    cursor = conn.executemany(
        "UPDATE memories SET deleted_at = ?, deleted_reason = 'forgotten' "
        "WHERE id = ? AND deleted_at IS NULL",
        ((stamp, memory_id) for memory_id in ids),
    )
    return max(cursor.rowcount, 0)


def trash(
    conn: sqlite3.Connection, scope: Scope, *, reason: str | None, limit: int | None
) -> list[Memory]:
    """Soft-deleted memories of ``scope`` (for ``reason`` only, if given), most recently
    deleted first."""
    scope_sql, params = scope_clause(scope)
    sql = f"SELECT m.* FROM memories m WHERE {scope_sql} AND m.deleted_at IS NOT NULL"
    if reason is not None:
        sql += " AND m.deleted_reason = :reason"
        params["reason"] = reason
    sql += " ORDER BY m.deleted_at DESC, m.id DESC"
    if limit is not None:
        sql += " LIMIT :limit"
        params["limit"] = limit
    return [to_memory(r) for r in conn.execute(sql, params).fetchall()]


# -- purge and maintenance ------------------------------------------------------------------------


def delete_for_good(conn: sqlite3.Connection, ids: Iterable[int]) -> int:
    """Delete the rows, history and index entries of ``ids``; how many rows went."""
    purged = 0
    ids = list(dict.fromkeys(ids))
    for start in range(0, len(ids), _CHUNK):
        chunk = json.dumps(ids[start : start + _CHUNK])
        rows = conn.execute(
            "SELECT id, content, tags, category, key FROM memories "
            "WHERE id IN (SELECT value FROM json_each(?))",
            (chunk,),
        ).fetchall()
        for row in rows:
            fts.unindex_row(conn, row)
        vectors.drop_blocks_holding(conn, [row["id"] for row in rows])
        conn.execute(
            "DELETE FROM memory_history WHERE memory_id IN (SELECT value FROM json_each(?))",
            (chunk,),
        )
        purged += conn.execute(
            "DELETE FROM memories WHERE id IN (SELECT value FROM json_each(?))", (chunk,)
        ).rowcount
    return purged


def checkpoint(conn: sqlite3.Connection) -> bool:
    """Copy the WAL into the main file and truncate it to zero bytes (outside a transaction;
    waits up to the busy timeout for readers). False: a reader still held an old snapshot."""
    busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    return not busy


def vacuum(conn: sqlite3.Connection) -> None:
    """Rewrite the database file without its free pages (outside a transaction)."""
    conn.execute("VACUUM")


# -- gc batches ------------------------------------------------------------------------------------

# What each gc step selects, over ``memories m`` within a scope clause ({scope}).
_GC_SELECTIONS = {
    # live, and their expiry has passed (:now)
    "expired": "SELECT m.id FROM memories m WHERE {scope} AND m.deleted_at IS NULL "
    "AND m.expires_at IS NOT NULL AND m.expires_at <= :now",
    # in the trash since :purge_cutoff or longer, archived ones aside
    "old_trash": "SELECT m.id FROM memories m WHERE {scope} AND m.deleted_at IS NOT NULL "
    "AND m.deleted_at <= :purge_cutoff AND m.deleted_reason IS NOT 'archived'",
    # live, unpinned, importance at most :max_importance, untouched since :stale_cutoff
    "stale": "SELECT m.id FROM memories m WHERE {scope} AND m.deleted_at IS NULL "
    "AND m.pinned = 0 AND m.importance <= :max_importance "
    "AND max(m.updated_at, coalesce(m.last_accessed_at, '')) <= :stale_cutoff",
}
GC_SELECTIONS = tuple(_GC_SELECTIONS)


def _gc_sql(
    selection: str, scope: Scope | None, params: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    scope_sql, scope_params = scope_clause(scope)
    return _GC_SELECTIONS[selection].format(scope=scope_sql), {**scope_params, **params}


def gc_count(
    conn: sqlite3.Connection, selection: str, scope: Scope | None, params: dict[str, Any]
) -> int:
    """How many memories a gc ``selection`` (``GC_SELECTIONS``) holds now; ``scope`` None:
    every scope."""
    sql, values = _gc_sql(selection, scope, params)
    return int(conn.execute(f"SELECT count(*) FROM ({sql})", values).fetchone()[0])


def gc_batch(
    conn: sqlite3.Connection,
    selection: str,
    scope: Scope | None,
    params: dict[str, Any],
    size: int,
) -> list[int]:
    """The ids of at most ``size`` memories of a gc ``selection``."""
    sql, values = _gc_sql(selection, scope, params)
    return [r[0] for r in conn.execute(f"{sql} LIMIT {int(size)}", values).fetchall()]


def soft_delete(conn: sqlite3.Connection, ids: Sequence[int], now: str, reason: str) -> int:
    """Move the live memories among ``ids`` to the trash for ``reason``; how many moved."""
    return int(
        conn.execute(
            "UPDATE memories SET deleted_at = ?, deleted_reason = ? "
            "WHERE id IN (SELECT value FROM json_each(?)) AND deleted_at IS NULL",
            (now, reason, json.dumps(list(ids))),
        ).rowcount
    )


# -- stats -----------------------------------------------------------------------------------------

_LIVE = "m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > :now)"


def counts(conn: sqlite3.Connection, scope: Scope | None, now: datetime) -> tuple[int, ...]:
    """Memories of ``scope`` (None: every scope): live, expired, in the trash, live and
    pinned, live with a key."""
    where, params = scope_clause(scope)
    row = conn.execute(
        f"SELECT sum({_LIVE}), "
        "sum(m.deleted_at IS NULL AND m.expires_at IS NOT NULL AND m.expires_at <= :now), "
        "sum(m.deleted_at IS NOT NULL), "
        f"sum(({_LIVE}) AND m.pinned), sum(({_LIVE}) AND m.key IS NOT NULL) "
        f"FROM memories m WHERE {where}",
        {**params, "now": to_iso(now)},
    ).fetchone()
    return tuple(int(v or 0) for v in row)


def live_by_category(
    conn: sqlite3.Connection, scope: Scope | None, now: datetime
) -> dict[str, int]:
    """Live memories per category, most first."""
    where, params = scope_clause(scope)
    return {
        r[0]: r[1]
        for r in conn.execute(
            f"SELECT m.category, count(*) FROM memories m WHERE {where} AND {_LIVE} "
            "GROUP BY m.category ORDER BY count(*) DESC, m.category",
            {**params, "now": to_iso(now)},
        )
    }


def live_by_scope(
    conn: sqlite3.Connection, scope: Scope | None, now: datetime
) -> list[tuple[str, str, str, str, int]]:
    """Live memories per stored scope (user, agent, session, project; '' for unset), most
    first."""
    where, params = scope_clause(scope)
    return [
        (r[0], r[1], r[2], r[3], r[4])
        for r in conn.execute(
            f"SELECT m.user, m.agent, m.session, m.project, count(*) FROM memories m "
            f"WHERE {where} AND {_LIVE} GROUP BY m.user, m.agent, m.session, m.project "
            "ORDER BY count(*) DESC, m.user, m.agent, m.session, m.project",
            {**params, "now": to_iso(now)},
        )
    ]


def live_contents(conn: sqlite3.Connection, scope: Scope | None, now: datetime) -> Iterator[str]:
    """The content of every live memory of ``scope``."""
    where, params = scope_clause(scope)
    for r in conn.execute(
        f"SELECT m.content FROM memories m WHERE {where} AND {_LIVE}",
        {**params, "now": to_iso(now)},
    ):
        yield r[0]


def server_bytes(conn: sqlite3.Connection) -> int | None:
    """The bytes a database server holds for the store; None: a file store (its size is the
    file's, read from the file system by ``stats``)."""
    return None


# -- import ----------------------------------------------------------------------------------------

# Columns an import writes, in INSERT order: every record field, plus the duplicate hash.


def existing(conn: sqlite3.Connection) -> Iterator[sqlite3.Row]:
    """Every memory as an import plans against it: (id, stored uid, user, agent, session,
    project, key, deleted_at) rows."""
    yield from conn.execute(
        "SELECT id, uid, user, agent, session, project, key, deleted_at FROM memories"
    )


def fresh_ids(conn: sqlite3.Connection, count: int) -> list[int] | None:
    """Ids the database hands out for ``count`` imported memories, where the importer cannot
    see every id in use (``existing``) and so cannot pick free ones; None where it can: here
    always (a SQLite store has no rows hidden from its reader)."""
    return None


def update_imported(
    conn: sqlite3.Connection, row: sqlite3.Row, merged: dict[str, Any], now: str
) -> None:
    """Make ``merged`` (every column of ``COLUMNS``) the next version of ``row``, the old one
    kept in history as changed by an import."""
    archive_version(conn, row, now, "import")
    fts.unindex_row(conn, row)
    try:
        conn.execute(
            "UPDATE memories SET "
            + ", ".join(f"{name} = :{name}" for name in COLUMNS if name != "id")
            + " WHERE id = :id",
            merged,
        )
    except db.INTEGRITY as exc:
        raise ImportConflict(str(exc)) from None
    fts.index_rows(conn, [merged])


# The INSERT parameters of a record, built for the sqlite3 module's fast path: it binds an
# exact int, float, str or bytearray directly, but looks up an adapter for anything else,
# None and bytes included (raising and clearing an AttributeError or two each time, measured by
# ``python -m benchmarks.transfer_speed``). So the uid is bound as a
# bytearray (stored as the same BLOB), and the columns that may be NULL as '' turned back into
# NULL by NULLIF: none of them is ever '' (keys and labels are never empty, times are
# ISO-8601, deleted_reason is a name).
_NULLABLE = ("key", "expires_at", "last_accessed_at", "deleted_at", "deleted_reason")
_REQUIRED = tuple(c for c in COLUMNS if c not in _NULLABLE and c != "uid")
_INSERTED = (*_REQUIRED, *_NULLABLE, "uid")
_INSERT_VALUES = ", ".join(["?"] * len(_REQUIRED) + ["NULLIF(?, '')"] * len(_NULLABLE) + ["?"])
_INSERT_SQL = f"INSERT INTO memories ({', '.join(_INSERTED)}) VALUES ({_INSERT_VALUES})"
_required_values = itemgetter(*_REQUIRED)
_HISTORY_SQL = (
    f"INSERT INTO memory_history ({', '.join(HISTORY_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in HISTORY_COLUMNS)})"
)


def _stored(values: dict[str, Any]) -> tuple[Any, ...]:
    """The INSERT parameters of one record (columns in ``_INSERTED`` order)."""
    return (
        *_required_values(values),
        values["key"] or "",
        values["expires_at"] or "",
        values["last_accessed_at"] or "",
        values["deleted_at"] or "",
        values["deleted_reason"] or "",
        bytearray(uid_to_db(values["uid"])),
    )


def insert_imported(
    conn: sqlite3.Connection,
    rows: list[dict[str, Any]],
    contents: Sequence[str],
    history: Sequence[tuple[Any, ...]],
) -> None:
    """Insert new memories (every column of ``COLUMNS``, uid as text) with their index
    entries (``contents``: each row's content index text) and their earlier versions
    (``history``: rows of ``HISTORY_COLUMNS``) in a few executemany calls."""
    try:
        conn.executemany(_INSERT_SQL, [_stored(v) for v in rows])
    except db.INTEGRITY as exc:
        raise ImportConflict(str(exc)) from None
    fts.index_rows(conn, rows, contents)
    if history:
        conn.executemany(_HISTORY_SQL, history)
