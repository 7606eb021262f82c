"""What a database holds and what packing saves: the numbers behind ``zeromem stats``.

Counts come from one pass over ``memories`` (``Backend.counts`` and its neighbours); stored
tokens are estimated over the live memories' content; the average ``pack`` output comes from
the operations log (``oplog``), so the report can say how many tokens packing prints compared
with pasting every live memory. Called through ``MemoryStore.stats``, which owns the backend
and the clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zeromem_cli.pack.tokens import count_tokens

if TYPE_CHECKING:
    from zeromem_cli.models import Scope
    from zeromem_cli.oplog import OperationSummary
    from zeromem_cli.storage.base import Backend


@dataclass
class Stats:
    live: int = 0
    expired: int = 0
    trash: int = 0
    pinned: int = 0
    with_keys: int = 0
    by_category: dict[str, int] = field(default_factory=dict)
    by_scope: list[dict[str, Any]] = field(default_factory=list)
    database_bytes: int = 0
    stored_tokens: int = 0
    pack_runs: int = 0
    pack_average_tokens: float | None = None
    operations: dict[str, int] = field(default_factory=dict)
    all_scopes: bool = False
    # Semantic recall: live memories with a vector of their current text, the model, bytes.
    embedded: int = 0
    vector_model: str | None = None
    vector_bytes: int = 0

    @property
    def pack_saving(self) -> float | None:
        """Share of stored tokens a pack does not print (0.9 = 90% fewer tokens)."""
        if self.pack_average_tokens is None or not self.stored_tokens:
            return None
        return max(0.0, 1.0 - self.pack_average_tokens / self.stored_tokens)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": "all" if self.all_scopes else "current",
            "memories": {
                "live": self.live,
                "expired": self.expired,
                "trash": self.trash,
                "pinned": self.pinned,
                "with_keys": self.with_keys,
            },
            "by_category": self.by_category,
            "by_scope": self.by_scope,
            "database_bytes": self.database_bytes,
            "tokens": {
                "stored": self.stored_tokens,
                "pack_runs": self.pack_runs,
                "pack_average": (
                    None if self.pack_average_tokens is None else round(self.pack_average_tokens, 1)
                ),
                "pack_saving": None if self.pack_saving is None else round(self.pack_saving, 4),
            },
            "operations": self.operations,
            "vectors": {
                "embedded": self.embedded,
                "coverage": round(self.embedded / self.live, 4) if self.live else None,
                "model": self.vector_model,
                "bytes": self.vector_bytes,
            },
        }


def database_bytes(path: Any) -> int:
    """The database file plus its write-ahead log."""
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += (path.parent / (path.name + suffix)).stat().st_size
        except OSError:
            pass
    return total


def collect(backend: Backend, scope: Scope | None, now: datetime, path: Path | str) -> Stats:
    """Counts for ``scope``, or for the whole database when it is None."""
    stats = Stats(all_scopes=scope is None)
    stats.live, stats.expired, stats.trash, stats.pinned, stats.with_keys = backend.counts(
        scope, now
    )
    stats.by_category = backend.live_by_category(scope, now)
    stats.by_scope = [
        {
            "user": user or None,
            "agent": agent or None,
            "session": session or None,
            "project": project or None,
            "live": n,
        }
        for user, agent, session, project, n in backend.live_by_scope(scope, now)
    ]
    stats.stored_tokens = sum(count_tokens(text) for text in backend.live_contents(scope, now))
    stats.embedded = backend.vector_coverage(scope, now)[0]
    stats.vector_model = backend.vector_model()
    stats.vector_bytes = backend.vector_bytes()
    # A file store: the file and its WAL; a server store: what the server holds for it.
    server = backend.server_bytes()
    stats.database_bytes = database_bytes(path) if server is None else server
    return stats


def with_operations(stats: Stats, operations: dict[str, OperationSummary]) -> Stats:
    """``stats`` with what the operations log says: runs per operation, pack's average."""
    stats.operations = {op: summary.count for op, summary in operations.items()}
    pack = operations.get("pack")
    if pack is not None and pack.count:
        stats.pack_runs = pack.count
        stats.pack_average_tokens = pack.average_tokens
    return stats
