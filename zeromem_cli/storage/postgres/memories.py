"""Memory rows on PostgreSQL: the same functions as ``storage.sqlite.memories`` (the interface
is ``storage.base.Backend``), with the index vector written in the same statement as the row.

Rows come back as ``db.Row`` (by name and by position), so the record conversions are the
shared ones (``storage.records``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from zeromem_cli.models import Filters, Memory, Scope
from zeromem_cli.storage.postgres import index
from zeromem_cli.storage.postgres.sql import (
    M_COLUMNS,
    filter_clause,
    scope_clause,
    scope_params,
    scope_sql,
)
from zeromem_cli.storage.records import KeyTaken, Row, to_memory
from zeromem_cli.times import from_iso, to_iso


def _unique_violation(exc: BaseException) -> bool:
    return getattr(exc, "sqlstate", None) == "23505"


def find_row(
    conn: Any,
    scope: Scope,
    now: datetime,
    memory_id: int,
    *,
    deleted: bool | None = False,
    include_expired: bool = False,
) -> Row | None:
    sql = f"SELECT {M_COLUMNS} FROM memories m WHERE m.id = %(id)s AND {scope_sql(scope)}"
    params: dict[str, Any] = {"id": memory_id, **scope_params(scope)}
    if deleted is False:
        sql += " AND m.deleted_at IS NULL"
    elif deleted is True:
        sql += " AND m.deleted_at IS NOT NULL"
    if not include_expired and deleted is False:
        sql += " AND (m.expires_at IS NULL OR m.expires_at > %(now)s)"
        params["now"] = to_iso(now)
    return conn.execute(sql, params).fetchone()


def by_id(conn: Any, memory_id: int) -> Row:
    return conn.execute(
        f"SELECT {M_COLUMNS} FROM memories m WHERE id = %s", (memory_id,)
    ).fetchone()


def fetch(conn: Any, memory_id: int) -> Memory:
    return to_memory(by_id(conn, memory_id))


def newest_first(
    conn: Any, scope: Scope, filters: Filters, now: datetime, limit: int | None
) -> list[Memory]:
    where, params = filter_clause(filters, now)
    sql = (
        f"SELECT {M_COLUMNS} FROM memories m WHERE {scope_sql(scope)} AND {where} "
        "ORDER BY m.created_at DESC, m.id DESC"
    )
    if limit is not None:
        sql += " LIMIT %(limit)s"
        params["limit"] = limit
    rows = conn.execute(sql, {**params, **scope_params(scope)}).fetchall()
    return [to_memory(r) for r in rows]


def in_id_order(conn: Any, scope: Scope | None, filters: Filters, now: datetime) -> list[Memory]:
    where, params = filter_clause(filters, now)
    if scope is not None:
        where = f"{scope_sql(scope)} AND {where}"
        params.update(scope_params(scope))
    rows = conn.execute(f"SELECT {M_COLUMNS} FROM memories m WHERE {where} ORDER BY m.id", params)
    return [to_memory(row) for row in rows.fetchall()]


def count(conn: Any, scope: Scope, filters: Filters, now: datetime) -> int:
    where, params = filter_clause(filters, now)
    row = conn.execute(
        f"SELECT count(*) FROM memories m WHERE {scope_sql(scope)} AND {where}",
        {**params, **scope_params(scope)},
    ).fetchone()
    return int(row[0])


def pack_candidates(
    conn: Any,
    scope: Scope,
    filters: Filters,
    now: datetime,
    *,
    limit: int,
    pinned_limit: int,
    pinned_only: bool,
) -> list[Memory]:
    where, params = filter_clause(filters, now)
    base = f"SELECT {M_COLUMNS} FROM memories m WHERE {scope_sql(scope)} AND {where}"
    params.update(limit=limit, pinned_limit=pinned_limit, **scope_params(scope))
    rows = conn.execute(
        f"{base} AND m.pinned = 1 "
        "ORDER BY m.importance DESC, m.updated_at DESC, m.id DESC LIMIT %(pinned_limit)s",
        params,
    ).fetchall()
    if pinned_only:
        return [to_memory(r) for r in rows]
    rows += conn.execute(
        f"{base} ORDER BY m.importance DESC, m.updated_at DESC, m.id DESC LIMIT %(limit)s",
        params,
    ).fetchall()
    rows += conn.execute(
        f"{base} ORDER BY m.updated_at DESC, m.id DESC LIMIT %(limit)s", params
    ).fetchall()
    unique = {r["id"]: r for r in rows}
    return [to_memory(r) for r in unique.values()]


def pinned_standing(
    conn: Any, scope: Scope, filters: Filters, now: datetime, *, limit: int
) -> list[tuple[int, int, str, int]]:
    where, params = filter_clause(filters, now)
    params.update(limit=limit, **scope_params(scope))
    rows = conn.execute(
        "SELECT m.id, m.importance, m.updated_at, m.created_at, m.access_count FROM memories m "
        f"WHERE {scope_sql(scope)} AND {where} AND m.pinned = 1 "
        "ORDER BY m.importance DESC, m.updated_at DESC, m.id DESC LIMIT %(limit)s",
        params,
    ).fetchall()
    return [(r[0], r[1], r[2] or r[3], r[4]) for r in rows]


def by_ids(conn: Any, ids: Iterable[int]) -> list[Memory]:
    wanted = list(ids)
    if not wanted:  # pack asks for its pinned memories, most often none: no round trip
        return []
    rows = conn.execute(
        f"SELECT {M_COLUMNS} FROM memories m WHERE m.id = ANY(%(ids)s)", {"ids": wanted}
    ).fetchall()
    return [to_memory(r) for r in rows]


def session_openers(conn: Any, ids: Iterable[int]) -> set[int]:
    rows = conn.execute(
        "SELECT m.id FROM memories m WHERE m.id = ANY(%(ids)s) AND m.session <> '' "
        "AND NOT EXISTS (SELECT 1 FROM memories p "
        'WHERE p."user" = m."user" AND p.project = m.project AND p.agent = m.agent '
        "AND p.session = m.session AND (p.created_at, p.id) < (m.created_at, m.id) "
        "AND p.deleted_at IS NULL)",
        {"ids": list(ids)},
    ).fetchall()
    return {row[0] for row in rows}


def neighbours(
    conn: Any,
    scope: Scope,
    filters: Filters,
    now: datetime,
    memory: Memory,
    span: int,
    window: timedelta,
) -> tuple[list[Memory], list[Memory]]:
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
    # Both sides in one statement (pack asks for the neighbours of its ten best hits: one
    # round trip each, not two); ``pos`` keeps each side in its own order, nearest first.
    sides = " UNION ALL ".join(
        f"(SELECT {M_COLUMNS}, {number} AS side, row_number() OVER (ORDER BY m.created_at "
        f"{order}, m.id {order}) AS pos FROM memories m WHERE {scope_sql(scope)} AND {where} "
        f"AND (m.created_at, m.id) {side} (%(created_at)s, %(id)s) AND m.created_at {bound} "
        f"ORDER BY m.created_at {order}, m.id {order} LIMIT %(span)s)"
        for number, (side, bound, order) in enumerate(
            (("<", ">= %(earliest)s", "DESC"), (">", "<= %(latest)s", "ASC"))
        )
    )
    found: tuple[list[Memory], list[Memory]] = ([], [])
    for row in conn.execute(f"SELECT * FROM ({sides}) s ORDER BY side, pos", params):
        found[row.pop("side")].append(to_memory(row))
    return found


def has_id(conn: Any, scope: Scope, memory_id: int) -> bool:
    row = conn.execute(
        f"SELECT 1 FROM memories m WHERE m.id = %(id)s AND {scope_sql(scope)}",
        {"id": memory_id, **scope_params(scope)},
    ).fetchone()
    return row is not None


def ids_by_uid_prefix(conn: Any, scope: Scope | None, hex_prefix: str, limit: int) -> list[int]:
    """As SQLite's: a range of the uid index (bytea compares bytewise), or a text uid given in
    full."""
    low = bytes.fromhex(hex_prefix.ljust(32, "0"))
    high = bytes.fromhex(hex_prefix.ljust(32, "f"))
    where, params = scope_clause(scope)
    rows = conn.execute(
        "SELECT m.id FROM memories m WHERE (m.uid BETWEEN %(low)s AND %(high)s "
        f"OR m.uid = %(text)s) AND {where} ORDER BY m.id LIMIT %(limit)s",
        {
            "low": low,
            "high": high,
            "text": hex_prefix.encode(),
            "limit": limit,
            **params,
        },
    ).fetchall()
    return [int(r["id"]) for r in rows]


def live_by_key(conn: Any, scope: Scope, key: str) -> Row | None:
    return conn.execute(
        f"SELECT {M_COLUMNS} FROM memories m WHERE m.key = %(key)s AND {scope_sql(scope)} "
        # Several sessions of one owner may hold the key (written isolated): the newest is
        # the one a reader sees.
        "AND m.deleted_at IS NULL ORDER BY m.updated_at DESC, m.id DESC LIMIT 1",
        {"key": key, **scope_params(scope)},
    ).fetchone()


def live_by_hash(conn: Any, scope: Scope, content_hash: int, now: datetime) -> int | None:
    row = conn.execute(
        f"SELECT m.id FROM memories m WHERE m.content_hash = %(hash)s AND "
        f"{scope_sql(scope)} AND m.deleted_at IS NULL AND "
        "(m.expires_at IS NULL OR m.expires_at > %(now)s) ORDER BY m.id LIMIT 1",
        {"hash": content_hash, "now": to_iso(now), **scope_params(scope)},
    ).fetchone()
    return None if row is None else int(row["id"])


def history_rows(conn: Any, ids: Iterable[int]) -> list[Row]:
    return list(
        conn.execute(
            "SELECT * FROM memory_history WHERE memory_id = ANY(%s) ORDER BY memory_id, id",
            (sorted(set(ids)),),
        ).fetchall()
    )


def insert(conn: Any, values: dict[str, Any]) -> int:
    """Insert a new memory with its index vector; its id. A live key another transaction
    holds (committed meanwhile) raises ``KeyTaken``: the insert waited on the unique index
    and did nothing (ON CONFLICT), so the caller's transaction is still usable."""
    vector, length = index.vectors([values])[0]
    row = conn.execute(
        'INSERT INTO memories (uid, content, content_hash, category, tags, key, "user", '
        "agent, session, project, importance, pinned, meta, created_at, updated_at, "
        "expires_at, fts, fts_len) VALUES (%(uid)s, %(content)s, %(content_hash)s, "
        "%(category)s, %(tags)s, %(key)s, %(user)s, %(agent)s, %(session)s, %(project)s, "
        "%(importance)s, %(pinned)s, %(meta)s, %(created_at)s, %(updated_at)s, "
        "%(expires_at)s, %(fts)s::tsvector, %(fts_len)s) "
        'ON CONFLICT ("user", project, agent, session, key) '
        "WHERE key IS NOT NULL AND deleted_at IS NULL DO NOTHING RETURNING id",
        {**values, "fts": vector, "fts_len": length},
    ).fetchone()
    if row is None:
        raise KeyTaken(values["key"])
    return int(row["id"])


