"""The records the library returns, with the field names of the export format.

They behave as dataclasses would (keyword or positional construction, defaults, equality, a
repr listing the fields; ``Scope`` frozen and hashable) but are written out as plain classes
(``zeromem_cli.plain``): every command imports this module, and building these four as
dataclasses cost ~2 ms of each start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zeromem_cli.plain import FrozenRecord, Record

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

# A fresh empty list / dict for each record that is given none (a dataclass default_factory).
_FRESH: Any = object()

# Field order of every JSON record (CLI --json, export, pack --format json).
MEMORY_FIELDS = (
    "id",
    "uid",
    "content",
    "category",
    "tags",
    "key",
    "user",
    "agent",
    "session",
    "project",
    "importance",
    "pinned",
    "meta",
    "created_at",
    "updated_at",
    "expires_at",
    "last_accessed_at",
    "access_count",
    "deleted_at",
    "deleted_reason",
)

# Fields of a history entry in export records (after its memory's id in HistoryEntry).
HISTORY_FIELDS = (
    "version",
    "content",
    "category",
    "tags",
    "key",
    "importance",
    "pinned",
    "meta",
    "expires_at",
    "valid_from",
    "valid_to",
    "change",
)


class Scope(FrozenRecord):
    """Whose memory this is, and how widely a store reads.

    ``user`` and ``project`` own a memory: they are the isolation boundary, never crossed by a
    read. ``agent`` and ``session`` are where a memory came from (its origin) within its owner:
    by default a store reads every agent's and session's memories of its user and project, so a
    new session recalls the earlier ones. ``isolate`` makes every field exact (a store then
    reads only memories written with exactly its user, agent, session and project).
    """

    __slots__ = ("user", "agent", "session", "project", "isolate", "with_user")
    user: str | None
    agent: str | None
    session: str | None
    project: str | None
    isolate: bool
    with_user: bool  # a read of a project that also takes the user's project-less memories

    def __init__(
        self,
        user: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        project: str | None = None,
        *,
        isolate: bool = False,
        with_user: bool = False,
    ) -> None:
        # An empty string (e.g. ZEROMEM_USER="") means "not set", like None.
        set_field = object.__setattr__
        set_field(self, "user", None if user == "" else user)
        set_field(self, "agent", None if agent == "" else agent)
        set_field(self, "session", None if session == "" else session)
        set_field(self, "project", None if project == "" else project)
        set_field(self, "isolate", bool(isolate))
        set_field(self, "with_user", bool(with_user) and not isolate)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_scope, self._values())

    def as_columns(self) -> tuple[str, str, str, str]:
        """Stored form (user, agent, session, project): '' for unset, so scope filters are
        plain equality on an index."""
        return (self.user or "", self.agent or "", self.session or "", self.project or "")

    def reads(self, other: Scope) -> bool:
        """Whether this scope's reads include memories written in ``other`` (exactly)."""
        if self.with_user and self.user == other.user and other.project is None:
            return True
        if (self.user, self.project) != (other.user, other.project):
            return False
        return not self.isolate or (self.agent, self.session) == (other.agent, other.session)

    def origin(self) -> Scope:
        """This exact scope, isolated: the memories of one origin (one session's turns)."""
        return Scope(self.user, self.agent, self.session, self.project, isolate=True)


def _scope(
    user: str | None,
    agent: str | None,
    session: str | None,
    project: str | None,
    isolate: bool,
    with_user: bool,
) -> Scope:
    """Unpickle a Scope (its ``isolate`` and ``with_user`` are keyword-only)."""
    return Scope(user, agent, session, project, isolate=isolate, with_user=with_user)


