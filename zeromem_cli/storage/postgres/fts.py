"""Index maintenance on PostgreSQL (the interface is ``storage.fts``): the vectors live in
their rows, so there is no separate index to add to or remove from; what is left is the
rebuild after a change of ``INDEX_VERSION`` or of the tokenizer (``reindex``: in batches,
resumable) and GIN's pending list."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from zeromem_cli.storage.postgres import index
from zeromem_cli.storage.postgres.migrations import _LOCK_KEY
from zeromem_cli.storage.postgres.sql import COLUMNS
from zeromem_cli.text.normalize import INDEX_VERSION


def _meta(conn: Any, key: str) -> str | None:
    row = conn.execute("SELECT value FROM store_meta WHERE key = %s", (key,)).fetchone()
    return None if row is None else str(row["value"])


def ensure_index_version(conn: Any, path: str, notice: Callable[[str], None] | None = None) -> None:
    """Recompute every vector when they were built by another ``INDEX_VERSION``, or a
    migration asked for it (``path``: the store as messages name it): marked in one
    transaction, rebuilt in batches (``reindex``). A member may not rewrite other members'
    rows: only the tables' owner re-indexes (searches work meanwhile, on the vectors there
    are)."""
    from zeromem_cli.storage.postgres.bulk import owns_tables

    rows = conn.execute(
        "SELECT key, value FROM store_meta WHERE key IN ('index_version', 'reindex_below')"
    ).fetchall()
    found = {r["key"]: r["value"] for r in rows}
    if found == {"index_version": str(INDEX_VERSION)}:
        return
    if not owns_tables(conn):
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY + 1,))
        version = _meta(conn, "index_version")
        if version is not None and version != str(INDEX_VERSION):
            _set(conn, "reindex_below", "SELECT (coalesce(max(id), 0) + 1)::text FROM memories")
        _set(conn, "index_version", "SELECT %s", str(INDEX_VERSION))
    reindex(conn, notice)


def _set(conn: Any, key: str, value_sql: str, *params: Any) -> None:
    conn.execute(
        f"INSERT INTO store_meta (key, value) SELECT %s, ({value_sql}) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, *params),
    )


REINDEX_BATCH = 2_000


def reindex(
    conn: Any,
    notice: Callable[[str], None] | None = None,
    *,
    batch: int = REINDEX_BATCH,
    batches: int | None = None,
) -> int:
    """Rebuild the vectors of the memories below ``reindex_below``, newest first, ``batch``
    rows a transaction, each moving the mark down with it: an interrupted rebuild (a killed
    process, ``batches`` reached) resumes where it stopped on the next open. Processes opening
    the store at once take turns by batch. How many rows were rebuilt."""
    done = 0
    told = False
    while batches is None or batches > 0:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY + 1,))
            below = _meta(conn, "reindex_below")
            if below is None:
                break
            rows = conn.execute(
                f"SELECT {COLUMNS} FROM memories WHERE id < %s ORDER BY id DESC LIMIT %s",
                (int(below), batch),
            ).fetchall()
            if notice is not None and not told and int(below) > 10 * batch:
                notice(f"rebuilding the search index of memories below #{below} (once)")
                told = True
            if rows:
                vectors = index.vectors(rows)
                with conn.cursor() as cursor:
                    cursor.executemany(
                        "UPDATE memories SET fts = %s::tsvector, fts_len = %s WHERE id = %s",
                        [(v, n, r["id"]) for r, (v, n) in zip(rows, vectors, strict=True)],
                    )
                done += len(rows)
            if len(rows) < batch:
                conn.execute("DELETE FROM store_meta WHERE key = 'reindex_below'")
            else:
                _set(conn, "reindex_below", "SELECT %s", str(rows[-1]["id"]))
        if batches is not None:
            batches -= 1
    return done


def optimize(conn: Any) -> None:
    """Move GIN's pending entries into the main index structure (the owner's to do; a
    member's gc leaves it to the owner's, and to autovacuum)."""
    from zeromem_cli.storage.postgres.bulk import owns_tables

    if owns_tables(conn):
        conn.execute("SELECT gin_clean_pending_list('memories_fts'::regclass)")


@contextmanager
def bulk_loading(conn: Any) -> Iterator[None]:
    """FTS5's bulk hash size has no counterpart (the GIN index buffers inserts itself); what
    a large import needs here is fresh planner statistics. Searches read the most common
    lexemes from them (``postgres.candidates``) and the planner picks between walking the
    newest rows and asking the index by them; until autovacuum's next ANALYZE a store just
    filled searched as if empty. So when the rows grew by a tenth or more (autovacuum's own
    threshold), the owner's import ends with ANALYZE (a member may not: autovacuum will)."""
    from zeromem_cli.storage.postgres.bulk import owns_tables

    before = _estimated_rows(conn)
    yield
    if owns_tables(conn):
        after = conn.execute("SELECT count(*) AS n FROM memories").fetchone()["n"]
        if after > 1.1 * max(before, 0) + 1000:
            _analyze(conn)


def _analyze(conn: Any) -> None:
    """ANALYZE, given up (the import kept) when another session's VACUUM or ANALYZE holds the
    table for more than a second: the statistics are a help, autovacuum refreshes them too."""
    import psycopg

    from zeromem_cli.storage.postgres.db import LOCK_TIMEOUT_MS

    try:
        with conn.transaction():
            conn.execute("SET LOCAL lock_timeout = 1000")
            conn.execute("ANALYZE memories")
    except psycopg.errors.LockNotAvailable:
        pass
    finally:
        conn.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")


def _estimated_rows(conn: Any) -> float:
    row = conn.execute(
        "SELECT reltuples AS n FROM pg_class WHERE oid = to_regclass('memories')"
    ).fetchone()
    return float(row["n"]) if row is not None else 0.0
