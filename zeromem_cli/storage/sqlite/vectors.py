"""Memory vectors (the ``semantic`` extra): where they are kept and how they are read.

Layout, chosen so that a fresh process reads a whole owner's vectors in a few rows: vectors
live in ``vector_blocks``, up to ``BLOCK_SIZE`` per row, one owner (user, project) per block,
as three blobs (memory ids as int64, one float32 scale each, the int8 components; the
arrays are ``semantic.blocks``'s business, this module moves bytes). ``memory_vectors`` says
which block holds a memory's vector and of which content (``content_hash``): a vector whose
hash differs from its memory's is stale and never used. The model the vectors come from is
``store_meta['vector_model']``: vectors of another model are never mixed in.

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
from zeromem_cli.storage.base import VECTOR_BLOCK_SIZE
from zeromem_cli.storage.sqlite.sql import filter_clause, scope_params, scope_sql

# Vectors per block: an add rewrites its owner's last block (this many vectors at most,
# ~100 KB), and a cold search reads 100k vectors in a few hundred rows
# (``python -m benchmarks.semantic --costs``).
BLOCK_SIZE = VECTOR_BLOCK_SIZE

_MODEL_KEY = "vector_model"


def model(conn: sqlite3.Connection) -> str | None:
    """The model the stored vectors come from (None: none stored yet)."""
    row = conn.execute("SELECT value FROM store_meta WHERE key = ?", (_MODEL_KEY,)).fetchone()
    return None if row is None else str(row[0])


def set_model(conn: sqlite3.Connection, name: str) -> None:
    """Record ``name`` as the vectors' model, dropping every vector of another model."""
    if model(conn) == name:
        return
    clear(conn)
    conn.execute("INSERT OR REPLACE INTO store_meta(key, value) VALUES (?, ?)", (_MODEL_KEY, name))


def clear(conn: sqlite3.Connection) -> None:
    """Every vector gone (a change of model)."""
    _wrote(conn)
    conn.execute("DELETE FROM memory_vectors")
    conn.execute("DELETE FROM vector_blocks")


# Writes to ``vector_blocks`` made through each open connection (by ``id``): what tells a
# process's cache of vectors that its own connection changed them. ``total_changes`` counted
# every write, and the MCP server writes an access count or an operations-log line with every
# read, so each search read 100k vectors again (``python -m benchmarks.semantic --costs``).
_BLOCK_WRITES: dict[int, int] = {}


def _wrote(conn: sqlite3.Connection) -> None:
    _BLOCK_WRITES[id(conn)] = _BLOCK_WRITES.get(id(conn), 0) + 1


def fingerprint(conn: sqlite3.Connection) -> tuple[int, int]:
    """Changes whenever the stored vectors may have: another connection committed
    (``data_version``) or this one wrote a block (even in a transaction later rolled back:
    then a cache reads again for nothing). What a process's cache of vectors is checked
    against."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0]), _BLOCK_WRITES.get(id(conn), 0)


def owner_blocks(
    conn: sqlite3.Connection, owners: Sequence[tuple[str, str]]
) -> list[tuple[bytes, bytes, bytes]]:
    """(ids, scales, vectors) of every block of these owners (user, project)."""
    out: list[tuple[bytes, bytes, bytes]] = []
    for user, project in dict.fromkeys(owners):
        out.extend(
            conn.execute(
                "SELECT ids, scales, vectors FROM vector_blocks WHERE user = ? AND project = ?",
                (user, project),
            ).fetchall()
        )
    return [(bytes(a), bytes(b), bytes(c)) for a, b, c in out]


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
    _wrote(conn)
    if block_id is not None and size == 0:
        conn.execute("DELETE FROM vector_blocks WHERE id = ?", (block_id,))
        return block_id
    if block_id is None:
        cursor = conn.execute(
            "INSERT INTO vector_blocks(user, project, size, ids, scales, vectors) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (*owner, size, *blobs),
        )
        return int(cursor.lastrowid or 0)
    conn.execute(
        "UPDATE vector_blocks SET size = ?, ids = ?, scales = ?, vectors = ? WHERE id = ?",
        (size, *blobs, block_id),
    )
    return block_id


def place(conn: sqlite3.Connection, entries: Iterable[tuple[int, int, int]]) -> None:
    """Record (memory id, block id, content hash) for each vector written."""
    conn.executemany(
        "INSERT OR REPLACE INTO memory_vectors(memory_id, block_id, content_hash) VALUES (?, ?, ?)",
        entries,
    )


def unplace(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, list[int]]:
    """Forget where the vectors of ``ids`` are; {block id: the memory ids it held of them}."""
    blocks: dict[int, list[int]] = {}
    for start in range(0, len(ids), 500):
        chunk = json.dumps(list(ids[start : start + 500]))
        for memory_id, block_id in conn.execute(
            "SELECT memory_id, block_id FROM memory_vectors "
            "WHERE memory_id IN (SELECT value FROM json_each(?))",
            (chunk,),
        ):
            blocks.setdefault(block_id, []).append(memory_id)
        conn.execute(
            "DELETE FROM memory_vectors WHERE memory_id IN (SELECT value FROM json_each(?))",
            (chunk,),
        )
    return blocks


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
    _wrote(conn)
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
