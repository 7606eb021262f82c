"""Memory vectors (the ``semantic`` extra) on SQLite: the statements behind the layout
``storage.vector_blocks`` describes (shared with PostgreSQL). A vector whose ``content_hash``
differs from its memory's is stale and never used; vectors of another model than
``store_meta['vector_model']`` are never mixed in.

Searching ranks the blocks' vectors in Python, then asks ``visible`` which of the best ids
the scope and filters admit with a current vector, as FTS5 candidates are checked after
BM25 (``candidates._visible``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime

from zeromem_cli.models import Filters, Scope
from zeromem_cli.storage import vector_blocks
from zeromem_cli.storage.sqlite.sql import filter_clause, scope_params, scope_sql
from zeromem_cli.storage.vector_blocks import BLOCK_SIZE, MODEL_KEY, Block

# Writes to ``vector_blocks`` made through each open connection: what tells a process's
# cache of vectors that its own connection changed them, and which blocks to read again.
# ``total_changes`` counted every write, and the MCP server writes an access count or an
# operations-log line with every read (``python -m benchmarks.semantic --costs``).
_WRITES = vector_blocks.WriteLog()


def model(conn: sqlite3.Connection) -> str | None:
    """The model the stored vectors come from (None: none stored yet)."""
    row = conn.execute("SELECT value FROM store_meta WHERE key = ?", (MODEL_KEY,)).fetchone()
    return None if row is None else str(row[0])


def set_model(conn: sqlite3.Connection, name: str) -> None:
    """Record ``name`` as the vectors' model, dropping every vector of another model."""
    vector_blocks.set_model(
        model(conn),
        name,
        lambda: clear(conn),
        lambda: conn.execute(
            "INSERT OR REPLACE INTO store_meta(key, value) VALUES (?, ?)", (MODEL_KEY, name)
        ),
    )


def clear(conn: sqlite3.Connection) -> None:
    """Every vector gone (a change of model)."""
    _WRITES.wrote(conn)
    conn.execute("DELETE FROM memory_vectors")
    conn.execute("DELETE FROM vector_blocks")


def fingerprint(conn: sqlite3.Connection) -> tuple[int, ...]:
    """Changes whenever the stored vectors may have: another connection committed
    (``data_version``), this one wrote a block or rolled a transaction back (what a cache
    read inside it may be undone). What a process's cache of vectors is checked against."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0]), *_WRITES.mark(conn)


def closed(conn: sqlite3.Connection) -> None:
    """``conn`` is closing: its log of written blocks goes with it."""
    _WRITES.forget(conn)


def rolled_back(conn: sqlite3.Connection) -> None:
    """A transaction of ``conn`` rolled back: every block may differ from what was read."""
    _WRITES.wrote(conn)


def changed_blocks(conn: sqlite3.Connection, since: tuple[int, ...]) -> set[int] | None:
    """The blocks this connection wrote since the ``fingerprint`` ``since``, when nothing
    else may have changed; None when another connection committed meanwhile."""
    if fingerprint(conn)[0] != since[0]:
        return None
    return _WRITES.since(conn, (since[1], since[2]))


def owner_blocks(conn: sqlite3.Connection, owners: Sequence[tuple[str, str]]) -> list[Block]:
    """Every block of these owners (user, project)."""
    return vector_blocks.owner_blocks(
        lambda user, project: conn.execute(
            # No ORDER BY: SQLite would then walk every block by id instead of the owner's
            # index (``semantic.blocks.Vectors`` orders them).
            "SELECT id, ids, scales, vectors FROM vector_blocks WHERE user = ? AND project = ?",
            (user, project),
        ).fetchall(),
        owners,
    )


def block_of(conn: sqlite3.Connection, memory_id: int) -> sqlite3.Row | None:
    """The block holding ``memory_id``'s vector (any content version), or None."""
    return conn.execute(
        "SELECT b.* FROM memory_vectors v JOIN vector_blocks b ON b.id = v.block_id "
        "WHERE v.memory_id = ?",
        (memory_id,),
    ).fetchone()


def open_block(conn: sqlite3.Connection, user: str, project: str) -> sqlite3.Row | None:
    """The owner's newest block with room left, or None."""
    return conn.execute(
        "SELECT * FROM vector_blocks WHERE user = ? AND project = ? AND size < ? "
        "ORDER BY id DESC LIMIT 1",
        (user, project, BLOCK_SIZE),
    ).fetchone()


def save_block(
    conn: sqlite3.Connection,
    block_id: int | None,
    owner: tuple[str, str],
    size: int,
    blobs: tuple[bytes, bytes, bytes],
) -> int:
    """Write a block (a new one when ``block_id`` is None; an empty one is deleted); its id."""
    saved = vector_blocks.save_block(
        block_id,
        size,
        lambda gone: conn.execute("DELETE FROM vector_blocks WHERE id = ?", (gone,)),
        lambda: int(
            conn.execute(
                "INSERT INTO vector_blocks(user, project, size, ids, scales, vectors) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (*owner, size, *blobs),
            ).lastrowid
            or 0
        ),
        lambda kept: conn.execute(
            "UPDATE vector_blocks SET size = ?, ids = ?, scales = ?, vectors = ? WHERE id = ?",
            (size, *blobs, kept),
        ),
    )
    _WRITES.wrote(conn, [saved])
    return saved


