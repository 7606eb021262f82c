"""The SQLite backend (FTS5): ``storage.base.Backend`` over a ``sqlite3`` connection (or
SQLCipher's, for an encrypted store), each method one function of this package's modules. The
modules a hot command does not need (``bulk``, ``oplog``) load on first use."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from zeromem_cli.models import Filters, Memory, Scope
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.query import CandidateQuery, Match
from zeromem_cli.storage.records import Row
from zeromem_cli.storage.sqlite import candidates as lexical
from zeromem_cli.storage.sqlite import db, fts, memories
from zeromem_cli.storage.sqlite import match as fts5

T = TypeVar("T")


class SqliteBackend(Backend):
    """A SQLite store (``where``: its path)."""

    name = "sqlite"

    def __init__(self, conn: sqlite3.Connection, where: Path) -> None:
        self.conn = conn
        self.where = where

    @property
    def connection(self) -> sqlite3.Connection:
        return self.conn

    def close(self) -> None:
        self.conn.close()

    # -- reads, transactions, errors ---------------------------------------------------------

    def read(self, action: Callable[[Backend], T]) -> T:
        with db.mapped_errors(self.where):
            return db.retry_busy(lambda: action(self))

    @contextmanager
    def _transaction(self) -> Iterator[Backend]:
        with db.transaction(self.conn, self.where):
            yield self

    def transaction(self) -> AbstractContextManager[Backend]:
        return self._transaction()

    def mapped_errors(self) -> AbstractContextManager[None]:
        return db.mapped_errors(self.where)

    def best_effort_writes(self, lock_wait_ms: int) -> AbstractContextManager[None]:
        return db.best_effort_writes(self.conn, lock_wait_ms)

    def page_cache(self, kib: int) -> AbstractContextManager[None]:
        return db.page_cache(self.conn, kib)

    def member_user(self) -> str | None:
        return None

    # -- one memory's versions ---------------------------------------------------------------

    def find_row(
        self,
        scope: Scope,
        now: datetime,
        memory_id: int,
        *,
        deleted: bool | None = False,
        include_expired: bool = False,
    ) -> Row | None:
        return memories.find_row(
            self.conn, scope, now, memory_id, deleted=deleted, include_expired=include_expired
        )

    def history_rows(self, ids: Iterable[int]) -> list[Row]:
        return memories.history_rows(self.conn, ids)

    # -- many memories: forget and gc batches, purge, maintenance, stats, import
    def selected(
        self,
        scope: Scope,
        *,
        state: str,
        ids: Sequence[int] = (),
        key: str | None = None,
        category: str | None = None,
        tags: Sequence[str] = (),
        before: datetime | None = None,
        ranked: Sequence[int] | None = None,
    ) -> list[Memory]:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.selected(
            self.conn,
            scope,
            state=state,
            ids=ids,
            key=key,
            category=category,
            tags=tags,
            before=before,
            ranked=ranked,
        )

    def forget_live(self, ids: Iterable[int], now: datetime) -> int:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.forget_live(self.conn, ids, now)

    def trash(self, scope: Scope, *, reason: str | None, limit: int | None) -> list[Memory]:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.trash(self.conn, scope, reason=reason, limit=limit)

    def delete_for_good(self, ids: Iterable[int]) -> int:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.delete_for_good(self.conn, ids)

    def checkpoint(self) -> bool:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.checkpoint(self.conn)

    def vacuum(self) -> None:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.vacuum(self.conn)

    def gc_count(self, selection: str, scope: Scope | None, params: dict[str, Any]) -> int:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.gc_count(self.conn, selection, scope, params)

    def gc_batch(
        self, selection: str, scope: Scope | None, params: dict[str, Any], size: int
    ) -> list[int]:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.gc_batch(self.conn, selection, scope, params, size)

    def soft_delete(self, ids: Sequence[int], now: str, reason: str) -> int:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.soft_delete(self.conn, ids, now, reason)

    def counts(self, scope: Scope | None, now: datetime) -> tuple[int, ...]:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.counts(self.conn, scope, now)

    def live_by_category(self, scope: Scope | None, now: datetime) -> dict[str, int]:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.live_by_category(self.conn, scope, now)

    def live_by_scope(
        self, scope: Scope | None, now: datetime
    ) -> list[tuple[str, str, str, str, int]]:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.live_by_scope(self.conn, scope, now)

    def live_contents(self, scope: Scope | None, now: datetime) -> Iterator[str]:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.live_contents(self.conn, scope, now)

    def server_bytes(self) -> int | None:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.server_bytes(self.conn)

    def existing(self) -> Iterator[Row]:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.existing(self.conn)

    def fresh_ids(self, count: int) -> list[int] | None:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.fresh_ids(self.conn, count)

    def update_imported(self, row: Row, merged: dict[str, Any], now: str) -> None:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.update_imported(self.conn, row, merged, now)

    def insert_imported(
        self,
        rows: list[dict[str, Any]],
        contents: Sequence[str],
        history: Sequence[tuple[Any, ...]],
    ) -> None:
        from zeromem_cli.storage.sqlite import bulk

        return bulk.insert_imported(self.conn, rows, contents, history)

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

    def larger_than(self, count: int) -> bool:
        return lexical.larger_than(self.conn, count)

    def expression_candidates(
        self, expression: str, scope: Scope, filters: Filters, now: datetime, pool: int
    ) -> list[tuple[Row, float]]:
        lexical.check_expression(expression)
        return lexical.ranked(self.conn, scope, now, expression, filters, pool)

    # -- the search index ----------------------------------------------------
    def optimize(self) -> None:
        return fts.optimize(self.conn)

    def bulk_loading(self) -> AbstractContextManager[None]:
        return fts.bulk_loading(self.conn)

    # -- one memory: reads, writes, versions ---------------------------------
    def by_id(self, memory_id: int) -> Row:
        return memories.by_id(self.conn, memory_id)

    def has_id(self, scope: Scope, memory_id: int) -> bool:
        return memories.has_id(self.conn, scope, memory_id)

    def ids_by_uid_prefix(self, scope: Scope | None, hex_prefix: str, limit: int) -> list[int]:
        return memories.ids_by_uid_prefix(self.conn, scope, hex_prefix, limit)

    def fetch(self, memory_id: int) -> Memory:
        return memories.fetch(self.conn, memory_id)

    def newest_first(
        self, scope: Scope, filters: Filters, now: datetime, limit: int | None
    ) -> list[Memory]:
        return memories.newest_first(self.conn, scope, filters, now, limit)

    def in_id_order(self, scope: Scope | None, filters: Filters, now: datetime) -> list[Memory]:
        return memories.in_id_order(self.conn, scope, filters, now)

    def count(self, scope: Scope, filters: Filters, now: datetime) -> int:
        return memories.count(self.conn, scope, filters, now)

    def pack_candidates(
        self,
        scope: Scope,
        filters: Filters,
        now: datetime,
        *,
        limit: int,
        pinned_limit: int,
        pinned_only: bool,
    ) -> list[Memory]:
        return memories.pack_candidates(
            self.conn,
            scope,
            filters,
            now,
            limit=limit,
            pinned_limit=pinned_limit,
            pinned_only=pinned_only,
        )

    def pinned_standing(
        self, scope: Scope, filters: Filters, now: datetime, *, limit: int
    ) -> list[tuple[int, int, str, int]]:
        return memories.pinned_standing(self.conn, scope, filters, now, limit=limit)

    def by_ids(self, ids: Iterable[int]) -> list[Memory]:
        return memories.by_ids(self.conn, ids)

    def neighbours(
        self,
        scope: Scope,
        filters: Filters,
        now: datetime,
        memory: Memory,
        span: int,
        window: timedelta,
    ) -> tuple[list[Memory], list[Memory]]:
        return memories.neighbours(self.conn, scope, filters, now, memory, span, window)

    def session_openers(self, ids: Iterable[int]) -> set[int]:
        return memories.session_openers(self.conn, ids)

    def live_by_key(self, scope: Scope, key: str) -> Row | None:
        return memories.live_by_key(self.conn, scope, key)

    def live_by_hash(self, scope: Scope, content_hash: int, now: datetime) -> int | None:
        return memories.live_by_hash(self.conn, scope, content_hash, now)

    def insert(self, values: dict[str, Any]) -> int:
        return memories.insert(self.conn, values)

    def touch_updated(self, memory_id: int, now: datetime) -> None:
        return memories.touch_updated(self.conn, memory_id, now)

    def replace_version(self, row: Row, new: dict[str, Any], change: str, now: datetime) -> None:
        return memories.replace_version(self.conn, row, new, change, now)

    def mark_forgotten(self, ids: Iterable[int], now: datetime) -> None:
        return memories.mark_forgotten(self.conn, ids, now)

    def undelete(self, row: Row, now: datetime) -> None:
        return memories.undelete(self.conn, row, now)

    def record_access(self, ids: Iterable[int], now: datetime) -> None:
        return memories.record_access(self.conn, ids, now)

    # -- the operations log --------------------------------------------------
    def append(self, at: str, op: str, result_count: int, tokens: int, keep: int) -> None:
        from zeromem_cli.storage.sqlite import oplog

        return oplog.append(self.conn, at, op, result_count, tokens, keep)

    def totals(self) -> list[tuple[str, int, int, int]]:
        from zeromem_cli.storage.sqlite import oplog

        return oplog.totals(self.conn)

    # -- semantic recall's vectors ----------------------------------------------------------

    def vector_model(self) -> str | None:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.model(self.conn)

    def set_vector_model(self, name: str) -> None:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.set_model(self.conn, name)

    def clear_vectors(self) -> None:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.clear(self.conn)

    def vectors_fingerprint(self) -> tuple[int, int] | None:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.fingerprint(self.conn)

    def owner_blocks(self, owners: Sequence[tuple[str, str]]) -> list[tuple[bytes, bytes, bytes]]:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.owner_blocks(self.conn, owners)

    def block_of(self, memory_id: int) -> Row | None:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.block_of(self.conn, memory_id)

    def open_block(self, user: str, project: str) -> Row | None:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.open_block(self.conn, user, project)

    def save_block(
        self,
        block_id: int | None,
        owner: tuple[str, str],
        size: int,
        blobs: tuple[bytes, bytes, bytes],
    ) -> int:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.save_block(self.conn, block_id, owner, size, blobs)

    def place_vectors(self, entries: Iterable[tuple[int, int, int]]) -> None:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.place(self.conn, entries)

    def unplace_vectors(self, ids: Sequence[int]) -> dict[int, list[int]]:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.unplace(self.conn, ids)

    def vector_block(self, block_id: int) -> Row | None:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.block(self.conn, block_id)

    def visible_rows(
        self, scope: Scope, now: datetime, filters: Filters, ids: Sequence[int]
    ) -> dict[int, Row]:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.visible(self.conn, scope, now, filters, ids)

    def unembedded(self, after: int, limit: int, scope: Scope | None = None) -> list[Row]:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.unembedded(self.conn, after, limit, scope)

    def content_hashes(self, ids: Sequence[int]) -> dict[int, int]:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.content_hashes(self.conn, ids)

    def drop_blocks_holding(self, ids: Sequence[int]) -> int:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.drop_blocks_holding(self.conn, ids)

    def vector_coverage(self, scope: Scope | None, now: datetime) -> tuple[int, int]:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.coverage(self.conn, scope, now)

    def vector_bytes(self) -> int:
        from zeromem_cli.storage.sqlite import vectors

        return vectors.stored_bytes(self.conn)
