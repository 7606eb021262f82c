"""MemoryStore: the library API, the one public class.

It holds the storage backend (``storage.base.Backend``, chosen once when the store opens),
the scope and the clock, and each method has one shape: validate the arguments, then run one
function over the backend (``search``, ``writes``, ``versions``, ``pack.select``,
``lifecycle``, ``stats``, ``transfer``, ``semantic``) inside a read with busy retry and error
mapping (``Backend.read``) or one write transaction (``Backend.transaction``). No SQL here:
that is ``storage``'s (see its docstring for the storage model), and no module outside this
one and ``storage`` touches the driver's connection (``tests/system/test_api_boundary.py``).

A call with many parts takes a request record (``requests.PackRequest``, ``WriteRequest``,
``ImportRequest``) built once by its face; keyword arguments change fields of it. The store
records its own operations in the operations log ``stats`` reads, once per outermost call,
when its ``StoreSettings.log`` says so (``operation``).
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from zeromem_cli import validation
from zeromem_cli.errors import InvalidInputError, NotFoundError, StoreError
from zeromem_cli.models import Filters, HistoryEntry, Memory, Scope, WriteResult
from zeromem_cli.requests import (
    UNSET,
    ImportRequest,
    PackRequest,
    StoreSettings,
    WriteRequest,
    changed,
)
from zeromem_cli.search import DEFAULT_RANKING, Ranking, run_fts_search, run_search
from zeromem_cli.semantic.switch import Semantic
from zeromem_cli.storage import db
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.query import BM25_WEIGHTS
from zeromem_cli.storage.records import to_memory
from zeromem_cli.text.normalize import require_utf8
from zeromem_cli.text.query import parse_query
from zeromem_cli.times import Clock, utcnow

if TYPE_CHECKING:
    from zeromem_cli.keys import Key
    from zeromem_cli.lifecycle import GcPolicy, GcReport, PurgeResult, Selection
    from zeromem_cli.oplog import OperationSummary
    from zeromem_cli.pack.select import PackResult
    from zeromem_cli.semantic.embedder import Embedder
    from zeromem_cli.semantic.indexer import IndexReport
    from zeromem_cli.stats import Stats
    from zeromem_cli.transfer.imports import ImportReport


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
        key: str | Key | None = None,
        key_file: str | Path | None = None,
        read_only: bool | Literal["auto"] = False,
        settings: StoreSettings | None = None,
    ) -> None:
        """``settings`` (``StoreSettings``): the content and tag limits of a write, a
        ``notice`` (e.g. print to stderr) told before a long one-time job on opening (a schema
        upgrade or a search-index rebuild of a large store after an upgrade), and whether
        operations are logged for ``stats``.

        ``key`` / ``key_file`` open an encrypted store (or create a new one encrypted); without
        them ``ZEROMEM_KEY_FILE``, ``ZEROMEM_KEY`` and the OS keyring are tried (``keys``).

        ``read_only=True`` opens an existing database for reading only (SQLite ``mode=ro``):
        every write raises ``StoreError``, and a database that needs an upgrade is refused.
        ``"auto"`` (commands that only read) does so only when this process cannot write the
        file or its folder (read-only media, a chmod-ed file), and opens it as usual
        otherwise; ``writable`` says which it got (a plain SQLite file: an encrypted one
        opens as usual).

        ``settings.if_missing``: what a SQLite file that does not exist yet means: ``"create"``
        it (a write), read it as an ``"empty"`` store without creating anything (a read of the
        default store), or an ``"error"`` naming it (a read of a store the user named: a typo
        in ``--db`` is not an empty store).

        ``settings.max_tags`` / ``max_tag_chars`` cap the tags a write (add, update, import)
        may give a memory: more, or a longer one, is ``InvalidInputError``.

        ``settings.semantic``: semantic recall (the ``zeromem[semantic]`` extra): ``"auto"``
        (None, the default: ``ZEROMEM_SEARCH_SEMANTIC``, else on when installed), True /
        ``"on"`` or False / ``"off"``. When on, ``add`` / ``write`` / ``update`` store each
        memory's vector in the same transaction and ``search`` / ``pack`` also find memories
        asked for in other words. ``settings.semantic_model``: another model
        (``zeromem_cli.semantic.embedder``). When the model cannot load, ``notice`` is told
        once and the store works by words."""
        if path is None:
            from zeromem_cli.paths import default_db_path

            path = default_db_path()
        # A PostgreSQL URL stays text (a Path would fold its "//"); ``path`` names it in
        # messages with any password masked.
        self.location: str | Path = db.location(path)
        self.path: Path | str = db.display(self.location) if db.is_url(path) else Path(path)
        self.clock: Clock = clock or utcnow
        self.settings = settings = settings or StoreSettings()
        self.max_content_bytes = settings.max_content_bytes
        self.max_tags = settings.max_tags
        self.max_tag_chars = settings.max_tag_chars
        # How deep in logged operations this store and its views are (shared by ``scoped``
        # views): only the outermost call is logged.
        self._depth = [0]
        resolved_key = _resolve_key(key, key_file)
        self.backend: Backend
        if settings.if_missing != "create" and db.is_missing(self.location):
            read_only = True
            self.backend = (
                db.open_empty()
                if settings.if_missing == "empty"
                else db.MissingStore(  # type: ignore[assignment]
                    StoreError(
                        f"no store at {self.path}: check --db / ZEROMEM_DB (the first write, "
                        "such as `zeromem add`, creates one)"
                    )
                )
            )
        else:
            if read_only == "auto":
                read_only = not db.can_write(self.location)
            self.backend = db.open_backend(
                self.location, settings.notice, key=resolved_key, read_only=bool(read_only)
            )
        self.writable = not read_only
        self.semantic = Semantic(settings.semantic, settings.semantic_model, settings.notice)
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
        """The raw connection (a ``sqlite3.Connection``, or a psycopg connection for a
        PostgreSQL store), for tests and tools that inspect the database below the API. No
        module of the package outside this one and ``storage`` reads it."""
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

    @contextmanager
    def operation(self, op: str | None) -> Iterator[LoggedOperation]:
        """One operation of the log ``stats`` reads: the calls made inside the block (a search
        inside an ingest, the writes of an import) are part of it and are not logged on their
        own. Logged once the block succeeds, if this store logs (``StoreSettings.log``), with
        the ``results`` and ``tokens`` the block sets on what it is given; ``op=None`` logs
        nothing and keeps the calls inside unlogged."""
        entry = LoggedOperation()
        self._depth[0] += 1
        try:
            yield entry
        finally:
            self._depth[0] -= 1
        if op is not None and not self._depth[0] and self.settings.log and self.writable:
            from zeromem_cli import oplog

            now = self.now()
            oplog.record(self.backend, self.transaction, now, op, entry.results, entry.tokens)

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

    def find_uid(self, uid: str) -> Memory | None:
        """The memory whose uid is exactly ``uid``, in any scope and state, or None.

        A full uid is 128 random bits nobody guesses, so it names a memory the way an id does
        in Mem0 and LangGraph, whose ``get(memory_id)`` names no user: the framework faces
        (``zeromem_cli.mem0``) find the memory's scope here, then act through a view on it. A
        PostgreSQL team store's policies still decide what a member sees."""
        digits = uid.strip().lower().replace("-", "") if isinstance(uid, str) else ""
        if len(digits) != 32 or digits.strip("0123456789abcdef"):
            return None
        ids = self.backend.read(lambda backend: backend.ids_by_uid_prefix(None, digits, 1))
        if not ids:
            return None
        return self.backend.read(lambda backend: backend.fetch(ids[0]))

    def scopes(self, *, every: bool = False) -> builtins.list[tuple[Scope, int]]:
        """The exact scopes holding live memories, with how many, most first: among those this
        store reads, or with ``every`` in the whole database (``stats``' breakdown). The
        framework faces map their namespaces onto scopes and list them with it."""
        now = self.now()
        rows = self.backend.read(
            lambda backend: backend.live_by_scope(None if every else self.scope, now)
        )
        return [(Scope(u, a, s, p, isolate=True), n) for u, a, s, p, n in rows]

    def get(
        self, memory_id: int, *, include_deleted: bool = False, include_expired: bool = False
    ) -> Memory:
        """One memory of this scope by id; NotFoundError if absent, deleted or expired."""
        from zeromem_cli import versions

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
        # The question's vector (a retry reuses it), made only once the words leave the page
        # open (``semantic.pending``).
        pending = self.semantic.pending(query, semantic) if dense else None

        def run(backend: Backend) -> builtins.list[tuple[Any, float]]:
            if parsed is None:
                return run_fts_search(backend, self.scope, now, query, **options)
            found = run_search(backend, self.scope, now, parsed, as_of=as_of, **options)
            if pending is None:
                return found
            from zeromem_cli.semantic.need import settled

            # The model is loaded only when its hits could change the page.
            if settled(
                parsed.content, found, options["filters"], options["limit"], options["ranking"]
            ):
                return found
            vector = pending.result()
            if vector is None:
                return found
            from zeromem_cli.semantic.recall import joined

            return joined(
                backend,
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

        with self.operation("search") as entry:
            scored = self.backend.read(run)
            entry.results = len(scored)
        return [to_memory(row, score=score) for row, score in scored]

    def query_vector(self, query: str, semantic: bool | None = None) -> Any:
        """The question's vector (numpy), or None when semantic recall is off or unavailable
        or the question is blank."""
        return self.semantic.pending(query, semantic).result()

    def history(self, memory_id: int) -> builtins.list[HistoryEntry]:
        """Every version of a memory, oldest first; the last one is the current version."""
        from zeromem_cli import versions

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
        self, query: str | None = None, request: PackRequest | None = None, **changes: Any
    ) -> PackResult:
        """The most relevant memories that fit a token budget, formatted for an LLM prompt.

        ``request`` (``PackRequest``) says how; keyword arguments change fields of it
        (``store.pack("q", budget=300)``). See ``zeromem_cli.pack.select.pack`` for each part
        (``ranking``: the ``Tuning`` of search and pack; ``semantic``: this call's semantic
        recall, None for the store's); ``touch`` records an access of every packed memory,
        except in a read-only store.
        """
        from zeromem_cli.pack.select import pack

        asked: PackRequest = changed(request or PackRequest(), changes)
        now = self.now()
        # The question's vector, made only if the lexical pool leaves room for a dense hit
        # (``semantic.pending``).
        dense = bool(query and query.strip()) and self.semantic.wanted(asked.semantic)
        pending = self.semantic.pending(query or "", asked.semantic) if dense else None
        found = None if pending is None else (pending, self.semantic.cache)
        with self.operation("pack") as entry:
            result = self.backend.read(
                lambda backend: pack(backend, self.scope, now, query, asked, found)
            )
            entry.results, entry.tokens = len(result.memories), result.tokens
        if asked.touch and result.memories and self.writable:
            self.touch(m.id for m in result.memories)
        return result

    def _pack_candidates(
        self,
        limit: int,
        filters: Filters | None = None,
        *,
        pinned_only: bool = False,
        pinned_limit: int | None = None,
    ) -> builtins.list[Memory]:
        """What ``pack`` starts from besides search hits (tests of the storage below it): the
        pinned memories (at most ``pinned_limit``, most important first), then (unless
        ``pinned_only``) up to ``limit`` of the most important and of the most recent ones."""
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

    def _neighbours(
        self,
        memory: Memory,
        span: int,
        window: timedelta,
        filters: Filters | None = None,
    ) -> tuple[builtins.list[Memory], builtins.list[Memory]]:
        """Up to ``span`` memories written just before ``memory`` (nearest first) and just
        after it, in its origin session, at most ``window`` apart (tests of the conversation
        context pack reads). A memory this store does not read has none."""
        now = self.now()
        if not self.scope.reads(memory.scope):
            return [], []
        return self.backend.read(
            lambda backend: backend.neighbours(
                memory.scope, filters or Filters(), now, memory, span, window
            )
        )

    def touch(self, memory_ids: Iterable[int]) -> bool:
        """``record_access``, best effort: a read that counts its accesses never fails for
        want of disk space, a lock or write access (#33: a full disk made ``pack`` and so
        the hooks inject nothing). Whether the accesses were recorded."""
        if not self.writable:
            return False
        try:
            with self.backend.best_effort_writes(ACCESS_LOCK_WAIT_MS):
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
        with self.transaction() as backend:
            backend.record_access(ids, now)

    # -- writes (policy in writes.py) -----------------------------------------------------------

    def add(self, content: str, request: WriteRequest | None = None, **changes: Any) -> Memory:
        """Store a memory and return it (see ``write`` for key upsert and duplicates)."""
        return self.write(content, request, **changes).memory

    def write(
        self, content: str, request: WriteRequest | None = None, **changes: Any
    ) -> WriteResult:
        """Store a memory, saying what happened. ``request`` (``WriteRequest``) holds
        everything but the text; keyword arguments change fields of it
        (``store.write("text", key="k", category="fact")``).

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

        ``embed=False`` stores no vector now, even with semantic recall on: ``index`` (or
        ``gc``) embeds the memory later, as it does an imported one; until then it is found
        by words. For a bulk writer (``ingest``), whose speed embedding one memory at a time
        would set.

        ``created_at`` (import, benchmarks) dates a new memory in the past instead of now; it is
        ignored when the write updates or matches an existing memory.
        """
        asked: WriteRequest = changed(request or WriteRequest(), changes)
        with self.operation("add") as entry:
            result = self._write(content, asked)
            entry.results = 1
        return result

    def _write(self, content: str, asked: WriteRequest) -> WriteResult:
        from zeromem_cli import writes

        created = writes.as_iso(asked.created_at) if asked.created_at is not None else None
        own = self.scope
        scope = Scope(
            own.user if asked.user is UNSET else asked.user,
            own.agent if asked.agent is UNSET else asked.agent,
            own.session if asked.session is UNSET else asked.session,
            own.project if asked.project is UNSET else asked.project,
            isolate=own.isolate,
        )
        given = writes.content_fields(content, self.max_content_bytes)
        self._check_tags(asked.tags)
        given.update(
            writes.fields(
                key=asked.key,
                category=asked.category,
                tags=asked.tags,
                importance=asked.importance,
                pinned=asked.pinned,
                meta=asked.meta,
            )
        )
        if asked.ttl is not None or asked.expires_at is not None:
            given["expires_at"] = writes.expiry(asked.ttl, asked.expires_at, self.now())
        writes.check_scope(scope)
        if not asked.allow_secret:
            writes.refuse_secrets(given, scope)
        values = writes.new_values(given, asked.default_category)
        vector = self._passage_vector(given["content"]) if asked.embed else None
        with self.transaction() as backend:
            result = writes.write(
                backend,
                scope,
                self.now(),
                given,
                values,
                created_at=created,
                allow_duplicate=asked.allow_duplicate,
                merge=asked.merge,
                near=asked.near,
            )
            self._keep_vector(backend, result.memory, given, vector)
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
        from zeromem_cli import writes

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
        with self.transaction() as backend:
            memory = writes.update(backend, self.scope, self.now(), memory_id, new, meta)
            self._keep_vector(backend, memory, new, vector)
            return memory

    def _passage_vector(self, content: str) -> Any:
        """A memory text's vector, computed before the write transaction (None: off)."""
        if not self.writable:
            return None
        embedder = self.semantic.embedder()
        return None if embedder is None else (embedder.name, embedder.passages([content]))

    @staticmethod
    def _keep_vector(backend: Backend, memory: Memory, given: dict[str, Any], vector: Any) -> None:
        """Store ``vector`` with ``memory`` in the write's transaction, if it is of the
        memory's current text (a duplicate of other text keeps its own)."""
        if vector is None or memory.content != given["content"]:
            return
        from zeromem_cli.semantic import blocks

        owner = (memory.scope.user or "", memory.scope.project or "")
        blocks.put(backend, vector[0], [(memory.id, given["content_hash"], owner)], vector[1])

    def _check_tags(self, tags: Iterable[str] | None) -> None:
        if tags is not None:
            cleaned = validation.clean_tags(tags)
            validation.check_tags(cleaned, self.max_tags, self.max_tag_chars)

    def forget(self, *memory_ids: int, strict: bool = True) -> int:
        """Soft-delete memories (recoverable with ``restore``), in one transaction; how many
        were forgotten. ``strict``: every id must be a live memory of this scope, or
        ``NotFoundError`` and none is forgotten; otherwise the live ones among them are
        forgotten (ids ``select`` gave, some of which another process may have forgotten
        since)."""
        from zeromem_cli import writes

        ids = builtins.list(dict.fromkeys(memory_ids))
        if not ids:
            return 0
        now = self.now()
        with self.operation("forget") as entry, self.transaction() as backend:
            if strict:
                entry.results = writes.forget(backend, self.scope, now, ids)
            else:
                entry.results = backend.forget_live(ids, now)
        return entry.results

    def restore(self, memory_id: int) -> Memory:
        """Bring a soft-deleted (forgotten, expired or archived) memory back. An expiry that has
        passed is cleared, otherwise the restored memory would stay invisible."""
        from zeromem_cli import writes

        with self.transaction() as backend:
            return writes.restore(backend, self.scope, self.now(), memory_id)

    # -- lifecycle (policy in lifecycle.py) -----------------------------------------------------

    def select(self, selection: Selection, verb: str = "forget") -> builtins.list[Memory]:
        """The memories of this scope ``selection`` picks (``lifecycle.Selection``), for
        ``forget``, ``restore`` or ``purge`` to act on once a person has seen them: by rank
        when it has a query (only memories holding every one of its words), otherwise oldest
        first. Explicit ids must all exist in the selected state, or ``NotFoundError``."""
        from zeromem_cli import lifecycle

        ids = lifecycle.checked_ids(selection, verb)
        ranked: builtins.list[int] | None = None
        with self.operation(None):
            if selection.query is not None:
                hits = self.search(
                    selection.query,
                    limit=sys.maxsize,
                    filters=Filters(include_expired=True, include_deleted=True),
                )
                ranked = lifecycle.holding_every_word(selection.query, hits)
            return self.backend.read(
                lambda backend: lifecycle.select(backend, self.scope, selection, ids, ranked)
            )

    def purge(self, memory_ids: Sequence[int]) -> PurgeResult:
        """Delete memories for good (live or in the trash), in one transaction, so that their
        text is in none of the database files afterwards: rows, history and index entries go,
        the index is rewritten and the write-ahead log truncated (``wal_truncated`` False: a
        reader kept it busy, and the next ``gc`` finishes the job)."""
        from zeromem_cli import lifecycle

        with self.operation("purge") as entry:
            with self.transaction() as backend:
                purged = lifecycle.purge(
                    backend, builtins.list(dict.fromkeys(memory_ids)), self.semantic.wanted()
                )
            entry.results = purged
            with self.backend.mapped_errors():
                truncated = lifecycle.checkpoint(self.backend) if purged else True
        return lifecycle.PurgeResult(purged, truncated)

    def gc(
        self,
        policy: GcPolicy | None = None,
        *,
        all_scopes: bool = True,
        vacuum: bool = False,
        dry_run: bool = False,
    ) -> GcReport:
        """Expire, purge old trash, archive stale memories (if ``policy`` enables it), optimize
        the index and truncate the write-ahead log; ``vacuum`` also compacts the file,
        ``dry_run`` only counts. ``all_scopes=False`` limits the row work to this scope. Works
        in short transactions, so concurrent writers keep working."""
        from zeromem_cli import lifecycle

        scope = None if all_scopes else self.scope
        with self.backend.mapped_errors():
            return lifecycle.collect_garbage(
                self.backend,
                self.transaction,
                scope,
                self.now(),
                policy or lifecycle.GcPolicy(),
                vacuum=vacuum,
                dry_run=dry_run,
            )

    def trash(
        self, *, reason: str | None = None, limit: int | None = None
    ) -> builtins.list[Memory]:
        """Soft-deleted memories of this scope (``reason``: forgotten, expired or archived
        only), most recently deleted first."""
        return self.backend.read(
            lambda backend: backend.trash(self.scope, reason=reason, limit=limit)
        )

    # -- semantic recall's vectors (semantic/) -------------------------------------------------

    def unindexed(self, *, all_scopes: bool = True) -> int:
        """Live memories (of every scope, or of this one) without a vector of their current
        text while semantic recall is on: ``index`` embeds them. 0 when it is off."""
        if not self.semantic.wanted():
            return 0
        from zeromem_cli.semantic.indexer import coverage

        scope = None if all_scopes else self.scope
        now = self.now()
        covered, total = self.backend.read(lambda backend: coverage(backend, scope, now))
        return total - covered

    def index(
        self,
        *,
        all_scopes: bool = True,
        progress: Callable[[int], None] | None = None,
        embedder: Embedder | None = None,
    ) -> IndexReport:
        """Embed the live memories (of every scope, or of this one) that have no vector of
        their current text: after an import, an upgrade or a change of model. Resumable:
        each batch commits on its own. ``progress(n)`` is told after each batch;
        ``embedder``: another model than the store's (a benchmark's cache).
        ``InvalidInputError`` when semantic recall is unavailable."""
        from zeromem_cli.semantic.indexer import index

        embedder = embedder or self.semantic.embedder(True)
        if embedder is None:
            from zeromem_cli.semantic.switch import INSTALL_HINT

            raise InvalidInputError(
                "semantic recall is off or unavailable here "
                f"(search.semantic = {self.semantic.mode}; {INSTALL_HINT}): nothing indexed"
            )
        scope = None if all_scopes else self.scope

        return index(self.backend, self.transaction, embedder, self.now(), scope, progress)

    def embed_written(
        self, memory_ids: Sequence[int], embedder: Embedder, keep_going: Callable[[], bool]
    ) -> int:
        """Embed these just-written memories, newest first, while ``keep_going()`` (a hook's
        capture, within a share of its time limit); how many were embedded."""
        from zeromem_cli.semantic.indexer import embed_some

        return embed_some(self.backend, self.transaction, embedder, memory_ids, keep_going)

    # -- counts and the operations log ---------------------------------------------------------

    def stats(self, *, all_scopes: bool = False) -> Stats:
        """Counts of this scope (``all_scopes``: the whole database), stored tokens, the size
        on disk and what the operations log says ``pack`` printed."""
        from zeromem_cli import stats

        scope = None if all_scopes else self.scope
        now = self.now()
        found = self.backend.read(lambda backend: stats.collect(backend, scope, now, self.path))
        return stats.with_operations(found, self.operations())

    def operations(self) -> dict[str, OperationSummary]:
        """The operations log per operation: how many times it ran, results and tokens in
        total (empty when the log cannot be read)."""
        from zeromem_cli import oplog

        try:
            return self.backend.read(oplog.summarize)
        except StoreError:
            return {}

    # -- export and import (transfer/) ---------------------------------------------------------

    def export(
        self,
        filters: Filters | None = None,
        *,
        all_scopes: bool = False,
        with_history: bool = False,
    ) -> builtins.list[dict[str, Any]]:
        """The records to export (the JSON record of each memory, with its earlier versions
        under ``history`` when ``with_history``), oldest id first, of this scope or every
        scope."""
        from zeromem_cli.transfer.export import export_records

        scope = None if all_scopes else self.scope
        now = self.now()
        with self.operation("export") as entry:
            records = self.backend.read(
                lambda backend: export_records(backend, scope, now, filters, with_history)
            )
            entry.results = len(records)
        return records

    def import_records(
        self,
        records: Iterable[tuple[str, Any]],
        request: ImportRequest | None = None,
        **changes: Any,
    ) -> ImportReport:
        """Validate ``records`` (``(where, raw record)`` pairs, as ``transfer.read.parse``
        gives them) and write them in one transaction; see ``transfer.imports``. ``request``
        (``ImportRequest``): conflicts, invalid records, scopes, dry run; keyword arguments
        change fields of it. An invalid record stops the import (``InvalidRecordsError``)
        unless ``skip_invalid``."""
        from zeromem_cli.transfer.imports import import_records

        asked: ImportRequest = changed(request or ImportRequest(), changes)
        with self.operation(None if asked.dry_run else "import") as entry:
            report = import_records(self, records, asked)
            entry.results = report.added + report.updated
        return report


class LoggedOperation:
    """What one logged operation reports (``MemoryStore.operation``)."""

    __slots__ = ("results", "tokens")

    def __init__(self) -> None:
        self.results = 0
        self.tokens = 0


__all__ = ["BM25_WEIGHTS", "LoggedOperation", "MemoryStore", "StoreError"]


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
