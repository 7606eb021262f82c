"""The PostgreSQL backend (tsvector): ``storage.base.Backend`` over a psycopg connection.
The statements live in this package's modules, which ``Backend`` calls; what is PostgreSQL's
own is here: reads that never wait for writers, the member a role stands for, and ``tsquery``
compiled from the structured query. Imported only when a ``postgresql://`` store opens: a
SQLite store never loads it (nor psycopg)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from zeromem_cli.models import Filters, Scope
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.postgres import candidates as lexical
from zeromem_cli.storage.postgres import db
from zeromem_cli.storage.postgres.match import compiled
from zeromem_cli.storage.query import CandidateQuery, Match
from zeromem_cli.storage.records import Row

T = TypeVar("T")


class PostgresBackend(Backend):
    """A PostgreSQL store (``where``: its URL, any password masked)."""

    name = "postgresql"
    package = "zeromem_cli.storage.postgres"
    where: str

    def read(self, action: Callable[[Backend], T]) -> T:
        with db.mapped_errors(self.where):
            return action(self)  # PostgreSQL readers never wait for writers

    def member_user(self) -> str | None:
        from zeromem_cli.storage.postgres.admin import member_user

        return member_user(self.conn)

    # -- search candidates -------------------------------------------------------------------

    def candidates(self, query: CandidateQuery) -> list[tuple[Row, float]]:
        # No probe for ``full_only``: the ranking statement is bounded (a window of matches,
        # BM25 on the server), and a probe would cost as much as its index scan, done twice.
        words = query.match.words if query.bounded else None
        return lexical.ranked(
            self.conn,
            query.scope,
            query.now,
            compiled(query.match),
            query.filters,
            query.pool,
            words=words,
            every=query.match.every,
        )

    def count_matches(self, match: Match, cap: int) -> int:
        return lexical.count_matches(self.conn, compiled(match), cap)

    def holds_at_least(self, match: Match, count: int) -> bool:
        return lexical.holds_at_least(self.conn, compiled(match), count)

    def expression_candidates(
        self, expression: str, scope: Scope, filters: Filters, now: datetime, pool: int
    ) -> list[tuple[Row, float]]:
        from zeromem_cli.storage.postgres.match import expression as compile_expression

        parsed = compile_expression(self.conn, expression)
        return lexical.ranked(self.conn, scope, now, parsed, filters, pool)
