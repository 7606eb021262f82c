"""The SQLite backend (FTS5): ``storage.base.Backend`` over a ``sqlite3`` connection (or
SQLCipher's, for an encrypted store). The statements live in this package's modules, which
``Backend`` calls (loading each on first use: a search never loads ``bulk`` or ``oplog``);
what is SQLite's own is here: a read retried while the file is busy, and FTS5 MATCH
expressions compiled from the structured query."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from zeromem_cli.models import Filters, Scope
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.query import CandidateQuery, Match
from zeromem_cli.storage.records import Row
from zeromem_cli.storage.sqlite import candidates as lexical
from zeromem_cli.storage.sqlite import db
from zeromem_cli.storage.sqlite import match as fts5

T = TypeVar("T")


class SqliteBackend(Backend):
    """A SQLite store (``where``: its path)."""

    name = "sqlite"
    package = "zeromem_cli.storage.sqlite"
    where: Path

    def close(self) -> None:
        vectors = sys.modules.get("zeromem_cli.storage.sqlite.vectors")
        if vectors is not None:  # loaded: this connection may have a log of written blocks
            vectors.closed(self.conn)
        self.conn.close()

    def changed_vector_blocks(self, since: tuple[int, ...]) -> set[int] | None:
        return self._module("vectors").changed_blocks(self.conn, since)

    def read(self, action: Callable[[Backend], T]) -> T:
        with db.mapped_errors(self.where):
            return db.retry_busy(lambda: action(self))

    def member_user(self) -> str | None:
        return None

    # -- search candidates -------------------------------------------------------------------

    def candidates(self, query: CandidateQuery) -> list[tuple[Row, float]]:
        text = fts5.expression(query.match)
        if not text:
            return []
        if query.full_only:
            # FTS5 computes BM25 for every match before sorting them: probing (the exact
            # forms first, cheaper to walk) spares ranking a match set bound to fall short.
            probes = dict.fromkeys((fts5.expression(query.match.exact()), text))
            if not lexical.holds_at_least(self.conn, probes, query.pool):
                return []
        words = query.match.words if query.bounded else None
        return lexical.ranked(
            self.conn,
            query.scope,
            query.now,
            text,
            query.filters,
            query.pool,
            words=words,
            every=query.match.every,
        )

    def count_matches(self, match: Match, cap: int) -> int:
        text = fts5.expression(match)
        return lexical.count_matches(self.conn, text, cap) if text else 0

    def holds_at_least(self, match: Match, count: int) -> bool:
        text = fts5.expression(match)
        return bool(text) and lexical.holds_at_least(self.conn, [text], count)

    def expression_candidates(
        self, expression: str, scope: Scope, filters: Filters, now: datetime, pool: int
    ) -> list[tuple[Row, float]]:
        lexical.check_expression(expression)
        return lexical.ranked(self.conn, scope, now, expression, filters, pool)
