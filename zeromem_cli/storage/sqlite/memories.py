"""Memory rows: rows <-> records, the reads by id, key, hash, filters and neighbourhood, the
writes of one memory, and its versions (``memory_history``).

A change of a memory is one call here, inside the caller's transaction: the version it ends is
copied into history, its index entry removed, the row updated and indexed again
(``replace_version``). Every read selects through ``sql.scope_sql`` and ``sql.filter_clause``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from zeromem_cli.models import Filters, Memory, Scope
from zeromem_cli.storage.records import KeyTaken, Row, to_memory
from zeromem_cli.storage.sqlite import db
from zeromem_cli.storage.sqlite.sql import (
    filter_clause,
    id_list,
    scope_clause,
    scope_params,
    scope_sql,
)
from zeromem_cli.times import from_iso, to_iso

# Every importance a memory may hold (m001's CHECK constraint), most important first.
IMPORTANCE_LEVELS = range(10, -1, -1)


# -- reads ----------------------------------------------------------------------------------------


def find_row(
    conn: sqlite3.Connection,
    scope: Scope,
    now: datetime,
    memory_id: int,
    *,
    deleted: bool | None = False,
    include_expired: bool = False,
) -> Row | None:
    """The row of ``memory_id`` in ``scope``, None when it is not visible.

    ``deleted``: False = live only, True = in the trash only, None = either.
    """
    sql = f"SELECT m.* FROM memories m WHERE m.id = :id AND {scope_sql(scope)}"
    params: dict[str, Any] = {"id": memory_id, **scope_params(scope)}
    if deleted is False:
        sql += " AND m.deleted_at IS NULL"
    elif deleted is True:
        sql += " AND m.deleted_at IS NOT NULL"
    if not include_expired and deleted is False:
        sql += " AND (m.expires_at IS NULL OR m.expires_at > :now)"
        params["now"] = to_iso(now)
    row: Row | None = conn.execute(sql, params).fetchone()
    return row


def by_id(conn: sqlite3.Connection, memory_id: int) -> Row:
    """The row of ``memory_id``, in any scope and state (the caller knows it exists)."""
    row: Row = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return row


def fetch(conn: sqlite3.Connection, memory_id: int) -> Memory:
    """The record of ``memory_id`` as it is now (after a write)."""
    return to_memory(by_id(conn, memory_id))


def newest_first(
    conn: sqlite3.Connection, scope: Scope, filters: Filters, now: datetime, limit: int | None
) -> list[Memory]:
    """The memories of ``scope`` that ``filters`` admit, newest first, at most ``limit``."""
    where, params = filter_clause(filters, now)
    params.update(scope_params(scope))
    order = "ORDER BY m.created_at DESC, m.id DESC"
    if limit is not None and filters.key is None and not scope.isolate:
        # The owner's newest of each importance (idx_memories_owner_importance), merged.
        params["limit"] = limit
        ids = _merged([(f"{scope_sql(scope)} AND {where}", "m.created_at")], params)
        merged = conn.execute(f"SELECT m.* FROM memories m WHERE m.id IN ({ids}) {order}", params)
        return [to_memory(r) for r in merged.fetchall()]
    # A key names one or a few rows: find them through the key index, then sort them ("+"
    # keeps the planner from walking the whole scope newest first through a time index,
    # as it did: #33, ingest's look-up per keyed memory grew with the store).
    if filters.key is not None:
        order = "ORDER BY +m.created_at DESC, m.id DESC"
    sql = f"SELECT m.* FROM memories m WHERE {scope_sql(scope)} AND {where} {order}"
    if limit is not None:
        sql += " LIMIT :limit"
        params["limit"] = limit
    rows = conn.execute(sql, params).fetchall()
    return [to_memory(r) for r in rows]


def _merged(streams: list[tuple[str, str]], params: dict[str, Any]) -> str:
    """The ids of the ``:limit`` newest rows over ``streams`` ((WHERE clause of one user and
    project, the column of ``m`` it orders by)): the newest of each importance, read in
    order from an importance index, merged."""
    parts = [
        f"SELECT * FROM (SELECT m.id, {stamp} AS stamp FROM memories m WHERE {owner} "
        f"AND m.importance = {level} ORDER BY {stamp} DESC, m.id DESC LIMIT :limit)"
        for owner, stamp in streams
        for level in IMPORTANCE_LEVELS
    ]
    return f"SELECT id FROM ({' UNION ALL '.join(parts)}) ORDER BY stamp DESC, id DESC LIMIT :limit"


def in_id_order(
    conn: sqlite3.Connection, scope: Scope | None, filters: Filters, now: datetime
) -> list[Memory]:
    """The memories of ``scope`` (None: every scope) that ``filters`` admit, oldest id first."""
    where, params = filter_clause(filters, now)
    if scope is not None:
        where = f"{scope_sql(scope)} AND {where}"
        params.update(scope_params(scope))
    rows = conn.execute(f"SELECT m.* FROM memories m WHERE {where} ORDER BY m.id", params)
    return [to_memory(row) for row in rows.fetchall()]


def count(conn: sqlite3.Connection, scope: Scope, filters: Filters, now: datetime) -> int:
    where, params = filter_clause(filters, now)
    row = conn.execute(
        f"SELECT count(*) FROM memories m WHERE {scope_sql(scope)} AND {where}",
        {**params, **scope_params(scope)},
    ).fetchone()
    return int(row[0])


def pack_candidates(
    conn: sqlite3.Connection,
    scope: Scope,
    filters: Filters,
    now: datetime,
    *,
    limit: int,
    pinned_limit: int,
    pinned_only: bool,
) -> list[Memory]:
    """The pinned memories (at most ``pinned_limit``, most important first), then (unless
    ``pinned_only``) up to ``limit`` of the most important and of the most recently changed.

    Each owner ``scope`` reads (its project, and the user's own for ``with_user``) is read in
    order, so LIMIT stops early: sorting whole owners cost most of a session-start hook at
    100k memories (``python -m benchmarks.hook_latency``). A memory never changed since it
    was written is ranked by its creation in ``idx_memories_owner_importance``; the changed
    ones are all in ``idx_memories_owner_changed``, by last change. A memory changes only
    forward in time (``updated_at >= created_at``), so the best ``limit`` of both, merged,
    hold the best ``limit`` overall. An isolated scope (one origin's few memories) is found
    through the origin index and sorted."""
    where, params = filter_clause(filters, now)
    params.update(limit=limit, pinned_limit=pinned_limit, **scope_params(scope))
    ranked = "ORDER BY m.importance DESC, m.updated_at DESC, m.id DESC"
    if scope.isolate:
        base = f"SELECT m.* FROM memories m WHERE {scope_sql(scope)} AND {where}"
        rows = conn.execute(f"{base} AND m.pinned = 1 {ranked} LIMIT :pinned_limit", params)
        found = rows.fetchall()
        if not pinned_only:  # "+": sorted, not read in an owner's order filtering the origin
            found += conn.execute(
                f"{base} ORDER BY +m.importance DESC, m.updated_at DESC, m.id DESC LIMIT :limit",
                params,
            ).fetchall()
            found += conn.execute(
                f"{base} ORDER BY +m.updated_at DESC, m.id DESC LIMIT :limit", params
            ).fetchall()
        unique = {r["id"]: r for r in found}
        return [to_memory(r) for r in unique.values()]
    owners = _owners(scope, where, params)
    pinned = [
        f"SELECT * FROM (SELECT m.id, m.importance, m.updated_at AS changed FROM memories m "
        f"WHERE {owner} AND m.pinned = 1 {ranked} LIMIT :pinned_limit)"
        for owner in owners
    ]
    chosen = [
        f"SELECT id FROM ({' UNION ALL '.join(pinned)}) "
        "ORDER BY importance DESC, changed DESC, id DESC LIMIT :pinned_limit"
    ]
    if not pinned_only:
        unchanged = [f"{owner} AND m.updated_at = m.created_at" for owner in owners]
        changed = [f"{owner} AND m.updated_at != m.created_at" for owner in owners]
        important = [
            f"SELECT * FROM (SELECT m.id, m.importance, m.{stamp} AS changed FROM memories m "
            f"WHERE {owner} ORDER BY m.importance DESC, m.{stamp} DESC, m.id DESC LIMIT :limit)"
            for group, stamp in ((unchanged, "created_at"), (changed, "updated_at"))
            for owner in group
        ]
        chosen.append(
            f"SELECT id FROM ({' UNION ALL '.join(important)}) "
            "ORDER BY importance DESC, changed DESC, id DESC LIMIT :limit"
        )
        chosen.append(
            _merged(
                [(owner, "m.created_at") for owner in unchanged]
                + [(owner, "m.updated_at") for owner in changed],
                params,
            )
        )
    memories: dict[int, Memory] = {}
    for ids in chosen:  # pinned first, most important first: as the caller reads them
        rows = conn.execute(f"SELECT m.* FROM memories m WHERE m.id IN ({ids})", params)
        for memory in sorted(map(to_memory, rows), key=_rank, reverse=True):
            memories.setdefault(memory.id, memory)
    return list(memories.values())


def _owners(scope: Scope, where: str, params: dict[str, Any]) -> list[str]:
    """A clause per owner a shared (not isolated) ``scope`` reads: its project, and the
    user's own for ``with_user``; each an equality the owner indexes serve (SQLite did not
    pick the partial pinned index for ``project IN (...)`` and read every memory of the
    user instead: ``python -m benchmarks.semantic --costs``, the prompt hook in a
    repository). ``params`` gains each owner's project."""
    projects = dict.fromkeys([scope.as_columns()[3], *([""] if scope.with_user else [])])
    owners = []
    for number, project in enumerate(projects):
        params[f"o_project{number}"] = project
        owners.append(f"m.user = :s_user AND m.project = :o_project{number} AND {where}")
    return owners


def _rank(memory: Memory) -> tuple[int, str, int]:
    return (memory.importance, memory.updated_at or "", memory.id)


def pinned_standing(
    conn: sqlite3.Connection, scope: Scope, filters: Filters, now: datetime, *, limit: int
) -> list[tuple[int, int, str, int]]:
    """(id, importance, last change, access count) of the pinned memories of ``scope``, most
    important first, at most ``limit``: what pack ranks them by, without reading their text
    (a store may pin hundreds, of which a budget holds a few)."""
    where, params = filter_clause(filters, now)
    params.update(limit=limit, **scope_params(scope))
    columns = "m.id, m.importance, m.updated_at, m.created_at, m.access_count"
    ranked = "ORDER BY m.importance DESC, m.updated_at DESC, m.id DESC LIMIT :limit"
    if scope.isolate:
        sql = (
            f"SELECT {columns} FROM memories m "
            f"WHERE {scope_sql(scope)} AND {where} AND m.pinned = 1 {ranked}"
        )
    else:  # each owner in its index order, the best of each merged
        sql = (
            " UNION ALL ".join(
                f"SELECT * FROM (SELECT {columns} FROM memories m "
                f"WHERE {owner} AND m.pinned = 1 {ranked})"
                for owner in _owners(scope, where, params)
            )
            + " ORDER BY importance DESC, updated_at DESC, id DESC LIMIT :limit"
        )
    rows = conn.execute(sql, params).fetchall()
    return [(r[0], r[1], r[2] or r[3], r[4]) for r in rows]


def by_ids(conn: sqlite3.Connection, ids: Iterable[int]) -> list[Memory]:
    """The records of ``ids`` (found by a scoped read just before), in no particular order."""
    rows = conn.execute(
        "SELECT * FROM memories WHERE id IN (SELECT value FROM json_each(?))",
        (id_list(ids),),
    ).fetchall()
    return [to_memory(r) for r in rows]


def session_openers(conn: sqlite3.Connection, ids: Iterable[int]) -> set[int]:
    """Of ``ids``, the memories written first in their origin session (no earlier live memory
    of the same user, project, agent and session); memories outside a session never are.
    One query: each id is an index probe (``idx_memories_origin_created``)."""
    rows = conn.execute(
        "SELECT m.id FROM memories m WHERE m.id IN (SELECT value FROM json_each(?)) "
        "AND m.session != '' AND NOT EXISTS (SELECT 1 FROM memories p "
        "WHERE p.user = m.user AND p.project = m.project AND p.agent = m.agent "
        "AND p.session = m.session AND (p.agent != '' OR p.session != '') "
        "AND (p.created_at, p.id) < (m.created_at, m.id) AND p.deleted_at IS NULL)",
        (id_list(ids),),
    ).fetchall()
    return {row[0] for row in rows}


def neighbours(
    conn: sqlite3.Connection,
    scope: Scope,
    filters: Filters,
    now: datetime,
    memory: Memory,
    span: int,
    window: timedelta,
) -> tuple[list[Memory], list[Memory]]:
    """Up to ``span`` memories of ``scope`` written just before ``memory`` (nearest first) and
    just after it, in (created_at, id) order, at most ``window`` apart from it. The window
    bounds the index range each side reads."""
    where, params = filter_clause(filters, now)
    written = from_iso(memory.created_at)
    params.update(
        created_at=memory.created_at,
        id=memory.id,
        span=span,
        earliest=to_iso(written - window),
        latest=to_iso(written + window),
        **scope_params(scope),
    )
    found = []
    for side, bound, order in (("<", ">= :earliest", "DESC"), (">", "<= :latest", "ASC")):
        rows = conn.execute(
            f"SELECT m.* FROM memories m WHERE {scope_sql(scope)} AND {where} "
            f"AND (m.created_at, m.id) {side} (:created_at, :id) AND m.created_at {bound} "
            f"ORDER BY m.created_at {order}, m.id {order} LIMIT :span",
            params,
        ).fetchall()
        found.append([to_memory(r) for r in rows])
    return found[0], found[1]


def has_id(conn: sqlite3.Connection, scope: Scope, memory_id: int) -> bool:
    """Whether a memory of ``scope`` (any state) has this id."""
    row = conn.execute(
        f"SELECT 1 FROM memories m WHERE m.id = :id AND {scope_sql(scope)}",
        {"id": memory_id, **scope_params(scope)},
    ).fetchone()
    return row is not None


def ids_by_uid_prefix(
    conn: sqlite3.Connection, scope: Scope | None, hex_prefix: str, limit: int
) -> list[int]:
    """Ids of the memories of ``scope`` (None: any scope; any state) whose uid starts with
    ``hex_prefix`` (lower-case hex digits, no dashes), at most ``limit``: a range of the uid
    index, since a stored uid is its 16 bytes. A uid kept as text (never a UUID) matches only
    in full."""
    low = bytes.fromhex(hex_prefix.ljust(32, "0"))
    high = bytes.fromhex(hex_prefix.ljust(32, "f"))
    where, params = scope_clause(scope)
    rows = conn.execute(
        f"SELECT m.id FROM memories m WHERE (m.uid BETWEEN :low AND :high OR m.uid = :text) "
        f"AND {where} ORDER BY m.id LIMIT :limit",
        {"low": low, "high": high, "text": hex_prefix, "limit": limit, **params},
    ).fetchall()
    return [int(r["id"]) for r in rows]


def live_by_key(conn: sqlite3.Connection, scope: Scope, key: str) -> Row | None:
    """The live memory of ``scope`` holding ``key`` (expired or not)."""
    row: Row | None = conn.execute(
        f"SELECT m.* FROM memories m WHERE m.key = :key AND {scope_sql(scope)} "
        # Several sessions of one owner may hold the key (written isolated, or before the
        # scope model of schema 8): the newest is the one a reader sees.
        "AND m.deleted_at IS NULL ORDER BY m.updated_at DESC, m.id DESC LIMIT 1",
        {"key": key, **scope_params(scope)},
    ).fetchone()
    return row


def live_by_hash(
    conn: sqlite3.Connection, scope: Scope, content_hash: int, now: datetime
) -> int | None:
    """The id of the oldest live, unexpired memory of ``scope`` with this content hash."""
    row = conn.execute(
        f"SELECT m.id FROM memories m WHERE m.content_hash = :hash AND "
        f"{scope_sql(scope)} AND m.deleted_at IS NULL AND "
        "(m.expires_at IS NULL OR m.expires_at > :now) ORDER BY m.id LIMIT 1",
        {"hash": content_hash, "now": to_iso(now), **scope_params(scope)},
    ).fetchone()
    return None if row is None else int(row["id"])


def history_rows(conn: sqlite3.Connection, ids: Iterable[int]) -> list[Row]:
    """The ``memory_history`` rows of ``ids``, by memory id, oldest version first."""
    wanted = sorted(set(ids))
    if len(wanted) == 1:  # one memory's history: its index range only
        return conn.execute(
            "SELECT * FROM memory_history WHERE memory_id = ? ORDER BY id", wanted
        ).fetchall()
    found = set(wanted)
    return [
        row
        for row in conn.execute("SELECT * FROM memory_history ORDER BY memory_id, id")
        if row["memory_id"] in found
    ]


# -- writes (inside the caller's transaction) ------------------------------------------------------


def insert(conn: sqlite3.Connection, values: dict[str, Any]) -> int:
    """Insert a new memory (every column but id and the access counters) and index it; its id."""
    cursor = conn.execute(
        "INSERT INTO memories (uid, content, content_hash, category, tags, key, user, "
        "agent, session, project, importance, pinned, meta, created_at, updated_at, expires_at) "
        "VALUES (:uid, :content, :content_hash, :category, :tags, :key, :user, :agent, "
        ":session, :project, :importance, :pinned, :meta, :created_at, :updated_at, :expires_at)",
        values,
    )
    memory_id = int(cursor.lastrowid or 0)
    from zeromem_cli.storage.sqlite import fts  # writes only: pack's reads never load it

    fts.index_row(conn, {**values, "id": memory_id})
    return memory_id


def touch_updated(conn: sqlite3.Connection, memory_id: int, now: datetime) -> None:
    """Refresh ``updated_at`` (a write that said the same thing again)."""
    conn.execute("UPDATE memories SET updated_at = ? WHERE id = ?", (to_iso(now), memory_id))


def archive_version(conn: sqlite3.Connection, row: Row, ended_at: str, change: str) -> None:
    """Copy the current version of a memory into history before it changes."""
    previous = conn.execute(
        "SELECT valid_to FROM memory_history WHERE memory_id = ? ORDER BY id DESC LIMIT 1",
        (row["id"],),
    ).fetchone()
    valid_from = previous[0] if previous else row["created_at"]
    conn.execute(
        "INSERT INTO memory_history (memory_id, content, category, tags, key, importance, "
        "pinned, meta, expires_at, valid_from, valid_to, change) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row["id"],
            row["content"],
            row["category"],
            row["tags"],
            row["key"],
            row["importance"],
            row["pinned"],
            row["meta"],
            row["expires_at"],
            valid_from,
            ended_at,
            change,
        ),
    )


