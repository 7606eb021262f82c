"""Index maintenance on PostgreSQL (the interface is ``storage.fts``): the vectors live in
their rows, so there is no separate index to add to or remove from; what is left is the
rebuild after a change of ``INDEX_VERSION`` and GIN's pending list."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from zeromem_cli.storage.postgres import index
from zeromem_cli.storage.postgres.migrations import _LOCK_KEY
from zeromem_cli.storage.postgres.sql import COLUMNS
from zeromem_cli.text.normalize import INDEX_VERSION


def _index_version(conn: Any) -> int | None:
    row = conn.execute("SELECT value FROM store_meta WHERE key = 'index_version'").fetchone()
    return None if row is None else int(row["value"])


def ensure_index_version(conn: Any, path: str, notice: Callable[[str], None] | None = None) -> None:
    """Recompute every vector when they were built by another ``INDEX_VERSION`` (``path``:
    the store as messages name it)."""
    if _index_version(conn) == INDEX_VERSION:
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY + 1,))
        version = _index_version(conn)
        if version == INDEX_VERSION:
            return
        if version is not None:
            rows = conn.execute(f"SELECT {COLUMNS} FROM memories").fetchall()
            if notice is not None and len(rows) >= 10_000:
                notice(f"rebuilding the search index of {len(rows):,} memories (once)")
            vectors = index.vectors(rows)
            with conn.cursor() as cursor:
                cursor.executemany(
                    "UPDATE memories SET fts = %s::tsvector, fts_len = %s WHERE id = %s",
                    [(v, n, r["id"]) for r, (v, n) in zip(rows, vectors, strict=True)],
                )
        conn.execute(
            "INSERT INTO store_meta (key, value) VALUES ('index_version', %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(INDEX_VERSION),),
        )


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
