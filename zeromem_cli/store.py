"""MemoryStore: the library API, the one public class.

It holds the connection, the scope and the clock, and each method has one shape: validate the
arguments, then run one function over the connection (``search``, ``writes``,
``storage.memories``, ``pack.select``) inside a read with busy retry and error mapping
(``storage.db.read``) or one write transaction (``transaction``). No SQL here: that is
``storage``'s (see its docstring for the storage model).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from zeromem_cli import validation, writes
from zeromem_cli.config import SETTINGS
from zeromem_cli.errors import InvalidInputError, NotFoundError, StoreError
from zeromem_cli.models import Filters, HistoryEntry, Memory, Scope, WriteResult
from zeromem_cli.pack import DEFAULT_POOL
from zeromem_cli.search import BM25_WEIGHTS, DEFAULT_RANKING, Ranking, run_fts_search, run_search
from zeromem_cli.semantic.switch import Semantic
from zeromem_cli.storage import db, memories
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
# How long counting an access waits for the write lock before giving up: a read is not held
# up by another process's long write for a statistic.
ACCESS_LOCK_WAIT_MS = 100


def _is_id(ref: int | str) -> bool:
    """A number is an id (what `list` shows); anything else names a uid."""
    return isinstance(ref, int) or (isinstance(ref, str) and ref.strip().isdigit())


class MemoryStore:
    """A per-user memory database. Every method is deterministic code over SQLite.

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
        if_missing: Literal["create", "empty", "error"] = "create",
        max_tags: int = validation.DEFAULT_MAX_TAGS,
        max_tag_chars: int = validation.DEFAULT_MAX_TAG_CHARS,
        semantic: bool | str | None = None,
        semantic_model: str | None = None,
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

        ``if_missing``: what a SQLite file that does not exist yet means: ``"create"`` it (a
        write), read it as an ``"empty"`` store without creating anything (a read of the
        default store), or an ``"error"`` naming it (a read of a store the user named: a
        typo in ``--db`` is not an empty store).

        ``max_tags`` / ``max_tag_chars`` cap the tags a write (add, update, import) may give a
        memory: more, or a longer one, is ``InvalidInputError``.

        ``semantic``: semantic recall (the ``zeromem[semantic]`` extra): ``"auto"`` (None, the
        default: ``ZEROMEM_SEARCH_SEMANTIC``, else on when installed), True / ``"on"`` or
        False / ``"off"``. When on, ``add`` / ``write`` / ``update`` store each memory's vector
        in the same transaction and ``search`` / ``pack`` also find memories asked for in
        other words. ``semantic_model``: another model (``zeromem_cli.semantic.embedder``).
        When the model cannot load, ``notice`` is told once and the store works by words."""
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
        resolved_key = _resolve_key(key, key_file)
        self._conn: Any
        if if_missing != "create" and db.is_missing(self.location):
            read_only = True
            self._conn = (
                db.open_empty()
                if if_missing == "empty"
                else db.MissingStore(
                    StoreError(
                        f"no store at {self.path}: check --db / ZEROMEM_DB (the first write, "
                        "such as `zeromem add`, creates one)"
                    )
                )
            )
        else:
            if read_only == "auto":
                read_only = not db.can_write(self.location)
            self._conn = db.open_store(
                self.location, notice, key=resolved_key, read_only=bool(read_only)
            )
        self.writable = not read_only
        self.semantic = Semantic(semantic, semantic_model, notice)
        # A member of a team store is its PostgreSQL role: that is its user scope unless
        # another is given (the database's policies decide what that one shows).
        self.scope = Scope(
            user or db.member_user(self._conn), agent, session, project, isolate=isolate
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
        self._conn.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def connection(self) -> Any:
        """The raw connection (a ``sqlite3.Connection``, or a psycopg connection for a
        PostgreSQL store): for the library functions that take a store and run ``storage``
        functions on its database (``lifecycle``, ``stats``, ``oplog``, ``transfer``), and for
        tests and tools that inspect the database."""
        return self._conn

    def now(self) -> datetime:
        return self.clock()

    def transaction(self) -> AbstractContextManager[Any]:
        """One write transaction (``BEGIN IMMEDIATE``: the write lock up front).

        Nested use joins the outer transaction through a SAVEPOINT, so a library caller (or
        import) can batch many ``add`` / ``forget`` calls into one all-or-nothing commit::

            with store.transaction():
                for text in texts:
                    store.add(text)
        """
        return db.transaction(self._conn, self.path)

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
        if 1 <= number <= validation.MAX_ID and db.read(
            self._conn, self.path, lambda conn: memories.has_id(conn, self.scope, number)
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
        ids = db.read(
            self._conn,
            self.path,
            lambda conn: memories.ids_by_uid_prefix(conn, self.scope, digits, UID_PREFIX_COUNT),
        )
        if not ids:
            raise NotFoundError(f"no memory with uid {ref} in this scope")
        if len(ids) > 1:
            many = f"{len(ids)}" if len(ids) < UID_PREFIX_COUNT else f"{UID_PREFIX_COUNT - 1}+"
            raise NotFoundError(f"uid prefix {ref} matches {many} memories: give more of it")
        return ids[0]

    def find_uid(self, uid: str) -> Memory | None:
        """The memory whose uid is exactly ``uid``, in any scope and state, or None.

        A full uid is 128 random bits nobody guesses, so it names a memory the way an id does
        in Mem0 and LangGraph, whose ``get(memory_id)`` names no user: the framework faces
        (``zeromem_cli.mem0``) find the memory's scope here, then act through a view on it. A
        PostgreSQL team store's policies still decide what a member sees."""
        digits = uid.strip().lower().replace("-", "") if isinstance(uid, str) else ""
        if len(digits) != 32 or digits.strip("0123456789abcdef"):
            return None
        ids = db.read(
            self._conn, self.path, lambda conn: memories.ids_by_uid_prefix(conn, None, digits, 1)
        )
        if not ids:
            return None
        return db.read(self._conn, self.path, lambda conn: memories.fetch(conn, ids[0]))

    def scopes(self, *, every: bool = False) -> builtins.list[tuple[Scope, int]]:
        """The exact scopes holding live memories, with how many, most first: among those this
        store reads, or with ``every`` in the whole database (``stats``' breakdown). The
        framework faces map their namespaces onto scopes and list them with it."""
        from zeromem_cli.storage import bulk

        now = self.now()
        rows = db.read(
            self._conn,
            self.path,
            lambda conn: bulk.live_by_scope(conn, None if every else self.scope, now),
        )
        return [(Scope(u, a, s, p, isolate=True), n) for u, a, s, p, n in rows]

    def get(
        self, memory_id: int, *, include_deleted: bool = False, include_expired: bool = False
    ) -> Memory:
        """One memory of this scope by id; NotFoundError if absent, deleted or expired."""
        now = self.now()
        row = db.read(
            self._conn,
            self.path,
            lambda conn: memories.visible_row(
                conn,
                self.scope,
                now,
                memory_id,
                deleted=None if include_deleted else False,
                include_expired=include_expired,
            ),
        )
        return memories.to_memory(row)

    def list(self, limit: int | None = 50, filters: Filters | None = None) -> builtins.list[Memory]:
        """Memories of this scope, newest first."""
        limit = validation.check_limit(limit) if limit is not None else None
        now = self.now()
        return db.read(
            self._conn,
            self.path,
            lambda conn: memories.newest_first(conn, self.scope, filters or Filters(), now, limit),
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
        semantic: bool | None = None,
    ) -> builtins.list[Memory]:
        """Memories of this scope matching ``query``, best first; ``score`` set (higher is better).

        ``semantic`` (None: the store's setting): also the memories nearest the question in
        meaning, merged after the lexical ones it is sure of (``ranking.factors.semantic_merge``).

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
        dense = parsed is not None and bool(query.strip()) and self.semantic.wanted(semantic)
        vectors: builtins.list[Any] = []  # the question's, once computed (a retry reuses it)

        def run(conn: Any) -> builtins.list[tuple[Any, float]]:
            if parsed is None:
                return run_fts_search(conn, self.scope, now, query, **options)
            found = run_search(conn, self.scope, now, parsed, as_of=as_of, **options)
            if not dense:
                return found
            from zeromem_cli.semantic.need import settled

            # The model is loaded only when its hits could change the page.
            if settled(
                parsed.content, found, options["filters"], options["limit"], options["ranking"]
            ):
                return found
            if not vectors:
                vectors.append(self.query_vector(query, semantic))
            vector = vectors[0]
            if vector is None:
                return found
            from zeromem_cli.semantic.recall import joined

            return joined(
                conn,
                self.scope,
                now,
                parsed.content,
                found,
                options["filters"],
                options["limit"],
                vector,
                self.semantic.cache,
                options["ranking"],
            )

        scored = db.read(self._conn, self.path, run)
        return [memories.to_memory(row, score=score) for row, score in scored]

    def query_vector(self, query: str, semantic: bool | None = None) -> Any:
        """The question's vector (numpy), or None when semantic recall is off or unavailable
        or the question is blank."""
        if not query.strip():
            return None
        embedder = self.semantic.embedder(semantic)
        return None if embedder is None else embedder.queries([query])[0]

    def history(self, memory_id: int) -> builtins.list[HistoryEntry]:
        """Every version of a memory, oldest first; the last one is the current version."""
        now = self.now()
        return db.read(
            self._conn, self.path, lambda conn: memories.history(conn, self.scope, now, memory_id)
        )

    def count(self, filters: Filters | None = None) -> int:
        now = self.now()
        return db.read(
            self._conn,
            self.path,
            lambda conn: memories.count(conn, self.scope, filters or Filters(), now),
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
        semantic: bool | None = None,
    ) -> PackResult:
        """The most relevant memories that fit a token budget, formatted for an LLM prompt.

        See ``zeromem_cli.pack.select.pack`` for the options (``ranking``: the ``Tuning`` of
        search and pack); ``touch`` records an access of
        every packed memory (``record_access``), except in a read-only store.
        """
        from zeromem_cli.pack.select import pack

        now = self.now()
        vector = self.query_vector(query, semantic) if query else None
        result = db.read(
            self._conn,
            self.path,
            lambda conn: pack(
                conn,
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
                query_vector=None if vector is None else (vector, self.semantic.cache),
            ),
        )
        if touch and result.memories and self.writable:
            self.touch(m.id for m in result.memories)
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
        return db.read(
            self._conn,
            self.path,
            lambda conn: memories.pack_candidates(
                conn,
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
        return db.read(
            self._conn,
            self.path,
            lambda conn: memories.neighbours(
                conn, memory.scope, filters or Filters(), now, memory, span, window
            ),
        )

    def touch(self, memory_ids: Iterable[int]) -> bool:
        """``record_access``, best effort: a read that counts its accesses never fails for
        want of disk space, a lock or write access (#33: a full disk made ``pack`` and so
        the hooks inject nothing). Whether the accesses were recorded."""
        if not self.writable:
            return False
        try:
            with db.best_effort_writes(self._conn, ACCESS_LOCK_WAIT_MS):
                self.record_access(memory_ids)
        except StoreError:
            return False
        return True

    def record_access(self, memory_ids: Iterable[int]) -> None:
        """Count one access of each memory (``last_accessed_at``, ``access_count``), in one
        transaction. InvalidInputError for anything that is not a memory id."""
        ids = builtins.list(dict.fromkeys(map(validation.memory_id, memory_ids)))
        if not ids:
            return
        now = self.now()
        with self.transaction() as conn:
            memories.record_access(conn, ids, now)

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
        near: bool = True,
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

        ``near=False`` skips looking for near-duplicates to list in ``similar`` (a search per
        write: most of a bulk ingest's time); ``merge`` looks for them all the same.

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
        vector = self._passage_vector(given["content"])
        with self.transaction() as conn:
            result = writes.write(
                conn,
                scope,
                self.now(),
                given,
                values,
                created_at=created,
                allow_duplicate=allow_duplicate,
                merge=merge,
                near=near,
            )
            self._keep_vector(conn, result.memory, given, vector)
            return result

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
        vector = self._passage_vector(new["content"]) if "content" in new else None
        with self.transaction() as conn:
            memory = writes.update(conn, self.scope, self.now(), memory_id, new, meta)
            self._keep_vector(conn, memory, new, vector)
            return memory

    def _passage_vector(self, content: str) -> Any:
        """A memory text's vector, computed before the write transaction (None: off)."""
        if not self.writable:
            return None
        embedder = self.semantic.embedder()
        return None if embedder is None else (embedder.name, embedder.passages([content]))

    @staticmethod
    def _keep_vector(conn: Any, memory: Memory, given: dict[str, Any], vector: Any) -> None:
        """Store ``vector`` with ``memory`` in the write's transaction, if it is of the
        memory's current text (a duplicate of other text keeps its own)."""
        if vector is None or memory.content != given["content"]:
            return
        from zeromem_cli.semantic import blocks

        owner = (memory.scope.user or "", memory.scope.project or "")
        blocks.put(conn, vector[0], [(memory.id, given["content_hash"], owner)], vector[1])

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
        with self.transaction() as conn:
            return writes.forget(conn, self.scope, now, ids)

    def restore(self, memory_id: int) -> Memory:
        """Bring a soft-deleted (forgotten, expired or archived) memory back. An expiry that has
        passed is cleared, otherwise the restored memory would stay invisible."""
        with self.transaction() as conn:
            return writes.restore(conn, self.scope, self.now(), memory_id)


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
