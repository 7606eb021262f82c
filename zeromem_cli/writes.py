"""The write half of ``MemoryStore``: add and write (key upsert, duplicates, merge), update,
forget, restore, and the versioning they share (history, index and row changed together).

``MemoryStore`` inherits these methods (``class MemoryStore(MemoryWrites)``); the class exists
so the store's module stays one a reader can take in at once. Every write is one ``BEGIN
IMMEDIATE`` transaction (``store.transaction()``) that changes the row, its history and its
FTS entry together; the index text is computed in Python (``fts``), there are no triggers.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
from collections.abc import Iterable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from zeromem_cli import validation
from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import Filters, Memory, Scope, WriteResult
from zeromem_cli.storage import fts
from zeromem_cli.text.normalize import content_hash
from zeromem_cli.times import from_iso, to_iso

DEFAULT_CATEGORY = "general"
DEFAULT_IMPORTANCE = 5

# "Not given" for parameters where None means something (no key, no expiry, unscoped).
_UNSET: Any = object()


class MemoryWrites:
    """The write methods of ``MemoryStore`` (which alone uses this class)."""

    # Provided by MemoryStore; declared here for type checkers.
    scope: Scope
    _conn: sqlite3.Connection
    _SCOPE_SQL: ClassVar[str]

    if TYPE_CHECKING:

        def now(self) -> datetime: ...

        def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...

        def _scope_params(self, scope: Scope | None = None) -> dict[str, str]: ...

        def _clean_content(self, content: str) -> str: ...

        def _expiry(self, ttl: str | None, expires_at: str | datetime | None) -> str | None: ...

        def _row(
            self,
            conn: sqlite3.Connection,
            memory_id: int,
            *,
            deleted: bool | None = False,
            include_expired: bool = False,
        ) -> sqlite3.Row: ...

        @staticmethod
        def _to_memory(row: sqlite3.Row, score: float | None = None) -> Memory: ...

    def add(
        self,
        content: str,
        *,
        category: str | None = None,
        tags: Iterable[str] | None = None,
        key: str | None = None,
        importance: int | None = None,
        pinned: bool | None = None,
        meta: dict[str, Any] | None = None,
        ttl: str | None = None,
        expires_at: str | datetime | None = None,
        user: str | None = _UNSET,
        agent: str | None = _UNSET,
        session: str | None = _UNSET,
        allow_duplicate: bool = False,
        allow_secret: bool = False,
    ) -> Memory:
        """Store a memory and return it (see ``write`` for key upsert and duplicates)."""
        return self.write(
            content,
            category=category,
            tags=tags,
            key=key,
            importance=importance,
            pinned=pinned,
            meta=meta,
            ttl=ttl,
            expires_at=expires_at,
            user=user,
            agent=agent,
            session=session,
            allow_duplicate=allow_duplicate,
            allow_secret=allow_secret,
        ).memory

    def write(
        self,
        content: str,
        *,
        category: str | None = None,
        tags: Iterable[str] | None = None,
        key: str | None = None,
        importance: int | None = None,
        pinned: bool | None = None,
        meta: dict[str, Any] | None = None,
        ttl: str | None = None,
        expires_at: str | datetime | None = None,
        user: str | None = _UNSET,
        agent: str | None = _UNSET,
        session: str | None = _UNSET,
        allow_duplicate: bool = False,
        merge: bool = False,
        default_category: str | None = None,
        created_at: str | datetime | None = None,
        allow_secret: bool = False,
    ) -> WriteResult:
        """Store a memory, saying what happened.

        ``created_at`` backdates a new memory (imports, benchmarks); it defaults to now.

        - ``key`` already used by a live memory of this scope (expired or not): this write
          becomes its new version (same id; the old version goes to history): ``updated``.
          Fields not given here (None) keep their value; an expired memory without a new TTL
          stops expiring.
        - identical content (NFKC, casefold, whitespace) live in this scope: nothing is added,
          the existing memory's updated_at is refreshed: ``duplicate``.
        - otherwise a new memory: ``added``, with any near-duplicates (lexical similarity,
          see ``similarity``) listed in ``similar``; with ``merge`` (and no ``key``) the most
          similar memory gets this text as its next version instead: ``merged``.
          ``allow_duplicate`` skips both duplicate checks.

        ``default_category`` is the category of a new memory when ``category`` is None (an
        update or merge keeps the existing category then).

        Text that looks like a credential raises ``SecretDetectedError`` (nothing is written)
        unless ``allow_secret``.

        ``created_at`` (import, benchmarks) dates a new memory in the past instead of now; it is
        ignored when the write updates or matches an existing memory.
        """
        created = _as_iso(created_at) if created_at is not None else None
        scope = Scope(
            self.scope.user if user is _UNSET else user,
            self.scope.agent if agent is _UNSET else agent,
            self.scope.session if session is _UNSET else session,
        )
        cleaned_content = self._clean_content(content)
        given: dict[str, Any] = {
            "content": cleaned_content,
            "content_hash": content_hash(cleaned_content),
            "key": validation.clean_label(key, "key") if key is not None else None,
        }
        if category is not None:
            given["category"] = validation.clean_label(category, "category")
        if tags is not None:
            given["tags"] = json.dumps(validation.clean_tags(tags), ensure_ascii=False)
        if importance is not None:
            given["importance"] = validation.clean_importance(importance)
        if pinned is not None:
            given["pinned"] = int(bool(pinned))
        if meta is not None:
            given["meta"] = validation.clean_meta(meta)
        if ttl is not None or expires_at is not None:
            given["expires_at"] = self._expiry(ttl, expires_at)
        if not allow_secret:
            _refuse_secrets(given)
        values: dict[str, Any] = {
            "category": validation.clean_label(default_category, "category")
            if default_category
            else DEFAULT_CATEGORY,
            "tags": "[]",
            "importance": DEFAULT_IMPORTANCE,
            "pinned": 0,
            "meta": "{}",
            "expires_at": None,
            **given,
        }
        scope_params = self._scope_params(scope)
        with self.transaction() as conn:
            if values["key"] is not None:
                row = conn.execute(
                    f"SELECT m.* FROM memories m WHERE m.key = :key AND {self._SCOPE_SQL} "
                    "AND m.deleted_at IS NULL",
                    {"key": values["key"], **scope_params},
                ).fetchone()
                if row is not None:
                    expired = row["expires_at"] is not None and row["expires_at"] <= to_iso(
                        self.now()
                    )
                    if expired and "expires_at" not in given:
                        given["expires_at"] = None
                    changed = {k: v for k, v in given.items() if row[k] != v}
                    if not changed:
                        # Saying the same thing again is a duplicate, not a new version.
                        conn.execute(
                            "UPDATE memories SET updated_at = ? WHERE id = ?",
                            (to_iso(self.now()), row["id"]),
                        )
                        return WriteResult(self._fetch(conn, row["id"]), "duplicate")
                    self._replace(conn, row, changed, "key-update")
                    return WriteResult(self._fetch(conn, row["id"]), "updated")
            if not allow_duplicate:
                row = conn.execute(
                    f"SELECT m.id FROM memories m WHERE m.content_hash = :hash AND "
                    f"{self._SCOPE_SQL} AND m.deleted_at IS NULL AND "
                    "(m.expires_at IS NULL OR m.expires_at > :now) ORDER BY m.id LIMIT 1",
                    {"hash": values["content_hash"], "now": to_iso(self.now()), **scope_params},
                ).fetchone()
                if row is not None:
                    conn.execute(
                        "UPDATE memories SET updated_at = ? WHERE id = ?",
                        (to_iso(self.now()), row["id"]),
                    )
                    return WriteResult(self._fetch(conn, row["id"]), "duplicate")
            similar = [] if allow_duplicate else self._similar(scope, cleaned_content)
            if similar and merge and values["key"] is None:
                row = conn.execute(
                    "SELECT * FROM memories WHERE id = ?", (similar[0][0].id,)
                ).fetchone()
                self._replace(conn, row, {k: v for k, v in given.items() if k != "key"}, "merge")
                found = [(m.id, round(score, 3)) for m, score in similar]
                return WriteResult(self._fetch(conn, row["id"]), "merged", found)
            now = to_iso(self.now())
            if created_at is not None:
                now = to_iso(
                    created_at if isinstance(created_at, datetime) else from_iso(created_at)
                )
            user_col, agent_col, session_col = scope.as_columns()
            values.update(
                uid=_new_uid(),
                user=user_col,
                agent=agent_col,
                session=session_col,
                created_at=created or now,
                updated_at=created or now,
            )
            cursor = conn.execute(
                "INSERT INTO memories (uid, content, content_hash, category, tags, key, user, "
                "agent, session, importance, pinned, meta, created_at, updated_at, expires_at) "
                "VALUES (:uid, :content, :content_hash, :category, :tags, :key, :user, :agent, "
                ":session, :importance, :pinned, :meta, :created_at, :updated_at, :expires_at)",
                values,
            )
            values["id"] = cursor.lastrowid
            fts.index_row(conn, values)
            found = [(m.id, round(score, 3)) for m, score in similar]
            return WriteResult(self._fetch(conn, values["id"]), "added", found)

    def _similar(self, scope: Scope, content: str) -> builtins.list[tuple[Memory, float]]:
        """Live memories of ``scope`` that look like rephrasings of ``content``."""
        from zeromem_cli.search import ranked_candidates
        from zeromem_cli.text.similarity import candidate_match, nearest

        match = candidate_match(self._conn, content)
        if match is None:
            return []
        return nearest(
            content,
            lambda text, limit: [
                self._to_memory(row)
                for row, _ in ranked_candidates(
                    self._conn, scope, self.now(), match, Filters(), limit
                )
            ],
        )

    def _fetch(self, conn: sqlite3.Connection, memory_id: int) -> Memory:
        row = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return self._to_memory(row)

    def update(
        self,
        memory_id: int,
        *,
        content: str | None = None,
        category: str | None = None,
        tags: Iterable[str] | None = None,
        key: str | None = _UNSET,
        importance: int | None = None,
        pinned: bool | None = None,
        meta: dict[str, Any] | None = None,
        ttl: str | None = None,
        expires_at: str | datetime | None = _UNSET,
        allow_secret: bool = False,
    ) -> Memory:
        """Change a live memory; the version it replaces is kept in history.

        ``meta`` is merged into the existing meta (a value of None removes that key).
        ``key=None`` removes the key; ``expires_at=None`` removes the expiry.
        New text that looks like a credential raises ``SecretDetectedError`` unless
        ``allow_secret``.
        """
        new: dict[str, Any] = {}
        if content is not None:
            new["content"] = self._clean_content(content)
            new["content_hash"] = content_hash(new["content"])
        if category is not None:
            new["category"] = validation.clean_label(category, "category")
        if tags is not None:
            new["tags"] = json.dumps(validation.clean_tags(tags), ensure_ascii=False)
        if key is not _UNSET:
            new["key"] = validation.clean_label(key, "key") if key is not None else None
        if importance is not None:
            new["importance"] = validation.clean_importance(importance)
        if pinned is not None:
            new["pinned"] = int(bool(pinned))
        if ttl is not None or (expires_at is not _UNSET and expires_at is not None):
            new["expires_at"] = self._expiry(ttl, None if expires_at is _UNSET else expires_at)
        elif expires_at is None:
            new["expires_at"] = None
        if meta is not None and not isinstance(meta, dict):
            raise InvalidInputError("meta must be an object of key/value pairs")
        if not allow_secret:
            _refuse_secrets({**new, "meta": validation.clean_meta(meta) if meta else None})
        with self.transaction() as conn:
            row = self._row(conn, memory_id)
            if meta:
                merged = json.loads(row["meta"])
                for name, value in meta.items():
                    if value is None:
                        merged.pop(name, None)
                    else:
                        merged[name] = value
                new["meta"] = validation.clean_meta(merged)
            changed = {k: v for k, v in new.items() if row[k] != v}
            if not changed:
                return self._to_memory(row)
            self._replace(conn, row, changed, "update")
            return self._fetch(conn, memory_id)

    def forget(self, *memory_ids: int) -> int:
        """Soft-delete memories (recoverable with ``restore``). All ids must exist, or none
        is forgotten. Returns how many were forgotten."""
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return 0
        now = to_iso(self.now())
        with self.transaction() as conn:
            for memory_id in ids:
                self._row(conn, memory_id, include_expired=True)
            for memory_id in ids:
                conn.execute(
                    "UPDATE memories SET deleted_at = ?, deleted_reason = 'forgotten' WHERE id = ?",
                    (now, memory_id),
                )
        return len(ids)

    def restore(self, memory_id: int) -> Memory:
        """Bring a soft-deleted (forgotten, expired or archived) memory back. An expiry that has
        passed is cleared, otherwise the restored memory would stay invisible."""
        with self.transaction() as conn:
            row = self._row(conn, memory_id, deleted=True)
            try:
                conn.execute(
                    "UPDATE memories SET deleted_at = NULL, deleted_reason = NULL, "
                    "expires_at = CASE WHEN expires_at <= ? THEN NULL ELSE expires_at END "
                    "WHERE id = ?",
                    (to_iso(self.now()), memory_id),
                )
            except sqlite3.IntegrityError:
                raise InvalidInputError(
                    f"cannot restore #{memory_id}: another live memory now has key {row['key']!r}"
                ) from None
            return self._fetch(conn, memory_id)

    @staticmethod
    def _archive_version(
        conn: sqlite3.Connection, row: sqlite3.Row, ended_at: str, change: str
    ) -> None:
        """Copy the current version of a memory into history before it changes."""
        previous = conn.execute(
            "SELECT valid_to FROM memory_history WHERE memory_id = ? ORDER BY id DESC LIMIT 1",
            (row["id"],),
        ).fetchone()
        valid_from = previous[0] if previous else row["created_at"]
        conn.execute(
            "INSERT INTO memory_history (memory_id, content, category, tags, key, importance, "
            "pinned, meta, expires_at, valid_from, valid_to, change) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                row["id"],
                row["content"],
                row["category"],
                row["tags"],
                row["key"],
                row["importance"],
                row["pinned"],
                row["meta"],
                row["expires_at"],
                valid_from,
                ended_at,
                change,
            ),
        )

    def _replace(
        self, conn: sqlite3.Connection, row: sqlite3.Row, new: dict[str, Any], change: str
    ) -> None:
        """Write a new version of ``row`` (history, index and row in one go)."""
        now = to_iso(self.now())
        self._archive_version(conn, row, now, change)
        fts.unindex_row(conn, row)
        merged = {**dict(row), **new, "updated_at": now}
        try:
            conn.execute(
                "UPDATE memories SET content = :content, content_hash = :content_hash, "
                "category = :category, tags = :tags, key = :key, importance = :importance, "
                "pinned = :pinned, meta = :meta, expires_at = :expires_at, "
                "updated_at = :updated_at WHERE id = :id",
                merged,
            )
        except sqlite3.IntegrityError:
            raise InvalidInputError(
                f"key {merged['key']!r} is already used by another memory in this scope"
            ) from None
        fts.index_row(conn, merged)


def _refuse_secrets(fields: dict[str, Any]) -> None:
    """Refuse likely credentials in the text fields of a write (see ``secrets``)."""
    from zeromem_cli.text.secrets import refuse_secrets

    refuse_secrets(
        {name: fields.get(name) for name in ("content", "key", "tags", "meta")},
        doing="store",
    )


def _new_uid() -> bytes:
    """A random (version 4) uid in its stored form (see ``uids``)."""
    import uuid  # only writes need it (it pulls in platform): kept off the search start-up path

    return uuid.uuid4().bytes


def _as_iso(moment: str | datetime) -> str:
    return to_iso(moment) if isinstance(moment, datetime) else to_iso(from_iso(moment))


__all__ = ["DEFAULT_CATEGORY", "DEFAULT_IMPORTANCE", "MemoryWrites"]