def place(conn: sqlite3.Connection, entries: Iterable[tuple[int, int, int]]) -> None:
    """Record (memory id, block id, content hash) for each vector written."""
    conn.executemany(
        "INSERT OR REPLACE INTO memory_vectors(memory_id, block_id, content_hash) VALUES (?, ?, ?)",
        entries,
    )


def unplace(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, list[int]]:
    """Forget where the vectors of ``ids`` are; {block id: the memory ids it held of them}."""
    pairs: list[tuple[int, int]] = []
    for start in range(0, len(ids), 500):
        chunk = json.dumps(list(ids[start : start + 500]))
        pairs.extend(
            conn.execute(
                "SELECT memory_id, block_id FROM memory_vectors "
                "WHERE memory_id IN (SELECT value FROM json_each(?))",
                (chunk,),
            ).fetchall()
        )
        conn.execute(
            "DELETE FROM memory_vectors WHERE memory_id IN (SELECT value FROM json_each(?))",
            (chunk,),
        )
    return vector_blocks.by_block(pairs)


def block(conn: sqlite3.Connection, block_id: int) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM vector_blocks WHERE id = ?", (block_id,)).fetchone()


def visible(
    conn: sqlite3.Connection, scope: Scope, now: datetime, filters: Filters, ids: Sequence[int]
) -> dict[int, sqlite3.Row]:
    """The memories among ``ids`` that ``scope`` and ``filters`` admit and whose vector is of
    their current content, by id."""
    where, params = filter_clause(filters, now)
    params.update(scope_params(scope), ids=json.dumps(list(ids)))
    rows = conn.execute(
        "SELECT m.* FROM json_each(:ids) AS j CROSS JOIN memories m ON m.id = j.value "
        "JOIN memory_vectors v ON v.memory_id = m.id AND v.content_hash = m.content_hash "
        f"WHERE {scope_sql(scope)} AND {where}",
        params,
    ).fetchall()
    return {row["id"]: row for row in rows}


def unembedded(
    conn: sqlite3.Connection, after: int, limit: int, scope: Scope | None = None
) -> list[sqlite3.Row]:
    """Live memories (id above ``after``) without a vector of their current content, by id:
    what ``zeromem index`` embeds, a batch at a time."""
    clause, params = ("1", {}) if scope is None else (scope_sql(scope), scope_params(scope))
    return conn.execute(
        "SELECT m.id, m.content, m.content_hash, m.user, m.project FROM memories m "
        "LEFT JOIN memory_vectors v ON v.memory_id = m.id "
        "WHERE m.id > :after AND m.deleted_at IS NULL "
        "AND (v.memory_id IS NULL OR v.content_hash != m.content_hash) "
        f"AND {clause} ORDER BY m.id LIMIT :limit",
        {"after": after, "limit": limit, **params},
    ).fetchall()


def content_hashes(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, int]:
    """{id: content hash} of the live memories among ``ids``."""
    return {
        int(row[0]): int(row[1])
        for row in conn.execute(
            "SELECT m.id, m.content_hash FROM json_each(?) AS j "
            "CROSS JOIN memories m ON m.id = j.value WHERE m.deleted_at IS NULL",
            (json.dumps(list(ids)),),
        )
    }


def drop_blocks_holding(conn: sqlite3.Connection, ids: Sequence[int]) -> int:
    """Delete every block holding a vector of ``ids``, with all it held (their memories
    count as not embedded again: ``zeromem index`` re-embeds them). Purge's way when the
    extra is not installed to edit a block; with it, ``semantic.blocks.remove`` is exact.
    How many blocks went."""
    gone = 0
    for start in range(0, len(ids), 500):
        chunk = json.dumps(list(ids[start : start + 500]))
        block_ids = [
            row[0]
            for row in conn.execute(
                "SELECT DISTINCT block_id FROM memory_vectors "
                "WHERE memory_id IN (SELECT value FROM json_each(?))",
                (chunk,),
            )
        ]
        if block_ids:
            _WRITES.wrote(conn, block_ids)
        for block_id in block_ids:
            conn.execute("DELETE FROM memory_vectors WHERE block_id = ?", (block_id,))
            gone += conn.execute("DELETE FROM vector_blocks WHERE id = ?", (block_id,)).rowcount
    return gone


def coverage(conn: sqlite3.Connection, scope: Scope | None, now: datetime) -> tuple[int, int]:
    """(live memories with a current vector, live memories) in ``scope`` (None: all)."""
    where, params = filter_clause(Filters(), now)
    if scope is not None:
        where = f"{scope_sql(scope)} AND {where}"
        params.update(scope_params(scope))
    row = conn.execute(
        "SELECT count(v.memory_id), count(*) FROM memories m "
        "LEFT JOIN memory_vectors v ON v.memory_id = m.id AND v.content_hash = m.content_hash "
        f"WHERE {where}",
        params,
    ).fetchone()
    return int(row[0]), int(row[1])


def stored_bytes(conn: sqlite3.Connection) -> int:
    """Bytes of vector data held (the blobs alone, without SQLite's page overhead)."""
    row = conn.execute(
        "SELECT coalesce(sum(length(ids) + length(scales) + length(vectors)), 0) FROM vector_blocks"
    ).fetchone()
    return int(row[0])
