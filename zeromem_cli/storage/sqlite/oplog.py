"""The ``operations_log`` table: one row per operation (time, op, result count, tokens), never
content; its policy (best effort, how many rows are kept) is ``zeromem_cli.oplog``'s."""

from __future__ import annotations

import sqlite3


def append(
    conn: sqlite3.Connection, at: str, op: str, result_count: int, tokens: int, keep: int
) -> None:
    """Add one entry; every hundredth entry also drops those older than the last ``keep``."""
    cursor = conn.execute(
        "INSERT INTO operations_log (at, op, result_count, tokens) VALUES (?, ?, ?, ?)",
        (at, op, int(result_count), int(tokens)),
    )
    if cursor.lastrowid is not None and cursor.lastrowid % 100 == 0:
        conn.execute("DELETE FROM operations_log WHERE id <= ?", (cursor.lastrowid - keep,))


def totals(conn: sqlite3.Connection) -> list[tuple[str, int, int, int]]:
    """Per operation, by name: (op, times run, results in total, tokens in total)."""
    rows = conn.execute(
        "SELECT op, count(*), coalesce(sum(result_count), 0), coalesce(sum(tokens), 0) "
        "FROM operations_log GROUP BY op ORDER BY op"
    ).fetchall()
    return [(r[0], r[1], r[2], r[3]) for r in rows]
