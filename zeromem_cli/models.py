"""The records the library returns: plain dataclasses with the field names of the export format."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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


@dataclass(frozen=True)
class Scope:
    """Whose memory this is. Scopes are exact: a memory is visible only from its own scope."""

    user: str | None = None
    agent: str | None = None
    session: str | None = None

    def __post_init__(self) -> None:
        # An empty string (e.g. ZEROMEM_USER="") means "not set", like None.
        for name in ("user", "agent", "session"):
            if getattr(self, name) == "":
                object.__setattr__(self, name, None)

    def as_columns(self) -> tuple[str, str, str]:
        """Stored form: '' for unset, so scope filters are plain equality on an index."""
        return (self.user or "", self.agent or "", self.session or "")


@dataclass
class Memory:
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
        return Scope(self.user, self.agent, self.session)

    def to_dict(self) -> dict[str, Any]:
        """The JSON record; ``score`` only when the memory came from a search."""
        record = {name: getattr(self, name) for name in MEMORY_FIELDS}
        record["tags"] = list(self.tags)
        record["meta"] = dict(self.meta)
        if self.score is not None:
            record["score"] = round(self.score, 6)
        return record


@dataclass
class HistoryEntry:
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


@dataclass
class WriteResult:
    """What a write did: ``added``, ``updated`` (key upsert), ``duplicate`` (content existed) or
    ``merged`` (``merge=True`` made it the next version of the most similar memory)."""

    memory: Memory
    action: str
    # Near-duplicates found (id, similarity), most similar first; see zeromem_cli.similarity.
    similar: list[tuple[int, float]] = field(default_factory=list)
