"""The plain baseline every retrieval figure is printed beside: a bare FTS5 index.

``porter unicode61``, one row per stored turn, the question's every word quoted and OR-ed,
BM25 order; no stop words, no variants, no re-scoring. Built in memory in the same run as the
zeromem figures, from the same texts.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

_WORD = re.compile(r"\w+")


class PlainIndex:
    """An in-memory FTS5 table over ``texts``; ``search`` returns positions into ``texts``."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61')")
        self.conn.executemany(
            "INSERT INTO t(rowid, body) VALUES (?, ?)", ((i, text) for i, text in enumerate(texts))
        )

    def search(self, question: str, limit: int) -> list[int]:
        words = dict.fromkeys(w.lower() for w in _WORD.findall(question))
        if not words:
            return []
        expression = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self.conn.execute(
            "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (expression, limit)
        )
        return [row[0] for row in rows]

    def close(self) -> None:
        self.conn.close()
