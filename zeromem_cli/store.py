"""MemoryStore: the library API; with ``writes.py`` (its write methods: add, write, update,
forget, restore), the only module that writes SQL for memories.

Storage model: one row per memory in ``memories`` (soft-deleted rows keep ``deleted_at``),
every earlier version in ``memory_history``, and a contentless FTS5 table ``memories_fts``
whose rowid is the memory id. The index holds segmented text (see ``text.index_text``), which
the store computes in Python on every write, so there are no triggers: each write is one
``BEGIN IMMEDIATE`` transaction that changes the row, its history and its index together.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zeromem_cli import validation
from zeromem_cli.errors import InvalidInputError, NotFoundError, StoreError
from zeromem_cli.models import Filters, HistoryEntry, Memory, Scope
from zeromem_cli.search import BM25_WEIGHTS, DEFAULT_RANKING, Ranking, run_search
from zeromem_cli.storage import fts, migrations
from zeromem_cli.storage.db import connect, map_error, retry_busy
from zeromem_cli.storage.sql import filter_clause
from zeromem_cli.storage.uids import uid_from_db
from zeromem_cli.text.normalize import (
    INDEX_VERSION,
    clean_content,
    require_utf8,
)
from zeromem_cli.times import Clock, from_iso, parse_expiry, to_iso, utcnow
from zeromem_cli.validation import MAX_ID
from zeromem_cli.writes import MemoryWrites

DEFAULT_MAX_CONTENT_BYTES = 64 * 1024

if TYPE_CHECKING:
    from zeromem_cli.pack.select import PackResult


class MemoryStore(MemoryWrites):
    """A per-user memory database. Every method is deterministic code over SQLite.

    ``scope`` (user / agent / session) is fixed per store: reads and writes see only memories
    of exactly that scope. Use ``store.scoped(user=...)`` for a view on another scope.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        user: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        clock: Clock | None = None,
        max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        """``notice`` (e.g. print to stderr) is told before a long one-time job on opening: a
        schema upgrade or a search-index rebuild of a large store after an upgrade."""
        if path is None:
            from zeromem_cli.paths import default_db_path

            path = default_db_path()
        self.path = Path(path)
        self.scope = Scope(user, agent, session)
        self.clock: Clock = clock or utcnow
        self.max_content_bytes = max_content_bytes
        self._conn = connect(self.path)
        try:
            # Opening races other processes creating or checkpointing the same file:
            # retried while SQLite reports busy without waiting (see db.retry_busy).
            retry_busy(lambda: migrations.migrate(self._conn, notice))
            retry_busy(lambda: self._ensure_index_version(notice))
        except sqlite3.Error as exc:
            self._conn.close()
            raise map_error(exc, self.path) from None
        except BaseException:
            self._conn.close()
            raise

    # -- plumbing ---------------------------------------------------------------------------

    def scoped(
        self, *, user: str | None = None, agent: str | None = None, session: str | None = None
    ) -> MemoryStore:
        """Another view of the same database and connection, for a different scope."""
        view = object.__new__(MemoryStore)
        view.__dict__.update(self.__dict__)
        view.scope = Scope(user, agent, session)
        return view

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for modules of this package that own their own tables."""
        return self._conn

    def now(self) -> datetime:
        return self.clock()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; BEGIN IMMEDIATE takes the write lock up front, so the busy
        timeout applies and a read never has to be upgraded mid-transaction.

        Nested use joins the outer transaction through a SAVEPOINT, so a library caller (or
        import) can batch many ``add`` / ``forget`` calls into one all-or-nothing commit::

            with store.transaction():
                for text in texts:
                    store.add(text)
        """
        conn = self._conn
        if conn.in_transaction:
            yield from self._savepoint(conn)
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise map_error(exc, self.path) from None
        try:
            yield conn
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise map_error(exc, self.path) from None
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _savepoint(self, conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        """The nested part of ``transaction``: undone alone if it fails, committed with the
        outer transaction otherwise."""
        name = "zeromem_nested"  # SQLite resolves a repeated name to the innermost one
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield conn
            conn.execute(f"RELEASE {name}")
        except sqlite3.Error as exc:
            conn.execute(f"ROLLBACK TO {name}")
            conn.execute(f"RELEASE {name}")
            raise map_error(exc, self.path) from None
        except BaseException:
            conn.execute(f"ROLLBACK TO {name}")
            conn.execute(f"RELEASE {name}")
            raise

    def _read(
        self, sql: str, params: Sequence[Any] | dict[str, Any] = ()
    ) -> builtins.list[sqlite3.Row]:
        try:
            return retry_busy(lambda: self._conn.execute(sql, params).fetchall())
        except sqlite3.Error as exc:
            raise map_error(exc, self.path) from None

    def _ensure_index_version(self, notice: Callable[[str], None] | None = None) -> None:
        row = self._conn.execute(
            "SELECT value FROM store_meta WHERE key = 'index_version'"
        ).fetchone()
        if row is not None and int(row[0]) == INDEX_VERSION:
            return
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT value FROM store_meta WHERE key = 'index_version'"
            ).fetchone()
            if row is not None and int(row[0]) == INDEX_VERSION:
                return  # another process rebuilt it while we waited for the write lock
            # The segmentation changed (or this is a new database): rebuild the whole index.
            if notice is not None and row is not None:
                count = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
                if count >= migrations.NOTICE_MIN_MEMORIES:
                    notice(
                        f"rebuilding the search index of {count:,} memories "
                        "(once, after an upgrade)"
                    )
            conn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('delete-all')")
            fts.index_rows(
                conn, conn.execute("SELECT id, content, tags, category, key FROM memories")
            )
            conn.execute(
                "INSERT OR REPLACE INTO store_meta(key, value) VALUES ('index_version', ?)",
                (str(INDEX_VERSION),),
            )

    # -- helpers for sibling core modules (transfer.py bulk import and export) ---------------

    def index_rows(self, conn: sqlite3.Connection, rows: Iterable[dict[str, Any]]) -> None:
        """Index many rows (each with id, content, tags, category, key) in one executemany."""
        fts.index_rows(conn, rows)

    def archive_version(
        self, conn: sqlite3.Connection, row: sqlite3.Row, ended_at: str, change: str
    ) -> None:
        self._archive_version(conn, row, ended_at, change)

    def row_to_memory(self, row: sqlite3.Row) -> Memory:
        return self._to_memory(row)

    def validated_content(self, content: str) -> str:
        """Content as ``add`` stores it: cleaned, non-empty, within the size limit."""
        return self._clean_content(content)

    def scope_clause(self) -> tuple[str, dict[str, str]]:
        """The WHERE clause (over alias ``m``) and parameters selecting this store's scope."""
        return self._SCOPE_SQL, self._scope_params()

    def drop_from_index(
        self, conn: sqlite3.Connection, rows: Iterable[sqlite3.Row | dict[str, Any]]
    ) -> None:
        """Remove memories from the FTS index inside the caller's transaction (used by
        ``lifecycle`` when it deletes rows for good)."""
        for row in rows:
            fts.unindex_row(conn, row)

    # -- validation (rules in validation.py; these need the store's limit and clock) ----

    def _clean_content(self, content: str) -> str:
        if not isinstance(content, str):
            raise InvalidInputError("content must be text")
        if content.isascii():  # valid UTF-8, one byte a character: no encoding needed
            cleaned = clean_content(content)
            size = len(cleaned)
        else:
            cleaned = clean_content(require_utf8(content, "content"))
            size = len(cleaned.encode("utf-8"))
        if not cleaned:
            raise InvalidInputError("content is empty")
        if size > self.max_content_bytes:
            raise InvalidInputError(
                f"content is {size} bytes, over the limit of {self.max_content_bytes} bytes"
            )
        return cleaned

    def _expiry(self, ttl: str | None, expires_at: str | datetime | None) -> str | None:
        if ttl is not None and expires_at is not None:
            raise InvalidInputError("give ttl or expires_at, not both")
        if ttl is not None:
            return to_iso(parse_expiry(ttl, self.now()))
        if isinstance(expires_at, datetime):
            return to_iso(expires_at)
        if expires_at is not None:
            return to_iso(parse_expiry(expires_at, self.now()))
        return None

    # -- row helpers --------------------------------------------------------------------------

    def _scope_params(self, scope: Scope | None = None) -> dict[str, str]:
        user, agent, session = (scope or self.scope).as_columns()
        return {"s_user": user, "s_agent": agent, "s_session": session}

    _SCOPE_SQL = "m.user = :s_user AND m.agent = :s_agent AND m.session = :s_session"

    @staticmethod
    def _to_memory(row: sqlite3.Row, score: float | None = None) -> Memory:
        return Memory(
            id=row["id"],
            uid=uid_from_db(row["uid"]),
            content=row["content"],
            category=row["category"],
            tags=_from_json(row["tags"]),
            key=row["key"],
            user=row["user"] or None,
            agent=row["agent"] or None,
            session=row["session"] or None,
            importance=row["importance"],
            pinned=bool(row["pinned"]),
            meta=_from_json(row["meta"]),
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            expires_at=row["expires_at"],
            last_accessed_at=row["last_accessed_at"],
            access_count=row["access_count"],
            deleted_at=row["deleted_at"],
            deleted_reason=row["deleted_reason"],
            score=score,
        )

    def _row(
        self,
        conn: sqlite3.Connection,
        memory_id: int,
        *,
        deleted: bool | None = False,
        include_expired: bool = False,
    ) -> sqlite3.Row:
        """The row of ``memory_id`` in this scope; NotFoundError when it is not visible.

        ``deleted``: False = live only, True = in the trash only, None = either.
        """
        if (
            isinstance(memory_id, bool)
            or not isinstance(memory_id, int)
            or not 1 <= memory_id <= MAX_ID
        ):
            raise InvalidInputError(f"not a memory id: {memory_id!r}")
        sql = f"SELECT m.* FROM memories m WHERE m.id = :id AND {self._SCOPE_SQL}"
        params: dict[str, Any] = {"id": memory_id, **self._scope_params()}
        if deleted is False:
            sql += " AND m.deleted_at IS NULL"
        elif deleted is True:
            sql += " AND m.deleted_at IS NOT NULL"
        if not include_expired and deleted is False:
            sql += " AND (m.expires_at IS NULL OR m.expires_at > :now)"
            params["now"] = to_iso(self.now())
        row = conn.execute(sql, params).fetchone()
        if row is None:
            where = "in the trash" if deleted is True else "in this scope"
            raise NotFoundError(f"no memory #{memory_id} {where}")
        return row

    # -- reads --------------------------------------------------------------------------------

    def get(
        self, memory_id: int, *, include_deleted: bool = False, include_expired: bool = False
    ) -> Memory:
        """One memory of this scope by id; NotFoundError if absent, deleted or expired."""
        try:
            row = retry_busy(
                lambda: self._row(
                    self._conn,
                    memory_id,
                    deleted=None if include_deleted else False,
                    include_expired=include_expired,
                )
            )
        except sqlite3.Error as exc:
            raise map_error(exc, self.path) from None
        return self._to_memory(row)

    def list(self, limit: int | None = 50, filters: Filters | None = None) -> builtins.list[Memory]:
        """Memories of this scope, newest first."""
        where, params = filter_clause(filters or Filters(), self.now())
        sql = (
            f"SELECT m.* FROM memories m WHERE {self._SCOPE_SQL} AND {where} "
            "ORDER BY m.created_at DESC, m.id DESC"
        )
        if limit is not None:
            sql += " LIMIT :limit"
            params["limit"] = validation.check_limit(limit)
        rows = self._read(sql, {**params, **self._scope_params()})
        return [self._to_memory(r) for r in rows]

    def search(
        self,
        query: str,
        limit: int = 10,
        filters: Filters | None = None,
        *,
        fts: bool = False,
        ranking: Ranking | None = None,
    ) -> builtins.list[Memory]:
        """Memories of this scope matching ``query``, best first; ``score`` set (higher is better).

        ``fts=True`` passes ``query`` to FTS5 as the user's own MATCH expression. The query
        processing and ranking live in ``zeromem_cli.search``; ``ranking`` tunes the latter.
        """
        query = require_utf8(query, "query")
        try:
            scored = retry_busy(
                lambda: run_search(
                    self._conn,
                    self.scope,
                    self.now(),
                    query,
                    limit=validation.check_limit(limit),
                    filters=filters or Filters(),
                    fts=fts,
                    ranking=ranking or DEFAULT_RANKING,
                )
            )
        except sqlite3.Error as exc:
            raise map_error(exc, self.path) from None
        return [self._to_memory(row, score=score) for row, score in scored]

    def history(self, memory_id: int) -> builtins.list[HistoryEntry]:
        """Every version of a memory, oldest first; the last one is the current version."""
        row = self._row(self._conn, memory_id, deleted=None, include_expired=True)
        rows = self._read(
            "SELECT * FROM memory_history WHERE memory_id = ? ORDER BY id", (memory_id,)
        )
        entries = [
            HistoryEntry(
                memory_id=memory_id,
                version=number,
                content=r["content"],
                category=r["category"],
                tags=json.loads(r["tags"]),
                key=r["key"],
                importance=r["importance"],
                pinned=bool(r["pinned"]),
                meta=json.loads(r["meta"]),
                expires_at=r["expires_at"],
                valid_from=r["valid_from"],
                valid_to=r["valid_to"],
                change=r["change"],
            )
            for number, r in enumerate(rows, start=1)
        ]
        current = self._to_memory(row)
        entries.append(
            HistoryEntry(
                memory_id=memory_id,
                version=len(entries) + 1,
                content=current.content,
                category=current.category,
                tags=current.tags,
                key=current.key,
                importance=current.importance,
                pinned=current.pinned,
                meta=current.meta,
                expires_at=current.expires_at,
                valid_from=rows[-1]["valid_to"] if rows else current.created_at,
                valid_to=current.deleted_at,
                change=(current.deleted_reason or "forgotten") if current.deleted_at else "current",
            )
        )
        return entries

    def count(self, filters: Filters | None = None) -> int:
        where, params = filter_clause(filters or Filters(), self.now())
        rows = self._read(
            f"SELECT count(*) FROM memories m WHERE {self._SCOPE_SQL} AND {where}",
            {**params, **self._scope_params()},
        )
        return int(rows[0][0])

    # -- pack support (logic in pack.py) -----------------------------------------------------

    def pack_candidates(
        self,
        limit: int,
        filters: Filters | None = None,
        *,
        pinned_only: bool = False,
        pinned_limit: int | None = None,
    ) -> builtins.list[Memory]:
        """What ``pack`` starts from besides search hits: the pinned memories (at most
        ``pinned_limit``, most important first: more than a budget can hold is wasted work),
        then (unless ``pinned_only``) up to ``limit`` of the most important and of the most
        recent ones."""
        where, params = filter_clause(filters or Filters(), self.now())
        base = f"SELECT m.* FROM memories m WHERE {self._SCOPE_SQL} AND {where}"
        params.update(
            limit=validation.check_limit(limit),
            pinned_limit=validation.check_limit(pinned_limit or validation.MAX_ID),
            **self._scope_params(),
        )
        rows = self._read(
            f"{base} AND m.pinned = 1 "
            "ORDER BY m.importance DESC, m.updated_at DESC, m.id DESC LIMIT :pinned_limit",
            params,
        )
        if pinned_only:
            return [self._to_memory(r) for r in rows]
        rows += self._read(
            f"{base} ORDER BY m.importance DESC, m.updated_at DESC, m.id DESC LIMIT :limit", params
        )
        rows += self._read(f"{base} ORDER BY m.updated_at DESC, m.id DESC LIMIT :limit", params)
        unique = {r["id"]: r for r in rows}
        return [self._to_memory(r) for r in unique.values()]

    def neighbours(
        self,
        memory: Memory,
        span: int,
        window: timedelta,
        filters: Filters | None = None,
    ) -> tuple[builtins.list[Memory], builtins.list[Memory]]:
        """Up to ``span`` memories written just before ``memory`` (nearest first) and just
        after it, in its scope, in (created_at, id) order, at most ``window`` apart from it,
        among those ``filters`` admit. The window bounds the index range each side reads."""
        where, params = filter_clause(filters or Filters(), self.now())
        written = from_iso(memory.created_at)
        params.update(
            created_at=memory.created_at,
            id=memory.id,
            span=span,
            earliest=to_iso(written - window),
            latest=to_iso(written + window),
            **self._scope_params(),
        )
        found = []
        for side, bound, order in (("<", ">= :earliest", "DESC"), (">", "<= :latest", "ASC")):
            rows = self._read(
                f"SELECT m.* FROM memories m WHERE {self._SCOPE_SQL} AND {where} "
                f"AND (m.created_at, m.id) {side} (:created_at, :id) AND m.created_at {bound} "
                f"ORDER BY m.created_at {order}, m.id {order} LIMIT :span",
                params,
            )
            found.append([self._to_memory(r) for r in rows])
        return found[0], found[1]

    def record_access(self, memory_ids: Iterable[int]) -> None:
        """Count one access of each memory (``last_accessed_at``, ``access_count``), in one
        transaction."""
        ids = [(i,) for i in dict.fromkeys(memory_ids)]
        if not ids:
            return
        now = to_iso(self.now())
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE memories SET last_accessed_at = ?, access_count = access_count + 1 "
                "WHERE id = ?",
                [(now, i) for (i,) in ids],
            )

    def pack(self, query: str | None = None, **options: Any) -> PackResult:
        """The most relevant memories that fit a token budget, formatted for an LLM prompt.

        See ``zeromem_cli.pack.select.pack`` for the options (budget, tokenizer, format, header,
        weights, filters, touch).
        """
        from zeromem_cli.pack.select import pack

        return pack(self, query, **options)


def _from_json(text: str) -> Any:
    """A stored JSON column; the empty tags and meta most rows hold skip the decoder (pack
    turns ~900 rows into memories per call)."""
    if text == "{}":
        return {}
    if text == "[]":
        return []
    return json.loads(text)


__all__ = ["BM25_WEIGHTS", "MemoryStore", "StoreError"]
