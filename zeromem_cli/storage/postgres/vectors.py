"""Memory vectors on PostgreSQL: the statements behind the layout ``storage.vector_blocks``
describes (shared with SQLite: blocks of one owner's int8 vectors, ``memory_vectors`` saying
where each memory's is), under row security like the memories' (migration 6): a member
reads and writes only its own blocks and those of the shared scopes it may read.

Ranking is brute force in the client over the scope's blocks, as on SQLite: no extension is
needed (pgvector is not in Debian 12), and a search transfers the owner's vectors (about
400 bytes a memory). ``docs/semantic.md`` says where that stops paying and what pgvector
would change. A member's writes need the store's model already recorded (the owner's, set by
the migration): members may not change ``store_meta``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from zeromem_cli.models import Filters, Scope
from zeromem_cli.storage import vector_blocks
from zeromem_cli.storage.postgres.sql import M_COLUMNS, filter_clause, scope_params, scope_sql
from zeromem_cli.storage.vector_blocks import BLOCK_SIZE, MODEL_KEY, Block


def model(conn: Any) -> str | None:
    row = conn.execute("SELECT value FROM store_meta WHERE key = %s", (MODEL_KEY,)).fetchone()
    return None if row is None else str(row["value"])


def set_model(conn: Any, name: str) -> None:
    vector_blocks.set_model(
        model(conn),
        name,
        lambda: clear(conn),
        lambda: conn.execute(
            "INSERT INTO store_meta (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (MODEL_KEY, name),
        ),
    )


def clear(conn: Any) -> None:
    conn.execute("DELETE FROM memory_vectors")
    conn.execute("DELETE FROM vector_blocks")


def fingerprint(conn: Any) -> tuple[int, int]:
    """Changes whenever the vector blocks this connection sees do: their count and the sum
    of their rows' creating transactions (a rewritten block is a new row version with a newer
    ``xmin``, whoever wrote it). Only the small block rows are read, never their vectors
    (out of line): what a process's cache of vectors is checked against."""
    row = conn.execute(
        "SELECT count(*) AS n, coalesce(sum(xmin::text::bigint), 0) AS mark FROM vector_blocks"
    ).fetchone()
    return int(row["n"]), int(row["mark"])


def owner_blocks(conn: Any, owners: Sequence[tuple[str, str]]) -> list[Block]:
    return vector_blocks.owner_blocks(
        lambda user, project: conn.execute(
            'SELECT id, ids, scales, vectors FROM vector_blocks WHERE "user" = %s AND project = %s '
            "ORDER BY id",
            (user, project),
        ).fetchall(),
        owners,
    )


def block_of(conn: Any, memory_id: int) -> Any:
    return conn.execute(
        "SELECT b.* FROM memory_vectors v JOIN vector_blocks b ON b.id = v.block_id "
        "WHERE v.memory_id = %s",
        (memory_id,),
    ).fetchone()


def open_block(conn: Any, user: str, project: str) -> Any:
    """Locked (FOR UPDATE): two writers of one owner never rewrite the same block at once."""
    return conn.execute(
        'SELECT * FROM vector_blocks WHERE "user" = %s AND project = %s AND size < %s '
        "ORDER BY id DESC LIMIT 1 FOR UPDATE",
        (user, project, BLOCK_SIZE),
    ).fetchone()


def save_block(
    conn: Any,
    block_id: int | None,
    owner: tuple[str, str],
    size: int,
    blobs: tuple[bytes, bytes, bytes],
) -> int:
    return vector_blocks.save_block(
        block_id,
        size,
        lambda gone: conn.execute("DELETE FROM vector_blocks WHERE id = %s", (gone,)),
        lambda: int(
            conn.execute(
                'INSERT INTO vector_blocks ("user", project, size, ids, scales, vectors) '
                "VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
                (*owner, size, *blobs),
            ).fetchone()["id"]
        ),
        lambda kept: conn.execute(
            "UPDATE vector_blocks SET size = %s, ids = %s, scales = %s, vectors = %s WHERE id = %s",
            (size, *blobs, kept),
        ),
    )