def touch_updated(conn: Any, memory_id: int, now: datetime) -> None:
    conn.execute("UPDATE memories SET updated_at = %s WHERE id = %s", (to_iso(now), memory_id))


def archive_version(conn: Any, row: Row, ended_at: str, change: str) -> None:
    previous = conn.execute(
        "SELECT valid_to FROM memory_history WHERE memory_id = %s ORDER BY id DESC LIMIT 1",
        (row["id"],),
    ).fetchone()
    valid_from = previous[0] if previous else row["created_at"]
    conn.execute(
        "INSERT INTO memory_history (memory_id, content, category, tags, key, importance, "
        "pinned, meta, expires_at, valid_from, valid_to, change) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
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


_UPDATE_SQL = (
    "UPDATE memories SET content = %(content)s, content_hash = %(content_hash)s, "
    "category = %(category)s, tags = %(tags)s, key = %(key)s, importance = %(importance)s, "
    "pinned = %(pinned)s, meta = %(meta)s, expires_at = %(expires_at)s, "
    "updated_at = %(updated_at)s, fts = %(fts)s::tsvector, fts_len = %(fts_len)s "
    "WHERE id = %(id)s"
)


def replace_version(conn: Any, row: Row, new: dict[str, Any], change: str, now: datetime) -> None:
    """As on SQLite, except that the row is read again under a row lock first: another
    writer may have made a newer version since ``row`` was read (SQLite's write lock rules
    that out), and that version, not ``row``, is the one history must keep."""
    stamp = to_iso(now)
    locked = conn.execute(
        f"SELECT {M_COLUMNS} FROM memories m WHERE m.id = %s FOR UPDATE", (row["id"],)
    ).fetchone()
    row = locked if locked is not None else row
    archive_version(conn, row, stamp, change)
    merged = {**dict(row), **new, "updated_at": stamp}
    vector, length = index.vectors([merged])[0]
    try:
        with conn.transaction():
            conn.execute(_UPDATE_SQL, {**merged, "fts": vector, "fts_len": length})
    except Exception as exc:
        if _unique_violation(exc):
            raise KeyTaken(merged["key"]) from None
        raise


def mark_forgotten(conn: Any, ids: Iterable[int], now: datetime) -> None:
    conn.execute(
        "UPDATE memories SET deleted_at = %s, deleted_reason = 'forgotten' WHERE id = ANY(%s)",
        (to_iso(now), list(ids)),
    )


def undelete(conn: Any, row: Row, now: datetime) -> None:
    try:
        with conn.transaction():
            conn.execute(
                "UPDATE memories SET deleted_at = NULL, deleted_reason = NULL, "
                "expires_at = CASE WHEN expires_at <= %s THEN NULL ELSE expires_at END "
                "WHERE id = %s",
                (to_iso(now), row["id"]),
            )
    except Exception as exc:
        if _unique_violation(exc):
            raise KeyTaken(row["key"]) from None
        raise


def record_access(conn: Any, ids: Iterable[int], now: datetime) -> None:
    conn.execute(
        "UPDATE memories SET last_accessed_at = %s, access_count = access_count + 1 "
        "WHERE id = ANY(%s)",
        (to_iso(now), sorted(ids)),
    )
