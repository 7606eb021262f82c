"""The ``operations_log`` table on PostgreSQL (the interface is ``storage.oplog``)."""

from __future__ import annotations

from typing import Any


def append(conn: Any, at: str, op: str, result_count: int, tokens: int, keep: int) -> None:
    row = conn.execute(
        "INSERT INTO operations_log (at, op, result_count, tokens) VALUES (%s, %s, %s, %s) "
        "RETURNING id",
        (at, op, int(result_count), int(tokens)),
    ).fetchone()
    if row["id"] % 100 == 0:
        conn.execute("DELETE FROM operations_log WHERE id <= %s", (row["id"] - keep,))


def totals(conn: Any) -> list[tuple[str, int, int, int]]:
    rows = conn.execute(
        "SELECT op, count(*) AS n, coalesce(sum(result_count), 0) AS r, "
        "coalesce(sum(tokens), 0) AS t FROM operations_log GROUP BY op ORDER BY op"
    ).fetchall()
    return [(r[0], int(r[1]), int(r[2]), int(r[3])) for r in rows]