def place(conn: Any, entries: Iterable[tuple[int, int, int]]) -> None:
    with conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO memory_vectors (memory_id, block_id, content_hash) VALUES (%s, %s, %s) "
            "ON CONFLICT (memory_id) DO UPDATE SET block_id = excluded.block_id, "
            "content_hash = excluded.content_hash",
            list(entries),
        )


def unplace(conn: Any, ids: Sequence[int]) -> dict[int, list[int]]:
    rows = conn.execute(
        "DELETE FROM memory_vectors WHERE memory_id = ANY(%s) RETURNING memory_id, block_id",
        (list(ids),),
    ).fetchall()
    return vector_blocks.by_block((row["memory_id"], row["block_id"]) for row in rows)


def block(conn: Any, block_id: int) -> Any:
    return conn.execute("SELECT * FROM vector_blocks WHERE id = %s", (block_id,)).fetchone()


def visible(
    conn: Any, scope: Scope, now: datetime, filters: Filters, ids: Sequence[int]
) -> dict[int, Any]:
    where, params = filter_clause(filters, now)
    params.update(scope_params(scope), ids=list(ids))
    rows = conn.execute(
        f"SELECT {M_COLUMNS} FROM memories m JOIN memory_vectors v "
        "ON v.memory_id = m.id AND v.content_hash = m.content_hash "
        f"WHERE m.id = ANY(%(ids)s) AND {scope_sql(scope)} AND {where}",
        params,
    ).fetchall()
    return {int(row["id"]): row for row in rows}


def unembedded(conn: Any, after: int, limit: int, scope: Scope | None = None) -> list[Any]:
    clause, params = ("TRUE", {}) if scope is None else (scope_sql(scope), scope_params(scope))
    return list(
        conn.execute(
            'SELECT m.id, m.content, m.content_hash, m."user", m.project FROM memories m '
            "LEFT JOIN memory_vectors v ON v.memory_id = m.id "
            "WHERE m.id > %(after)s AND m.deleted_at IS NULL "
            "AND (v.memory_id IS NULL OR v.content_hash <> m.content_hash) "
            f"AND {clause} ORDER BY m.id LIMIT %(limit)s",
            {"after": after, "limit": limit, **params},
        ).fetchall()
    )


def content_hashes(conn: Any, ids: Sequence[int]) -> dict[int, int]:
    rows = conn.execute(
        "SELECT id, content_hash FROM memories WHERE id = ANY(%s) AND deleted_at IS NULL",
        (list(ids),),
    ).fetchall()
    return {int(r["id"]): int(r["content_hash"]) for r in rows}


def drop_blocks_holding(conn: Any, ids: Sequence[int]) -> int:
    block_ids = [
        int(r["block_id"])
        for r in conn.execute(
            "SELECT DISTINCT block_id FROM memory_vectors WHERE memory_id = ANY(%s)",
            (list(ids),),
        ).fetchall()
    ]
    if not block_ids:
        return 0
    conn.execute("DELETE FROM memory_vectors WHERE block_id = ANY(%s)", (block_ids,))
    return int(conn.execute("DELETE FROM vector_blocks WHERE id = ANY(%s)", (block_ids,)).rowcount)


def coverage(conn: Any, scope: Scope | None, now: datetime) -> tuple[int, int]:
    where, params = filter_clause(Filters(), now)
    if scope is not None:
        where = f"{scope_sql(scope)} AND {where}"
        params.update(scope_params(scope))
    row = conn.execute(
        "SELECT count(v.memory_id) AS embedded, count(*) AS live FROM memories m "
        "LEFT JOIN memory_vectors v ON v.memory_id = m.id AND v.content_hash = m.content_hash "
        f"WHERE {where}",
        params,
    ).fetchone()
    return int(row["embedded"]), int(row["live"])


def stored_bytes(conn: Any) -> int:
    row = conn.execute(
        "SELECT coalesce(sum(length(ids) + length(scales) + length(vectors)), 0) AS n "
        "FROM vector_blocks"
    ).fetchone()
    return int(row["n"])
