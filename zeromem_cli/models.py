"""The records the library returns, with the field names of the export format.

They behave as dataclasses would (keyword or positional construction, defaults, equality, a
repr listing the fields; ``Scope`` frozen and hashable) but are plain slotted records
(``zeromem_cli.plain``, which states the rule): every command imports this module, and
building these as dataclasses cost ~2 ms of each start. ``MEMORY_FIELDS`` and
``HISTORY_FIELDS`` (the JSON and export field order) are read off the classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zeromem_cli.plain import FrozenRecord, Record, field

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime


class Scope(FrozenRecord):
    """Whose memory this is, and how widely a store reads.

    ``user`` and ``project`` own a memory: they are the isolation boundary, never crossed by a
    read. ``agent`` and ``session`` are where a memory came from (its origin) within its owner:
    by default a store reads every agent's and session's memories of its user and project, so a
    new session recalls the earlier ones. ``isolate`` makes every field exact (a store then
    reads only memories written with exactly its user, agent, session and project);
    ``with_user`` lets a read of a project also take the user's project-less memories.
    """

    user: str | None
    agent: str | None
    session: str | None
    project: str | None
    isolate: bool
    with_user: bool

    def __init__(
        self,
        user: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        project: str | None = None,
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


class Memory(Record):
    """One memory as the library returns it (``score`` is set by search)."""

    id: int
    uid: str
    content: str
    category: str = "general"
    tags: list[str] = field(default_factory=list)
    key: str | None = None
    user: str | None = None
    agent: str | None = None
    session: str | None = None
    project: str | None = None
    importance: int = 5
    pinned: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    updated_at: str = ""
    expires_at: str | None = None
    last_accessed_at: str | None = None
    access_count: int = 0
    deleted_at: str | None = None
    deleted_reason: str | None = None  # forgotten, expired or archived (None while live)
    score: float | None = None

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

    def to_dict(self) -> dict[str, Any]:
        record = {name: getattr(self, name) for name in self._fields}
        record["tags"] = list(self.tags)
        record["meta"] = dict(self.meta)
        return record


class WriteResult(Record):
    """What a write did: ``added``, ``updated`` (key upsert), ``duplicate`` (content existed) or
    ``merged`` (``merge=True`` made it the next version of the most similar memory)."""

    memory: Memory
    action: str
    # Near-duplicates found (id, similarity), most similar first; see zeromem_cli.text.similarity.
    similar: list[tuple[int, float]] = field(default_factory=list)


class Filters(Record):
    """Which memories a read considers, besides the scope (``storage.sql.filter_clause``
    turns it into SQL)."""

    category: str | None = None
    tags: Sequence[str] = ()
    key: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    include_expired: bool = False
    include_deleted: bool = False
    min_score: float | None = None


# Field order of every JSON record (CLI --json, export, pack --format json).
MEMORY_FIELDS = Memory._fields[:-1]  # all but ``score``
# Fields of a history entry in export records (after its memory's id in HistoryEntry).
HISTORY_FIELDS = HistoryEntry._fields[1:]