def replace_version(
    conn: sqlite3.Connection, row: Row, new: dict[str, Any], change: str, now: datetime
) -> None:
    """Write a new version of ``row`` (history, index and row in one go); ``change`` says
    what ended the old one. A key another live memory of the scope holds: ``KeyTaken``."""
    from zeromem_cli.storage.sqlite import fts

    stamp = to_iso(now)
    archive_version(conn, row, stamp, change)
    fts.unindex_row(conn, row)
    merged = {**dict(row), **new, "updated_at": stamp}
    try:
        conn.execute(
            "UPDATE memories SET content = :content, content_hash = :content_hash, "
            "category = :category, tags = :tags, key = :key, importance = :importance, "
            "pinned = :pinned, meta = :meta, expires_at = :expires_at, "
            "updated_at = :updated_at WHERE id = :id",
            merged,
        )
    except db.INTEGRITY:
        raise KeyTaken(merged["key"]) from None
    fts.index_row(conn, merged)


def mark_forgotten(conn: sqlite3.Connection, ids: Iterable[int], now: datetime) -> None:
    """Soft-delete ``ids`` as forgotten (the caller checked each is visible)."""
    stamp = to_iso(now)
    for memory_id in ids:
        conn.execute(
            "UPDATE memories SET deleted_at = ?, deleted_reason = 'forgotten' WHERE id = ?",
            (stamp, memory_id),
        )


def undelete(conn: sqlite3.Connection, row: Row, now: datetime) -> None:
    """Bring a soft-deleted memory back, clearing an expiry that has passed. Its key held by
    another live memory now: ``KeyTaken``."""
    try:
        conn.execute(
            "UPDATE memories SET deleted_at = NULL, deleted_reason = NULL, "
            "expires_at = CASE WHEN expires_at <= ? THEN NULL ELSE expires_at END "
            "WHERE id = ?",
            (to_iso(now), row["id"]),
        )
    except db.INTEGRITY:
        raise KeyTaken(row["key"]) from None


def record_access(conn: sqlite3.Connection, ids: Iterable[int], now: datetime) -> None:
    """Count one access of each memory (``last_accessed_at``, ``access_count``)."""
    stamp = to_iso(now)
    conn.executemany(
        "UPDATE memories SET last_accessed_at = ?, access_count = access_count + 1 WHERE id = ?",
        [(stamp, i) for i in ids],
    )
