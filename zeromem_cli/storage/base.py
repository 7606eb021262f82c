"""The storage interface: ``Backend``, one object per open store, chosen once when the store
opens (``storage.db.open_backend``) and held by ``MemoryStore``.

Drawn from what the policy modules (store, writes, search, pack, lifecycle, stats, oplog,
transfer) need of a database, as pipx drew its ``backends/_base.py`` when its second backend
arrived: ``storage.sqlite.backend.SqliteBackend`` (FTS5) and
``storage.postgres.backend.PostgresBackend`` (tsvector) implement every method, and
``tests/system/test_backends.py`` checks they do so with the interface's parameters. Policy code
receives a ``Backend``, never a driver connection: which driver runs a call is decided here,
once, not per call.

Search candidates are asked for with a structured ``CandidateQuery`` (``storage.query``),
which each backend compiles itself (an FTS5 MATCH expression or a ``tsquery``).

Rows come back as ``Row``: whatever the driver returns, read by column name (``records``
turns them into ``Memory`` and history records, the same for both).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timedelta
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from zeromem_cli.models import Filters, Memory, Scope
from zeromem_cli.storage.query import CandidateQuery, Match
from zeromem_cli.storage.records import Row

if TYPE_CHECKING:
    from zeromem_cli.storage.vector_blocks import Block

T = TypeVar("T")

# Vectors per block of ``vector_blocks`` (one owner's; ``semantic.blocks`` fills them).
VECTOR_BLOCK_SIZE = 256


class Backend(ABC):
    """One open store's database: its connection and every statement the library runs on it.

    ``where`` names the store in messages (a file path, or a URL with its password masked).
    Every method runs inside the caller's ``read`` or ``transaction`` and leaves error mapping
    to them.

    A method whose statements differ only by dialect is written here once: it calls the
    function of the same name in the backend's ``package`` (``memories``, ``bulk``, ``oplog``,
    ``vectors``, ``fts``, ``db``: modules of the same shape in each package), the connection
    first. A backend writes the rest, the abstract methods, itself: how a read waits for a
    writer, who the member is, how a structured query is compiled."""

    name: str  # "sqlite" or "postgresql"
    # The package holding this backend's statements: ``zeromem_cli.storage.sqlite``, ...
    package: str
    where: Path | str

    def __init__(self, conn: Any, where: Path | str) -> None:
        self.conn = conn
        self.where = where

    def _module(self, name: str) -> Any:
        """The module ``name`` of this backend's package, imported on its first use (a search
        never loads the bulk or the vectors' statements)."""
        return import_module(f"{self.package}.{name}")

    @property
    def connection(self) -> Any:
        """The driver's connection, for tools and tests that inspect the database."""
        return self.conn

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    # -- reads, transactions, errors ---------------------------------------------------------

    @abstractmethod
    def read(self, action: Callable[[Backend], T]) -> T:
        """``action(self)`` as a read runs: retried while the database is busy, its driver
        errors mapped to ``StoreError``."""

    def transaction(self) -> AbstractContextManager[Backend]:
        """One write transaction (nested: a savepoint), driver errors mapped."""
        return self._transaction()

    @contextmanager
    def _transaction(self) -> Iterator[Backend]:
        with self._module("db").transaction(self.conn, self.where):
            yield self

    def mapped_errors(self) -> AbstractContextManager[None]:
        """Inside the block, a driver exception becomes a ``StoreError``."""
        return self._module("db").mapped_errors(self.where)

    def best_effort_writes(self, lock_wait_ms: int) -> AbstractContextManager[None]:
        """Writes not worth waiting or a disk flush for (the operations log)."""
        return self._module("db").best_effort_writes(self.conn, lock_wait_ms)

    def page_cache(self, kib: int) -> AbstractContextManager[None]:
        """A larger page cache for the block (bulk import), where the database has one."""
        return self._module("db").page_cache(self.conn, kib)

    @abstractmethod
    def member_user(self) -> str | None:
        """A team store member's own ``user`` scope (its PostgreSQL role); None for a file
        store and for the owner of a server store."""

    # -- one memory's versions (assembled above storage: ``zeromem_cli.versions``) -------------

    def find_row(
        self,
        scope: Scope,
        now: datetime,
        memory_id: int,
        *,
        deleted: bool | None = False,
        include_expired: bool = False,
    ) -> Row | None:
        """The row of ``memory_id`` in ``scope``, None when not visible (``deleted``: False =
        live only, True = in the trash only, None = either)."""
        return self._module("memories").find_row(
            self.conn, scope, now, memory_id, deleted=deleted, include_expired=include_expired
        )

    def history_rows(self, ids: Iterable[int]) -> list[Row]:
        """The ``memory_history`` rows (earlier versions) of ``ids``, by memory id, oldest
        version first."""
        return self._module("memories").history_rows(self.conn, ids)

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
        """The memories of ``scope`` in ``state`` (live, trash or any; expired ones included) that
        meet every criterion given, by id: among ``ids``, with this key, category, every tag,
        created before ``before``, among ``ranked``."""
        return self._module("bulk").selected(
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
        """Soft-delete (forgotten) the live memories among ``ids``; how many there were."""
        return self._module("bulk").forget_live(self.conn, ids, now)

    def trash(self, scope: Scope, *, reason: str | None, limit: int | None) -> list[Memory]:
        """Soft-deleted memories of ``scope`` (for ``reason`` only, if given), most recently
        deleted first."""
        return self._module("bulk").trash(self.conn, scope, reason=reason, limit=limit)

    def delete_for_good(self, ids: Iterable[int]) -> int:
        """Delete the rows, history and index entries of ``ids``; how many rows went."""
        return self._module("bulk").delete_for_good(self.conn, ids)

    def checkpoint(self) -> bool:
        """Copy the WAL into the main file and truncate it to zero bytes (outside a transaction;
        waits up to the busy timeout for readers). False: a reader still held an old snapshot."""
        return self._module("bulk").checkpoint(self.conn)

    def vacuum(self) -> None:
        """Rewrite the database file without its free pages (outside a transaction)."""
        return self._module("bulk").vacuum(self.conn)

    def gc_count(self, selection: str, scope: Scope | None, params: dict[str, Any]) -> int:
        """How many memories a gc ``selection`` (``GC_SELECTIONS``) holds now; ``scope`` None:
        every scope."""
        return self._module("bulk").gc_count(self.conn, selection, scope, params)

    def gc_batch(
        self, selection: str, scope: Scope | None, params: dict[str, Any], size: int
    ) -> list[int]:
        """The ids of at most ``size`` memories of a gc ``selection``."""
        return self._module("bulk").gc_batch(self.conn, selection, scope, params, size)

    def soft_delete(self, ids: Sequence[int], now: str, reason: str) -> int:
        """Move the live memories among ``ids`` to the trash for ``reason``; how many moved."""
        return self._module("bulk").soft_delete(self.conn, ids, now, reason)

    def counts(self, scope: Scope | None, now: datetime) -> tuple[int, ...]:
        """Memories of ``scope`` (None: every scope): live, expired, in the trash, live and
        pinned, live with a key."""
        return self._module("bulk").counts(self.conn, scope, now)

    def live_by_category(self, scope: Scope | None, now: datetime) -> dict[str, int]:
        """Live memories per category, most first."""
        return self._module("bulk").live_by_category(self.conn, scope, now)

    def live_by_scope(
        self, scope: Scope | None, now: datetime
    ) -> list[tuple[str, str, str, str, int]]:
        """Live memories per stored scope (user, agent, session, project; '' for unset), most
        first."""
        return self._module("bulk").live_by_scope(self.conn, scope, now)

    def live_contents(self, scope: Scope | None, now: datetime) -> Iterator[str]:
        """The content of every live memory of ``scope``."""
        return self._module("bulk").live_contents(self.conn, scope, now)

    def server_bytes(self) -> int | None:
        """The bytes a database server holds for the store; None: a file store (its size is the
        file's, read from the file system by ``stats``)."""
        return self._module("bulk").server_bytes(self.conn)

    def existing(self) -> Iterator[Row]:
        """Every memory as an import plans against it: (id, stored uid, user, agent, session,
        project, key, deleted_at) rows."""
        return self._module("bulk").existing(self.conn)

    def fresh_ids(self, count: int) -> list[int] | None:
        """Ids the database hands out for ``count`` imported memories, where the importer cannot
        see every id in use (``existing``) and so cannot pick free ones; None where it can: here
        always (a SQLite store has no rows hidden from its reader)."""
        return self._module("bulk").fresh_ids(self.conn, count)

    def update_imported(self, row: Row, merged: dict[str, Any], now: str) -> None:
        """Make ``merged`` (every column of ``COLUMNS``) the next version of ``row``, the old one
        kept in history as changed by an import."""
        return self._module("bulk").update_imported(self.conn, row, merged, now)

    def insert_imported(
        self,
        rows: list[dict[str, Any]],
        contents: Sequence[str],
        history: Sequence[tuple[Any, ...]],
    ) -> None:
        """Insert new memories (every column of ``COLUMNS``, uid as text) with their index
        entries (``contents``: each row's content index text) and their earlier versions
        (``history``: rows of ``HISTORY_COLUMNS``) in a few executemany calls."""
        return self._module("bulk").insert_imported(self.conn, rows, contents, history)

    # -- search candidates (a structured query: ``storage.query``) ----------------------------

    @abstractmethod
    def candidates(self, query: CandidateQuery) -> list[tuple[Row, float]]:
        """The best ``query.pool`` memories for ``query``, as (row, BM25) pairs, best first
        (FTS5's sign: lower is better; ties newest first). The backend compiles the match
        itself (FTS5 MATCH, or a ``tsquery`` and BM25 in SQL)."""

    @abstractmethod
    def count_matches(self, match: Match, cap: int) -> int:
        """How many memories ``match`` matches (scope aside), counted up to ``cap``."""

    @abstractmethod
    def holds_at_least(self, match: Match, count: int) -> bool:
        """Whether ``match`` matches ``count`` memories or more (scope aside), found without
        ranking them."""

    def larger_than(self, count: int) -> bool:
        """Whether the store may hold more than ``count`` memories: if not, no word can match
        more, and probes for common words can be skipped."""
        return self._module("candidates").larger_than(self.conn, count)

    @abstractmethod
    def expression_candidates(
        self, expression: str, scope: Scope, filters: Filters, now: datetime, pool: int
    ) -> list[tuple[Row, float]]:
        """``search --fts``: the user's own FTS5 ``expression``, ranked as ``candidates``
        ranks; InvalidInputError when it is malformed."""

    # -- the search index ----------------------------------------------------
    def optimize(self) -> None:
        """Merge every FTS segment into one: segments that still held deleted tokens are rewritten
        and their pages freed (and zeroed, with secure_delete)."""
        return self._module("fts").optimize(self.conn)

    def bulk_loading(self) -> AbstractContextManager[None]:
        """FTS5 tuned for many inserts, inside the caller's transaction."""
        return self._module("fts").bulk_loading(self.conn)

    # -- one memory: reads, writes, versions ---------------------------------
    def by_id(self, memory_id: int) -> Row:
        """The row of ``memory_id``, in any scope and state (the caller knows it exists)."""
        return self._module("memories").by_id(self.conn, memory_id)

    def has_id(self, scope: Scope, memory_id: int) -> bool:
        """Whether a memory of ``scope`` (any state) has this id."""
        return self._module("memories").has_id(self.conn, scope, memory_id)

    def ids_by_uid_prefix(self, scope: Scope | None, hex_prefix: str, limit: int) -> list[int]:
        """Ids of the memories of ``scope`` (None: any scope; any state) whose uid starts with
        ``hex_prefix`` (lower-case hex digits, no dashes), at most ``limit``: a range of the uid
        index, since a stored uid is its 16 bytes. A uid kept as text (never a UUID) matches
        only in full."""
        return self._module("memories").ids_by_uid_prefix(self.conn, scope, hex_prefix, limit)

    def fetch(self, memory_id: int) -> Memory:
        """The record of ``memory_id`` as it is now (after a write)."""
        return self._module("memories").fetch(self.conn, memory_id)

    def newest_first(
        self, scope: Scope, filters: Filters, now: datetime, limit: int | None
    ) -> list[Memory]:
        """The memories of ``scope`` that ``filters`` admit, newest first, at most ``limit``."""
        return self._module("memories").newest_first(self.conn, scope, filters, now, limit)

    def in_id_order(self, scope: Scope | None, filters: Filters, now: datetime) -> list[Memory]:
        """The memories of ``scope`` (None: every scope) that ``filters`` admit, oldest id first."""
        return self._module("memories").in_id_order(self.conn, scope, filters, now)

    def count(self, scope: Scope, filters: Filters, now: datetime) -> int:
        """"""
        return self._module("memories").count(self.conn, scope, filters, now)

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
        """The pinned memories (at most ``pinned_limit``, most important first), then (unless
        ``pinned_only``) up to ``limit`` of the most important and of the most recent ones."""
        return self._module("memories").pack_candidates(
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
        """(id, importance, last change, access count) of the pinned memories of ``scope``, most
        important first, at most ``limit``: what pack ranks them by, without reading their text
        (a store may pin hundreds, of which a budget holds a few)."""
        return self._module("memories").pinned_standing(self.conn, scope, filters, now, limit=limit)

    def by_ids(self, ids: Iterable[int]) -> list[Memory]:
        """The records of ``ids`` (found by a scoped read just before), in no particular order."""
        return self._module("memories").by_ids(self.conn, ids)

    def neighbours(
        self,
        scope: Scope,
        filters: Filters,
        now: datetime,
        memory: Memory,
        span: int,
        window: timedelta,
    ) -> tuple[list[Memory], list[Memory]]:
        """Up to ``span`` memories of ``scope`` written just before ``memory`` (nearest first) and
        just after it, in (created_at, id) order, at most ``window`` apart from it. The window
        bounds the index range each side reads."""
        return self._module("memories").neighbours(
            self.conn, scope, filters, now, memory, span, window
        )

    def session_openers(self, ids: Iterable[int]) -> set[int]:
        """Of ``ids``, the memories written first in their origin session (no earlier live memory
        of the same user, project, agent and session); memories outside a session never are.
        One query: each id is an index probe (``idx_memories_scope_created``)."""
        return self._module("memories").session_openers(self.conn, ids)

    def live_by_key(self, scope: Scope, key: str) -> Row | None:
        """The live memory of ``scope`` holding ``key`` (expired or not)."""
        return self._module("memories").live_by_key(self.conn, scope, key)

    def live_by_hash(self, scope: Scope, content_hash: int, now: datetime) -> int | None:
        """The id of the oldest live, unexpired memory of ``scope`` with this content hash."""
        return self._module("memories").live_by_hash(self.conn, scope, content_hash, now)

    def insert(self, values: dict[str, Any]) -> int:
        """Insert a new memory (every column but id and the access counters) and index it;
        its id."""
        return self._module("memories").insert(self.conn, values)

    def touch_updated(self, memory_id: int, now: datetime) -> None:
        """Refresh ``updated_at`` (a write that said the same thing again)."""
        return self._module("memories").touch_updated(self.conn, memory_id, now)

    def replace_version(self, row: Row, new: dict[str, Any], change: str, now: datetime) -> None:
        """Write a new version of ``row`` (history, index and row in one go); ``change`` says
        what ended the old one. A key another live memory of the scope holds: InvalidInputError."""
        return self._module("memories").replace_version(self.conn, row, new, change, now)

    def mark_forgotten(self, ids: Iterable[int], now: datetime) -> None:
        """Soft-delete ``ids`` as forgotten (the caller checked each is visible)."""
        return self._module("memories").mark_forgotten(self.conn, ids, now)

    def undelete(self, row: Row, now: datetime) -> None:
        """Bring a soft-deleted memory back, clearing an expiry that has passed. Its key held by
        another live memory now: InvalidInputError."""
        return self._module("memories").undelete(self.conn, row, now)

    def record_access(self, ids: Iterable[int], now: datetime) -> None:
        """Count one access of each memory (``last_accessed_at``, ``access_count``)."""
        return self._module("memories").record_access(self.conn, ids, now)

    # -- the operations log --------------------------------------------------
    def append(self, at: str, op: str, result_count: int, tokens: int, keep: int) -> None:
        """Add one entry; every hundredth entry also drops those older than the last ``keep``."""
        return self._module("oplog").append(self.conn, at, op, result_count, tokens, keep)

    def totals(self) -> list[tuple[str, int, int, int]]:
        """Per operation, by name: (op, times run, results in total, tokens in total)."""
        return self._module("oplog").totals(self.conn)

    # -- semantic recall's vectors (blocks of int8 vectors per owner: ``semantic.blocks``) ---

    def vector_model(self) -> str | None:
        """The model whose vectors the store holds (None: none yet)."""
        return self._module("vectors").model(self.conn)

    def set_vector_model(self, name: str) -> None:
        """Record ``name`` as the vectors' model; another model's vectors are dropped."""
        return self._module("vectors").set_model(self.conn, name)

    def clear_vectors(self) -> None:
        """Drop every vector."""
        return self._module("vectors").clear(self.conn)

    def vectors_fingerprint(self) -> tuple[int, ...] | None:
        """What changes whenever the vectors do (a cache key); None: no cheap mark, do not cache."""
        return self._module("vectors").fingerprint(self.conn)

    def changed_vector_blocks(self, since: tuple[int, ...]) -> set[int] | None:
        """The blocks changed since the fingerprint ``since``, when they are known (this
        connection's own writes: a cache reads those again, not every block); None: any."""
        return None

    def owner_blocks(self, owners: Sequence[tuple[str, str]]) -> list[Block]:
        """Every block of ``owners`` (user, project): its id and its three blobs."""
        return self._module("vectors").owner_blocks(self.conn, owners)

    def block_of(self, memory_id: int) -> Row | None:
        """The block holding ``memory_id``'s vector."""
        return self._module("vectors").block_of(self.conn, memory_id)

    def open_block(self, user: str, project: str) -> Row | None:
        """A block of this owner with room left."""
        return self._module("vectors").open_block(self.conn, user, project)

    def save_block(
        self,
        block_id: int | None,
        owner: tuple[str, str],
        size: int,
        blobs: tuple[bytes, bytes, bytes],
    ) -> int:
        """Write a block (a new one when ``block_id`` is None); its id."""
        return self._module("vectors").save_block(self.conn, block_id, owner, size, blobs)

    def place_vectors(self, entries: Iterable[tuple[int, int, int]]) -> None:
        """Record where each memory's vector is: (memory id, content hash, block id)."""
        return self._module("vectors").place(self.conn, entries)

    def unplace_vectors(self, ids: Sequence[int]) -> dict[int, list[int]]:
        """Forget where the vectors of ``ids`` are: the ids each block held, by block."""
        return self._module("vectors").unplace(self.conn, ids)

    def vector_block(self, block_id: int) -> Row | None:
        """One block's row."""
        return self._module("vectors").block(self.conn, block_id)

    def visible_rows(
        self, scope: Scope, now: datetime, filters: Filters, ids: Sequence[int]
    ) -> dict[int, Row]:
        """The rows of ``ids`` that ``scope`` and ``filters`` admit now, by id."""
        return self._module("vectors").visible(self.conn, scope, now, filters, ids)

    def unembedded(self, after: int, limit: int, scope: Scope | None = None) -> list[Row]:
        """Up to ``limit`` live memories (ids above ``after``) without a vector of their
        current text."""
        return self._module("vectors").unembedded(self.conn, after, limit, scope)

    def content_hashes(self, ids: Sequence[int]) -> dict[int, int]:
        """The current content hash of each of ``ids``."""
        return self._module("vectors").content_hashes(self.conn, ids)

    def drop_blocks_holding(self, ids: Sequence[int]) -> int:
        """Drop every block holding a vector of ``ids``; how many went."""
        return self._module("vectors").drop_blocks_holding(self.conn, ids)

    def vector_coverage(self, scope: Scope | None, now: datetime) -> tuple[int, int]:
        """(live memories of ``scope`` with a current vector, live memories)."""
        return self._module("vectors").coverage(self.conn, scope, now)

    def vector_bytes(self) -> int:
        """The bytes the vectors take."""
        return self._module("vectors").stored_bytes(self.conn)
