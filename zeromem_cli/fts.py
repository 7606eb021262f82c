"""The FTS5 index: what each memory contributes to it and how it is added and removed.

``memories_fts`` is contentless, keyed by the memory id, with the columns content, tags,
category and key holding segmented text (``text.index_text``). A contentless table deletes by
replaying the exact values once indexed, so removal recomputes them from the row: that is why
a change to ``index_text`` bumps ``INDEX_VERSION`` and the store rebuilds the whole index.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from zeromem_cli.text import index_text

Row = sqlite3.Row | dict[str, Any]


def index_values(row: Row) -> tuple[str, str, str, str]:
    """The four FTS columns of a memory row (tags stored as a JSON array)."""
    tags = " ".join(json.loads(row["tags"])) if isinstance(row["tags"], str) else ""
    return (
        index_text(row["content"]),
        index_text(tags),
        index_text(row["category"]),
        index_text(row["key"] or ""),
    )


def index_row(conn: sqlite3.Connection, row: Row) -> None:
    conn.execute(
        "INSERT INTO memories_fts(rowid, content, tags, category, key) VALUES (?, ?, ?, ?, ?)",
        (row["id"], *index_values(row)),
    )


def index_rows(conn: sqlite3.Connection, rows: Iterable[Row]) -> None:
    """Index many rows in one executemany (bulk import, rebuilds)."""
    conn.executemany(
        "INSERT INTO memories_fts(rowid, content, tags, category, key) VALUES (?, ?, ?, ?, ?)",
        ((row["id"], *index_values(row)) for row in rows),
    )


def unindex_row(conn: sqlite3.Connection, row: Row) -> None:
    conn.execute(
        "INSERT INTO memories_fts(memories_fts, rowid, content, tags, category, key) "
        "VALUES ('delete', ?, ?, ?, ?, ?)",
        (row["id"], *index_values(row)),
    )
