"""MemoryStore: the library API, the one public class.

It holds the storage backend (``storage.base.Backend``, chosen once when the store opens),
the scope and the clock, and each method has one shape: validate the arguments, then run one
function over the backend (``search``, ``writes``, ``versions``, ``pack.select``) inside a read
with busy retry and error mapping (``Backend.read``) or one write transaction
(``Backend.transaction``). No SQL here: that is ``storage``'s (see its docstring for the
storage model).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from zeromem_cli import validation, versions, writes
from zeromem_cli.config import SETTINGS
from zeromem_cli.errors import InvalidInputError, NotFoundError, StoreError
from zeromem_cli.models import Filters, HistoryEntry, Memory, Scope, WriteResult
from zeromem_cli.pack import DEFAULT_POOL
from zeromem_cli.search import DEFAULT_RANKING, Ranking, run_fts_search, run_search
from zeromem_cli.storage import db
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.query import BM25_WEIGHTS
from zeromem_cli.storage.records import to_memory
from zeromem_cli.text.normalize import require_utf8
from zeromem_cli.text.query import parse_query
from zeromem_cli.times import Clock, utcnow
from zeromem_cli.writes import UNSET

DEFAULT_MAX_CONTENT_BYTES = 64 * 1024

if TYPE_CHECKING:
    from zeromem_cli.keys import Key
    from zeromem_cli.pack.format import ContentOf
    from zeromem_cli.pack.select import PackResult, Weights


# A uid prefix needs this many hex digits (fewer would read as a typo more often than a
# reference); an ambiguous one reports how many matched, counting up to UID_PREFIX_COUNT - 1.
UID_PREFIX_MIN = 4
UID_PREFIX_COUNT = 101


def _is_id(ref: int | str) -> bool:
    """A number is an id (what `list` shows); anything else names a uid."""
    return isinstance(ref, int) or (isinstance(ref, str) and ref.strip().isdigit())


class MemoryStore:
    """A per-user memory database. Every method is deterministic code over its storage backend
    (SQLite, or PostgreSQL for a ``postgresql://`` location).

    ``scope`` (user / agent / session / project) is fixed per store. Writes are stamped with
    it; reads see the memories of its owner (user and project) from every agent and session, so
    a new session recalls earlier ones, and with ``isolate=True`` only those of exactly that
    scope (see ``Scope``). Use ``store.scoped(user=...)`` for a view on another scope.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        user: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        project: str | None = None,
        isolate: bool = False,
        clock: Clock | None = None,
        max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
        notice: Callable[[str], None] | None = None,
        key: str | Key | None = None,
        key_file: str | Path | None = None,
        read_only: bool | Literal["auto"] = False,
        max_tags: int = validation.DEFAULT_MAX_TAGS,
        max_tag_chars: int = validation.DEFAULT_MAX_TAG_CHARS,
    ) -> None:
        """``notice`` (e.g. print to stderr) is told before a long one-time job on opening: a
        schema upgrade or a search-index rebuild of a large store after an upgrade.

        ``key`` / ``key_file`` open an encrypted store (or create a new one encrypted); without
        them ``ZEROMEM_KEY_FILE``, ``ZEROMEM_KEY`` and the OS keyring are tried (``keys``).

        ``read_only=True`` opens an existing database for reading only (SQLite ``mode=ro``):
        every write raises ``StoreError``, and a database that needs an upgrade is refused.
        ``"auto"`` (commands that only read) does so only when this process cannot write the
        file or its folder (read-only media, a chmod-ed file), and opens it as usual
        otherwise; ``writable`` says which it got (a plain SQLite file: an encrypted one
        opens as usual).

        ``max_tags`` / ``max_tag_chars`` cap the tags a write (add, update, import) may give a
        memory: more, or a longer one, is ``InvalidInputError``."""
        if path is None:
            from zeromem_cli.paths import default_db_path

            path = default_db_path()
        # A PostgreSQL URL stays text (a Path would fold its "//"); ``path`` names it in
        # messages with any password masked.
        self.location: str | Path = db.location(path)
        self.path: Path | str = db.display(self.location) if db.is_url(path) else Path(path)
        self.clock: Clock = clock or utcnow
        self.max_content_bytes = max_content_bytes
        self.max_tags = max_tags
        self.max_tag_chars = max_tag_chars
        if read_only == "auto":
            read_only = not db.can_write(self.location)
        self.writable = not read_only
        self.backend: Backend = db.open_backend(
            self.location, notice, key=_resolve_key(key, key_file), read_only=bool(read_only)
        )
        # A member of a team store is its PostgreSQL role: that is its user scope unless
        # another is given (the database's policies decide what that one shows).
        self.scope = Scope(
            user or self.backend.member_user(), agent, session, project, isolate=isolate
        )

    # -- plumbing ---------------------------------------------------------------------------

    def scoped(
        self,
        *,
        user: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        project: str | None = None,
        isolate: bool | None = None,
    ) -> MemoryStore:
        """Another view of the same database and connection, for a different scope
        (``isolate`` None: this store's)."""
        view = object.__new__(MemoryStore)
        view.__dict__.update(self.__dict__)
        isolate = self.scope.isolate if isolate is None else isolate
        view.scope = Scope(user, agent, session, project, isolate=isolate)
        return view

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def connection(self) -> Any:
        """The driver's connection (a ``sqlite3.Connection``, or a psycopg connection for a
        PostgreSQL store), for tests and tools that inspect the database; the library itself
        goes through ``backend``."""
        return self.backend.connection

    def now(self) -> datetime:
        return self.clock()

    def transaction(self) -> AbstractContextManager[Backend]:
        """One write transaction (``BEGIN IMMEDIATE``: the write lock up front), as the
        backend that runs its statements.

        Nested use joins the outer transaction through a SAVEPOINT, so a library caller (or
        import) can batch many ``add`` / ``forget`` calls into one all-or-nothing commit::

            with store.transaction():
                for text in texts:
                    store.add(text)
        """
        return self.backend.transaction()

    # -- reads --------------------------------------------------------------------------------

    def resolve(self, ref: int | str) -> int:
        """The id of the memory ``ref`` names in this scope: an id (a number), a uid, or a
        unique prefix of one (at least ``UID_PREFIX_MIN`` hex digits; dashes optional), in any
        state (the command then decides whether a forgotten one counts). A number is an id
        when a memory of the scope has that id, else a uid prefix if it can be one (``83025``
        of ``83025c4b-...``). ``InvalidInputError`` for a value that is neither;
        ``NotFoundError`` when no memory, or several, match."""
        if not _is_id(ref):
            return self._by_uid(str(ref))
        text = str(ref).strip()
        if isinstance(ref, int) or len(text) < UID_PREFIX_MIN:
            return validation.memory_id(ref)
        number = int(text)
        if 1 <= number <= validation.MAX_ID and self.backend.read(
            lambda backend: backend.has_id(self.scope, number)
        ):
            return number
        try:
            return self._by_uid(text)
        except NotFoundError:
            return validation.memory_id(ref)  # the command says "no memory #N"

    def _by_uid(self, ref: str) -> int:
        digits = ref.strip().lower().replace("-", "")
        if not (UID_PREFIX_MIN <= len(digits) <= 32) or digits.strip("0123456789abcdef"):
            raise InvalidInputError(
                f"not a memory id or uid: {ref!r} (an id, a uid, or the first "
                f"{UID_PREFIX_MIN}+ characters of one)"
            )
        ids = self.backend.read(
            lambda backend: backend.ids_by_uid_prefix(self.scope, digits, UID_PREFIX_COUNT)
        )
        if not ids:
            raise NotFoundError(f"no memory with uid {ref} in this scope")
        if len(ids) > 1:
            many = f"{len(ids)}" if len(ids) < UID_PREFIX_COUNT else f"{UID_PREFIX_COUNT - 1}+"
            raise NotFoundError(f"uid prefix {ref} matches {many} memories: give more of it")
        return ids[0]

    def get(
        self, memory_id: int, *, include_deleted: bool = False, include_expired: bool = False
    ) -> Memory:
        """One memory of this scope by id; NotFoundError if absent, deleted or expired."""
        now = self.now()
        row = self.backend.read(
            lambda backend: versions.visible_row(
                backend,
                self.scope,
                now,
                memory_id,
                deleted=None if include_deleted else False,
                include_expired=include_expired,
            ),
        )
        return to_memory(row)

    def list(self, limit: int | None = 50, filters: Filters | None = None) -> builtins.list[Memory]:
        """Memories of this scope, newest first."""
        limit = validation.check_limit(limit) if limit is not None else None
        now = self.now()
        return self.backend.read(
            lambda backend: backend.newest_first(self.scope, filters or Filters(), now, limit)
        )

    def search(
        self,
        query: str,
        limit: int = 10,
        filters: Filters | None = None,
        *,
        fts: bool = False,
        ranking: Ranking | None = None,
        as_of: datetime | None = None,
    ) -> builtins.list[Memory]:
        """Memories of this scope matching ``query``, best first; ``score`` set (higher is better).

        ``as_of``: when the question is asked (default now): "last Saturday" and recency are
        reckoned from it.

        ``fts=True`` passes ``query`` to FTS5 as the user's own MATCH expression. The query
        processing and ranking live in ``zeromem_cli.search``; ``ranking`` tunes the latter.
        """
        query = require_utf8(query, "query")
        options: dict[str, Any] = {
            "limit": validation.check_limit(limit),
            "filters": filters or Filters(),
            "ranking": ranking or DEFAULT_RANKING,
        }
        parsed = None if fts else parse_query(query)
        now = self.now()

        def run(backend: Backend) -> builtins.list[tuple[Any, float]]:
            if parsed is None:
                return run_fts_search(backend, self.scope, now, query, **options)
            return run_search(backend, self.scope, now, parsed, as_of=as_of, **options)

        scored = self.backend.read(run)
        return [to_memory(row, score=score) for row, score in scored]

    def history(self, memory_id: int) -> builtins.list[HistoryEntry]:
        """Every version of a memory, oldest first; the last one is the current version."""
        now = self.now()
        return self.backend.read(
            lambda backend: versions.history(backend, self.scope, now, memory_id)
        )

    def count(self, filters: Filters | None = None) -> int:
        now = self.now()
        return self.backend.read(
            lambda backend: backend.count(self.scope, filters or Filters(), now)
        )

    # -- pack and what it reads ----------------------------------------------------------------

    def pack(
        self,
        query: str | None = None,
        *,
        budget: int = SETTINGS["pack.budget"].default,
        tokenizer: str = SETTINGS["pack.tokenizer"].default,
        format: str = SETTINGS["pack.format"].default,
        header: str | None = None,
        weights: Weights | None = None,
        filters: Filters | None = None,
        touch: bool = True,
        pool: int = DEFAULT_POOL,
        reveal: bool = False,
        content_of: ContentOf | None = None,
        inherit: bool = False,
        pinned_share: float = SETTINGS["pack.pinned_share"].default,
        exclude: Iterable[int] = (),
        as_of: datetime | None = None,
        ranking: Ranking | None = None,
    ) -> PackResult:
        """The most relevant memories that fit a token budget, formatted for an LLM prompt.

        See ``zeromem_cli.pack.select.pack`` for the options (``ranking``: the ``Tuning`` of
        search and pack); ``touch`` records an access of
        every packed memory (``record_access``), except in a read-only store.
        """
        from zeromem_cli.pack.select import pack

        now = self.now()
        result = self.backend.read(
            lambda backend: pack(
                backend,
                self.scope,
                now,
                query,
                budget=budget,
                tokenizer=tokenizer,
                format=format,
                header=header,
                weights=weights,
                filters=filters,
                pool=pool,
                reveal=reveal,
                content_of=content_of,
                inherit=inherit,
                pinned_share=pinned_share,
                exclude=exclude,
                as_of=as_of,
                ranking=ranking,
            ),
        )
        if touch and result.memories and self.writable:
            self.record_access(m.id for m in result.memories)
        return result

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
        limit = validation.check_limit(limit)
        pinned_limit = validation.check_limit(pinned_limit or validation.MAX_ID)
        now = self.now()
        return self.backend.read(
            lambda backend: backend.pack_candidates(
                self.scope,
                filters or Filters(),
                now,
                limit=limit,
                pinned_limit=pinned_limit,
                pinned_only=pinned_only,
            ),
        )

    def neighbours(
        self,
        memory: Memory,
        span: int,
        window: timedelta,
        filters: Filters | None = None,
    ) -> tuple[builtins.list[Memory], builtins.list[Memory]]:
        """Up to ``span`` memories written just before ``memory`` (nearest first) and just
        after it, in its origin (the session it was written in), in (created_at, id) order, at
        most ``window`` apart from it, among those ``filters`` admit. The window bounds the
        index range each side reads. A memory this store does not read has none."""
        now = self.now()
        if not self.scope.reads(memory.scope):
            return [], []
        return self.backend.read(
            lambda backend: backend.neighbours(
                memory.scope, filters or Filters(), now, memory, span, window
            )
        )

    def record_access(self, memory_ids: Iterable[int]) -> None:
        """Count one access of each memory (``last_accessed_at``, ``access_count``), in one
        transaction. InvalidInputError for anything that is not a memory id."""
        ids = builtins.list(dict.fromkeys(map(validation.memory_id, memory_ids)))
        if not ids:
            return
        now = self.now()
        with self.transaction() as backend:
            backend.record_access(ids, now)

    # -- writes (policy in writes.py) -----------------------------------------------------------

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
        user: str | None = UNSET,
        agent: str | None = UNSET,
        session: str | None = UNSET,
        project: str | None = UNSET,
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
            project=project,
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
        user: str | None = UNSET,
        agent: str | None = UNSET,
        session: str | None = UNSET,
        project: str | None = UNSET,
        allow_duplicate: bool = False,
        merge: bool = False,
        default_category: str | None = None,
        created_at: str | datetime | None = None,
        allow_secret: bool = False,
    ) -> WriteResult:
        """Store a memory, saying what happened.

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
        created = writes.as_iso(created_at) if created_at is not None else None
        scope = Scope(
            self.scope.user if user is UNSET else user,
            self.scope.agent if agent is UNSET else agent,
            self.scope.session if session is UNSET else session,
            self.scope.project if project is UNSET else project,
            isolate=self.scope.isolate,
        )
        given = writes.content_fields(content, self.max_content_bytes)
        self._check_tags(tags)
        given.update(
            writes.fields(
                key=key,
                category=category,
                tags=tags,
                importance=importance,
                pinned=pinned,
                meta=meta,
            )
        )
        if ttl is not None or expires_at is not None:
            given["expires_at"] = writes.expiry(ttl, expires_at, self.now())
        writes.check_scope(scope)
        if not allow_secret:
            writes.refuse_secrets(given, scope)
        values = writes.new_values(given, default_category)
        with self.transaction() as backend:
            return writes.write(
                backend,
                scope,
                self.now(),
                given,
                values,
                created_at=created,
                allow_duplicate=allow_duplicate,
                merge=merge,
            )

    def update(
        self,
        memory_id: int,
        *,
        content: str | None = None,
        category: str | None = None,
        tags: Iterable[str] | None = None,
        key: str | None = UNSET,
        importance: int | None = None,
        pinned: bool | None = None,
        meta: dict[str, Any] | None = None,
        ttl: str | None = None,
        expires_at: str | datetime | None = UNSET,
        allow_secret: bool = False,
    ) -> Memory:
        """Change a live memory; the version it replaces is kept in history.

        ``meta`` is merged into the existing meta (a value of None removes that key).
        ``key=None`` removes the key; ``expires_at=None`` removes the expiry.
        New text that looks like a credential raises ``SecretDetectedError`` unless
        ``allow_secret``.
        """
        new = {} if content is None else writes.content_fields(content, self.max_content_bytes)
        self._check_tags(tags)
        new.update(
            writes.fields(
                category=category, tags=tags, key=key, importance=importance, pinned=pinned
            )
        )
        if ttl is not None or (expires_at is not UNSET and expires_at is not None):
            new["expires_at"] = writes.expiry(
                ttl, None if expires_at is UNSET else expires_at, self.now()
            )
        elif expires_at is None:
            new["expires_at"] = None
        if meta is not None and not isinstance(meta, dict):
            raise InvalidInputError("meta must be an object of key/value pairs")
        if not allow_secret:
            writes.refuse_secrets({**new, "meta": validation.clean_meta(meta) if meta else None})
        with self.transaction() as backend:
            return writes.update(backend, self.scope, self.now(), memory_id, new, meta)

    def _check_tags(self, tags: Iterable[str] | None) -> None:
        if tags is not None:
            cleaned = validation.clean_tags(tags)
            validation.check_tags(cleaned, self.max_tags, self.max_tag_chars)

    def forget(self, *memory_ids: int) -> int:
        """Soft-delete memories (recoverable with ``restore``). All ids must exist, or none
        is forgotten. Returns how many were forgotten."""
        ids = builtins.list(dict.fromkeys(memory_ids))
        if not ids:
            return 0
        now = self.now()
        with self.transaction() as backend:
            return writes.forget(backend, self.scope, now, ids)

    def restore(self, memory_id: int) -> Memory:
        """Bring a soft-deleted (forgotten, expired or archived) memory back. An expiry that has
        passed is cleared, otherwise the restored memory would stay invisible."""
        with self.transaction() as backend:
            return writes.restore(backend, self.scope, self.now(), memory_id)


__all__ = ["BM25_WEIGHTS", "MemoryStore", "StoreError"]


def _resolve_key(key: str | Key | None, key_file: str | Path | None) -> Key | None:
    """The key to open with: the one given, else the configured one (file, then environment);
    ``keys`` is imported only when one of them is set, so a plain store's start-up skips it."""
    import os

    if key is None and key_file is None:
        if not (os.environ.get("ZEROMEM_KEY") or os.environ.get("ZEROMEM_KEY_FILE")):
            return None
    from zeromem_cli import keys

    if isinstance(key, str):
        return keys.Key(key, "the key argument")
    if key is not None:
        return key
    return keys.configured(Path(key_file) if key_file is not None else None)
