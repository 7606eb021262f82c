"""Statements over many memories at once on PostgreSQL (the interface is ``storage.bulk``):
forget and gc batches, purge, VACUUM, the counts of ``stats`` and bulk import."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from zeromem_cli.errors import StoreError
from zeromem_cli.models import Memory, Scope
from zeromem_cli.storage.postgres import index, vectors
from zeromem_cli.storage.postgres.memories import _unique_violation, archive_version
from zeromem_cli.storage.postgres.sql import M_COLUMNS, scope_clause
from zeromem_cli.storage.records import COLUMNS, HISTORY_COLUMNS, ImportConflict, to_memory
from zeromem_cli.storage.uids import uid_to_db
from zeromem_cli.times import to_iso

_STATES = {"live": "m.deleted_at IS NULL", "trash": "m.deleted_at IS NOT NULL", "any": "TRUE"}


def selected(
    conn: Any,
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
    scope_sql, params = scope_clause(scope)
    clauses = [scope_sql, _STATES[state]]
    if ids:
        clauses.append("m.id = ANY(%(ids)s)")
        params["ids"] = list(ids)
    if key is not None:
        clauses.append("m.key = %(key)s")
        params["key"] = key
    if category is not None:
        clauses.append("m.category = %(category)s")
        params["category"] = category
    for number, tag in enumerate(dict.fromkeys(tags)):
        clauses.append(f"m.tags::jsonb ? %(tag{number})s")
        params[f"tag{number}"] = tag
    if before is not None:
        clauses.append("m.created_at < %(before)s")
        params["before"] = to_iso(before)
    if ranked is not None:
        clauses.append("m.id = ANY(%(ranked)s)")
        params["ranked"] = list(ranked)
    sql = f"SELECT {M_COLUMNS} FROM memories m WHERE {' AND '.join(clauses)} ORDER BY m.id"
    return [to_memory(r) for r in conn.execute(sql, params).fetchall()]


def forget_live(conn: Any, ids: Iterable[int], now: datetime) -> int:
    cursor = conn.execute(
        "UPDATE memories SET deleted_at = %s, deleted_reason = 'forgotten' "
        "WHERE id = ANY(%s) AND deleted_at IS NULL",
        (to_iso(now), sorted(set(ids))),
    )
    return max(cursor.rowcount, 0)


def trash(conn: Any, scope: Scope, *, reason: str | None, limit: int | None) -> list[Memory]:
    scope_sql, params = scope_clause(scope)
    sql = f"SELECT {M_COLUMNS} FROM memories m WHERE {scope_sql} AND m.deleted_at IS NOT NULL"
    if reason is not None:
        sql += " AND m.deleted_reason = %(reason)s"
        params["reason"] = reason
    sql += " ORDER BY m.deleted_at DESC, m.id DESC"
    if limit is not None:
        sql += " LIMIT %(limit)s"
        params["limit"] = limit
    return [to_memory(r) for r in conn.execute(sql, params).fetchall()]


def delete_for_good(conn: Any, ids: Iterable[int]) -> int:
    """Delete the rows and history of ``ids`` (the index vector is part of the row)."""
    wanted = sorted(set(ids))
    vectors.drop_blocks_holding(conn, wanted)  # before the rows: their places cascade away
    conn.execute("DELETE FROM memory_history WHERE memory_id = ANY(%s)", (wanted,))
    return int(conn.execute("DELETE FROM memories WHERE id = ANY(%s)", (wanted,)).rowcount)


def checkpoint(conn: Any) -> bool:
    """SQLite's WAL checkpoint has no counterpart a client runs: the server checkpoints."""
    return True


def vacuum(conn: Any) -> None:
    """Rewrite the tables without dead row versions (VACUUM FULL: the purged text leaves the
    table files; the WAL and backups are the operator's, see docs/team.md). Only the tables' owner
    may: PostgreSQL would skip them for anyone else with a mere warning."""
    if not owns_tables(conn):
        raise StoreError("gc --vacuum on a PostgreSQL store must run as the owner of its tables")
    conn.execute(
        "VACUUM FULL memories, memory_history, operations_log, fts_totals, vector_blocks, "
        "memory_vectors"
    )


def owns_tables(conn: Any) -> bool:
    row = conn.execute(
        "SELECT pg_has_role(c.relowner, 'USAGE') AS owner FROM pg_class c "
        "WHERE c.oid = to_regclass('memories')"
    ).fetchone()
    return bool(row and row["owner"])