class Memory(Record):
    """One memory as the library returns it (``score`` is set by search)."""

    __slots__ = (*MEMORY_FIELDS, "score")
    id: int
    uid: str
    content: str
    category: str
    tags: list[str]
    key: str | None
    user: str | None
    agent: str | None
    session: str | None
    project: str | None
    importance: int
    pinned: bool
    meta: dict[str, Any]
    created_at: str
    updated_at: str
    expires_at: str | None
    last_accessed_at: str | None
    access_count: int
    deleted_at: str | None
    deleted_reason: str | None  # forgotten, expired or archived (None while live)
    score: float | None

    def __init__(
        self,
        id: int,
        uid: str,
        content: str,
        category: str = "general",
        tags: list[str] = _FRESH,
        key: str | None = None,
        user: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        project: str | None = None,
        importance: int = 5,
        pinned: bool = False,
        meta: dict[str, Any] = _FRESH,
        created_at: str = "",
        updated_at: str = "",
        expires_at: str | None = None,
        last_accessed_at: str | None = None,
        access_count: int = 0,
        deleted_at: str | None = None,
        deleted_reason: str | None = None,
        score: float | None = None,
    ) -> None:
        self.id = id
        self.uid = uid
        self.content = content
        self.category = category
        self.tags = [] if tags is _FRESH else tags
        self.key = key
        self.user = user
        self.agent = agent
        self.session = session
        self.project = project
        self.importance = importance
        self.pinned = pinned
        self.meta = {} if meta is _FRESH else meta
        self.created_at = created_at
        self.updated_at = updated_at
        self.expires_at = expires_at
        self.last_accessed_at = last_accessed_at
        self.access_count = access_count
        self.deleted_at = deleted_at
        self.deleted_reason = deleted_reason
        self.score = score

    @property
    def scope(self) -> Scope:
        """The memory's owner and origin, exact (``Scope.origin``)."""
        return Scope(self.user, self.agent, self.session, self.project, isolate=True)

    def to_dict(self) -> dict[str, Any]:
        """The JSON record; ``score`` only when the memory came from a search."""
        record = {name: getattr(self, name) for name in MEMORY_FIELDS}
        record["tags"] = list(self.tags)
        record["meta"] = dict(self.meta)
        if self.score is not None:
            record["score"] = round(self.score, 6)
        return record


class HistoryEntry(Record):
    """One version of a memory and the interval during which it was the current one."""

    __slots__ = ("memory_id", *HISTORY_FIELDS)
    memory_id: int
    version: int
    content: str
    category: str
    tags: list[str]
    key: str | None
    importance: int
    pinned: bool
    meta: dict[str, Any]
    expires_at: str | None
    valid_from: str
    valid_to: str | None  # None: the current version
    change: str  # what ended this version: update, forget, restore... ("current" for the live one)

    def __init__(
        self,
        memory_id: int,
        version: int,
        content: str,
        category: str,
        tags: list[str],
        key: str | None,
        importance: int,
        pinned: bool,
        meta: dict[str, Any],
        expires_at: str | None,
        valid_from: str,
        valid_to: str | None,
        change: str,
    ) -> None:
        self.memory_id = memory_id
        self.version = version
        self.content = content
        self.category = category
        self.tags = tags
        self.key = key
        self.importance = importance
        self.pinned = pinned
        self.meta = meta
        self.expires_at = expires_at
        self.valid_from = valid_from
        self.valid_to = valid_to
        self.change = change

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "version": self.version,
            "content": self.content,
            "category": self.category,
            "tags": list(self.tags),
            "key": self.key,
            "importance": self.importance,
            "pinned": self.pinned,
            "meta": dict(self.meta),
            "expires_at": self.expires_at,
            "valid_from": self.valid_from,
            "valid_to": self.valid_to,
            "change": self.change,
        }


class WriteResult(Record):
    """What a write did: ``added``, ``updated`` (key upsert), ``duplicate`` (content existed) or
    ``merged`` (``merge=True`` made it the next version of the most similar memory)."""

    __slots__ = ("memory", "action", "similar")
    memory: Memory
    action: str
    # Near-duplicates found (id, similarity), most similar first; see zeromem_cli.text.similarity.
    similar: list[tuple[int, float]]

    def __init__(
        self, memory: Memory, action: str, similar: list[tuple[int, float]] = _FRESH
    ) -> None:
        self.memory = memory
        self.action = action
        self.similar = [] if similar is _FRESH else similar


class Filters(Record):
    """Which memories a read considers, besides the scope (``storage.sql.filter_clause``
    turns it into SQL)."""

    __slots__ = (
        "category",
        "tags",
        "key",
        "since",
        "until",
        "include_expired",
        "include_deleted",
        "min_score",
    )
    category: str | None
    tags: Sequence[str]
    key: str | None
    since: datetime | None
    until: datetime | None
    include_expired: bool
    include_deleted: bool
    min_score: float | None

    def __init__(
        self,
        category: str | None = None,
        tags: Sequence[str] = (),
        key: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        include_expired: bool = False,
        include_deleted: bool = False,
        min_score: float | None = None,
    ) -> None:
        self.category = category
        self.tags = tags
        self.key = key
        self.since = since
        self.until = until
        self.include_expired = include_expired
        self.include_deleted = include_deleted
        self.min_score = min_score
