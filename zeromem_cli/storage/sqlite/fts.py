"""The FTS5 index: what each memory contributes to it and how it is added and removed.

``memories_fts`` is contentless, keyed by the memory id, with the columns content, tags,
category and key holding segmented text (``text.index_text``). A contentless table deletes by
replaying the exact values once indexed, so removal recomputes them from the row: that is why
a change to ``index_text`` bumps ``INDEX_VERSION`` and the store rebuilds the whole index.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from zeromem_cli.storage.sqlite import migrations
from zeromem_cli.storage.sqlite.db import transaction
from zeromem_cli.storage.sqlite.schema import index_version
from zeromem_cli.text.normalize import INDEX_VERSION, index_text

Row = sqlite3.Row | dict[str, Any]


def index_values(row: Row) -> tuple[str, str, str, str]:
    """The four FTS columns of a memory row (tags stored as a JSON array)."""
    return (
        index_text(row["content"]),
        _tags_text(row["tags"]),
        index_text(row["category"]),
        index_text(row["key"] or ""),
    )


def _tags_text(tags: str | None) -> str:
    """The index text of the tags column (a JSON array of text)."""
    import json  # a write's; a search never indexes

    return index_text(" ".join(json.loads(tags)) if isinstance(tags, str) else "")


def index_row(conn: sqlite3.Connection, row: Row) -> None:
    conn.execute(
        "INSERT INTO memories_fts(rowid, content, tags, category, key) VALUES (?, ?, ?, ?, ?)",
        (row["id"], *index_values(row)),
    )


def index_rows(
    conn: sqlite3.Connection, rows: Iterable[Row], contents: Sequence[str] | None = None
) -> None:
    """Index many rows in one executemany (bulk import, rebuilds).

    The same ``index_values`` as one row at a time, but labels repeat from row to row (a few
    categories and tag sets, mostly no key), so each distinct one is segmented once.
    ``contents``: each row's ``index_text(row["content"])`` when the caller has it already.
    """
    conn.executemany(
        "INSERT INTO memories_fts(rowid, content, tags, category, key) VALUES (?, ?, ?, ?, ?)",
        _index_rows_values(rows, contents),
    )


def _index_rows_values(
    rows: Iterable[Row], contents: Sequence[str] | None
) -> Iterator[tuple[Any, str, str, str, str]]:
    tags_seen: dict[Any, str] = {}  # stored tags (JSON) -> index text
    labels_seen: dict[str, str] = {}  # category or key -> index text
    for number, row in enumerate(rows):
        tags, category, key = row["tags"], row["category"], row["key"] or ""
        tags_text = tags_seen.get(tags)
        if tags_text is None:
            tags_text = tags_seen[tags] = _tags_text(tags)
        category_text = labels_seen.get(category)
        if category_text is None:
            category_text = labels_seen[category] = index_text(category)
        key_text = labels_seen.get(key)
        if key_text is None:
            key_text = labels_seen[key] = index_text(key)
        content = contents[number] if contents is not None else index_text(row["content"])
        yield row["id"], content, tags_text, category_text, key_text


def unindex_row(conn: sqlite3.Connection, row: Row) -> None:
    conn.execute(
        "INSERT INTO memories_fts(memories_fts, rowid, content, tags, category, key) "
        "VALUES ('delete', ?, ?, ?, ?, ?)",
        (row["id"], *index_values(row)),
    )


def optimize(conn: sqlite3.Connection) -> None:
    """Merge every FTS segment into one: segments that still held deleted tokens are rewritten
    and their pages freed (and zeroed, with secure_delete)."""
    conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")


def ensure_index_version(
    conn: sqlite3.Connection, path: Path | str, notice: Callable[[str], None] | None = None
) -> None:
    """Rebuild the whole index when it was built by another ``INDEX_VERSION`` of the
    segmentation (or never: a new database). ``notice`` is told first on a large store."""
    if index_version(conn) == INDEX_VERSION:
        return
    with transaction(conn, path):
        version = index_version(conn)
        if version == INDEX_VERSION:
            return  # another process rebuilt it while we waited for the write lock
        if notice is not None and version is not None:
            count = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
            if count >= migrations.NOTICE_MIN_MEMORIES:
                notice(
                    f"rebuilding the search index of {count:,} memories (once, after an upgrade)"
                )
        conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('delete-all')")
        index_rows(conn, conn.execute("SELECT id, content, tags, category, key FROM memories"))
        conn.execute(
            "INSERT OR REPLACE INTO store_meta(key, value) VALUES ('index_version', ?)",
            (str(INDEX_VERSION),),
        )


# FTS5 buffers new index entries in a hash of pending terms and writes them out as a segment
# whenever it holds more than 'hashsize' bytes (1 MiB by default); segments are then merged,
# level by level. A bulk load writes far fewer, bigger segments with a larger hash, which
# spares FTS5 time per row (measured by ``python -m benchmarks.transfer_speed``), for at most
# this much memory.
BULK_HASH_SIZE = 64 * 1024 * 1024
DEFAULT_HASH_SIZE = 1024 * 1024


@contextmanager
def bulk_loading(conn: sqlite3.Connection) -> Iterator[None]:
    """FTS5 tuned for many inserts, inside the caller's transaction.

    The setting lives in the index's config table: it is put back as it was when the block
    ends normally (an error rolls the transaction back, which undoes it as well).
    """
    row = conn.execute("SELECT v FROM memories_fts_config WHERE k = 'hashsize'").fetchone()
    _set_hash_size(conn, BULK_HASH_SIZE)
    yield
    _set_hash_size(conn, int(row[0]) if row is not None else DEFAULT_HASH_SIZE)
    if row is None:  # as a store that never set it
        conn.execute("DELETE FROM memories_fts_config WHERE k = 'hashsize'")


def _set_hash_size(conn: sqlite3.Connection, size: int) -> None:
    conn.execute("INSERT INTO memories_fts(memories_fts, rank) VALUES ('hashsize', ?)", (size,))