_GC_SELECTIONS = {
    "expired": "SELECT m.id FROM memories m WHERE {scope} AND m.deleted_at IS NULL "
    "AND m.expires_at IS NOT NULL AND m.expires_at <= %(now)s",
    "old_trash": "SELECT m.id FROM memories m WHERE {scope} AND m.deleted_at IS NOT NULL "
    "AND m.deleted_at <= %(purge_cutoff)s AND m.deleted_reason IS DISTINCT FROM 'archived'",
    "stale": "SELECT m.id FROM memories m WHERE {scope} AND m.deleted_at IS NULL "
    "AND m.pinned = 0 AND m.importance <= %(max_importance)s "
    "AND greatest(m.updated_at, coalesce(m.last_accessed_at, '')) <= %(stale_cutoff)s",
}


def _gc_sql(
    selection: str, scope: Scope | None, params: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    scope_sql, scope_values = scope_clause(scope)
    return _GC_SELECTIONS[selection].format(scope=scope_sql), {**scope_values, **params}


def gc_count(conn: Any, selection: str, scope: Scope | None, params: dict[str, Any]) -> int:
    sql, values = _gc_sql(selection, scope, params)
    return int(conn.execute(f"SELECT count(*) FROM ({sql}) s", values).fetchone()[0])


def gc_batch(
    conn: Any, selection: str, scope: Scope | None, params: dict[str, Any], size: int
) -> list[int]:
    sql, values = _gc_sql(selection, scope, params)
    rows = conn.execute(f"{sql} ORDER BY m.id LIMIT {int(size)}", values).fetchall()
    return [r[0] for r in rows]


def soft_delete(conn: Any, ids: Sequence[int], now: str, reason: str) -> int:
    return int(
        conn.execute(
            "UPDATE memories SET deleted_at = %s, deleted_reason = %s "
            "WHERE id = ANY(%s) AND deleted_at IS NULL",
            (now, reason, sorted(set(ids))),
        ).rowcount
    )


_LIVE = "m.deleted_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > %(now)s)"


def counts(conn: Any, scope: Scope | None, now: datetime) -> tuple[int, ...]:
    where, params = scope_clause(scope)
    row = conn.execute(
        f"SELECT count(*) FILTER (WHERE {_LIVE}) AS live, "
        "count(*) FILTER (WHERE m.deleted_at IS NULL AND m.expires_at IS NOT NULL "
        "AND m.expires_at <= %(now)s) AS expired, "
        "count(*) FILTER (WHERE m.deleted_at IS NOT NULL) AS trash, "
        f"count(*) FILTER (WHERE ({_LIVE}) AND m.pinned = 1) AS pinned, "
        f"count(*) FILTER (WHERE ({_LIVE}) AND m.key IS NOT NULL) AS keyed "
        f"FROM memories m WHERE {where}",
        {**params, "now": to_iso(now)},
    ).fetchone()
    return tuple(int(v or 0) for v in row.values())


def live_by_category(conn: Any, scope: Scope | None, now: datetime) -> dict[str, int]:
    where, params = scope_clause(scope)
    rows = conn.execute(
        f"SELECT m.category, count(*) AS n FROM memories m WHERE {where} AND {_LIVE} "
        "GROUP BY m.category ORDER BY count(*) DESC, m.category",
        {**params, "now": to_iso(now)},
    ).fetchall()
    return {r[0]: r[1] for r in rows}


def live_by_scope(
    conn: Any, scope: Scope | None, now: datetime
) -> list[tuple[str, str, str, str, int]]:
    where, params = scope_clause(scope)
    rows = conn.execute(
        f'SELECT m."user", m.agent, m.session, m.project, count(*) AS n FROM memories m '
        f'WHERE {where} AND {_LIVE} GROUP BY m."user", m.agent, m.session, m.project '
        'ORDER BY count(*) DESC, m."user", m.agent, m.session, m.project',
        {**params, "now": to_iso(now)},
    ).fetchall()
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def live_contents(conn: Any, scope: Scope | None, now: datetime) -> Iterator[str]:
    where, params = scope_clause(scope)
    rows = conn.execute(
        f"SELECT m.content FROM memories m WHERE {where} AND {_LIVE}",
        {**params, "now": to_iso(now)},
    ).fetchall()
    for r in rows:
        yield r[0]


def server_bytes(conn: Any) -> int | None:
    """The tables and indexes of the store (pg_total_relation_size), WAL aside."""
    row = conn.execute(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c "
        "WHERE c.oid IN (to_regclass('memories'), to_regclass('memory_history'), "
        "to_regclass('operations_log'), to_regclass('store_meta'))"
    ).fetchone()
    return int(row["n"])


def existing(conn: Any) -> Iterator[Any]:
    yield from conn.execute(
        'SELECT id, uid, "user", agent, session, project, key, deleted_at FROM memories'
    ).fetchall()


def fresh_ids(conn: Any, count: int) -> list[int] | None:
    """For a team member (``admin.member_user``), ``count`` ids from the id sequence: row-level
    security hides the other members' rows, so the ids ``existing`` shows are not all the
    ids in use, and ids picked past them would collide. None for the store's owner, who
    sees every row and keeps the ids an export gave (an exact round trip)."""
    from zeromem_cli.storage.postgres.admin import member_user

    if count < 1 or member_user(conn) is None:
        return None
    rows = conn.execute(
        "SELECT nextval(pg_get_serial_sequence('memories', 'id')) AS id "
        "FROM generate_series(1, %(count)s)",
        {"count": count},
    ).fetchall()
    return [int(row["id"]) for row in rows]


def _plain(value: Any) -> Any:
    """Booleans as the integers the columns hold (psycopg sends a bool as boolean)."""
    return int(value) if isinstance(value, bool) else value


def update_imported(conn: Any, row: Any, merged: dict[str, Any], now: str) -> None:
    archive_version(conn, row, now, "import")
    vector, length = index.vectors([merged])[0]
    values = {name: _plain(merged[name]) for name in COLUMNS}
    values["uid"] = uid_to_db(merged["uid"]) if isinstance(merged["uid"], str) else merged["uid"]
    sets = ", ".join(f'"{name}" = %({name})s' for name in COLUMNS if name != "id")
    try:
        with conn.transaction():
            conn.execute(
                f"UPDATE memories SET {sets}, fts = %(fts)s::tsvector, fts_len = %(fts_len)s "
                "WHERE id = %(id)s",
                {**values, "fts": vector, "fts_len": length},
            )
    except Exception as exc:
        if _unique_violation(exc):
            raise ImportConflict(str(exc).splitlines()[0]) from None
        raise


# Imported rows go in as one INSERT per batch, each column an array: the index-totals trigger
# fires once per statement (a row per statement of deltas in ``fts_totals``), and one
# statement costs far less than thousands (``python -m benchmarks.postgres``). COPY would be
# faster still, but PostgreSQL refuses COPY FROM into a table under row-level security.
_INSERTED = (*COLUMNS, "fts", "fts_len")
_TYPES = {
    "id": "bigint",
    "uid": "bytea",
    "content_hash": "bigint",
    "importance": "integer",
    "pinned": "integer",
    "access_count": "integer",
    "fts_len": "integer",
}
_NAMES = ", ".join(f'"{c}"' for c in _INSERTED)
_VALUES = ", ".join(
    f"u.c{n}::tsvector" if c == "fts" else f"u.c{n}" for n, c in enumerate(_INSERTED)
)
_ARRAYS = ", ".join(f"%s::{_TYPES.get(c, 'text')}[]" for c in _INSERTED)
_ALIASES = ", ".join(f"c{n}" for n in range(len(_INSERTED)))
_INSERT_SQL = (
    f"INSERT INTO memories ({_NAMES}) SELECT {_VALUES} FROM unnest({_ARRAYS}) AS u({_ALIASES})"
)
_HISTORY_SQL = (
    f"INSERT INTO memory_history ({', '.join(HISTORY_COLUMNS)}) "
    f"VALUES ({', '.join('%s' for _ in HISTORY_COLUMNS)})"
)


def insert_imported(
    conn: Any,
    rows: list[dict[str, Any]],
    contents: Sequence[str],
    history: Sequence[tuple[Any, ...]],
) -> None:
    """Insert new memories (ids given) with their vectors and earlier versions, then move
    the id sequence past them so later adds never reuse an id."""
    vectors = index.vectors(rows, contents)
    params = []
    for values, (vector, length) in zip(rows, vectors, strict=True):
        stored = [_plain(values[c]) for c in COLUMNS]
        stored[COLUMNS.index("uid")] = uid_to_db(values["uid"])
        params.append((*stored, vector, length))
    try:
        with conn.transaction():
            with conn.cursor() as cursor:
                if params:
                    cursor.execute(_INSERT_SQL, [list(c) for c in zip(*params, strict=True)])
                if history:
                    cursor.executemany(_HISTORY_SQL, [tuple(map(_plain, h)) for h in history])
    except Exception as exc:
        if _unique_violation(exc):
            raise ImportConflict(str(exc).splitlines()[0]) from None
        raise
    from zeromem_cli.storage.postgres.admin import member_user

    if member_user(conn) is None:  # a member's ids came from the sequence (``fresh_ids``)
        conn.execute(
            "SELECT setval(pg_get_serial_sequence('memories', 'id'), "
            "greatest((SELECT max(id) FROM memories), 1))"
        )
