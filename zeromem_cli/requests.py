"""Request records: what a caller asks of ``MemoryStore`` when the ask has many parts.

Each face (the CLI, the MCP server, the hooks, the ``llm`` plugin) builds one record from its
own arguments, once, and hands it to the store, which hands the same record down; no layer
copies a dozen keywords into the next (httpie's options ``NamedTuple`` is the model).
``StoreSettings.from_config`` is the one place a face turns configuration into store settings.

Immutable values, so ``FrozenRecord``s (``plain.py`` says why not NamedTuples or dataclasses:
they are built on every start of every command): ``_replace`` gives a changed copy, and
``MemoryStore.pack(query, **changes)`` uses it for keyword calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from zeromem_cli.config import SETTINGS
from zeromem_cli.models import Filters
from zeromem_cli.plain import FrozenRecord

if TYPE_CHECKING:
    from zeromem_cli.config import Config
    from zeromem_cli.pack.format import ContentOf
    from zeromem_cli.pack.select import Weights
    from zeromem_cli.ranking.tuning import Tuning

DEFAULT_MAX_CONTENT_BYTES = 64 * 1024

# "Not given" for parameters where None means something (no key, no expiry, unscoped).
UNSET: Any = object()


# Search hits a pack considers (``pack(pool=...)``); here rather than in ``pack``, so that
# building a request (every search does) does not load the pack package.
DEFAULT_POOL = 200


class StoreSettings(FrozenRecord):
    """How a store treats what it is given (the configurable parts of opening one)."""

    max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES
    max_tags: int = SETTINGS["add.max_tags"].default
    max_tag_chars: int = SETTINGS["add.max_tag_chars"].default
    # Told before a long one-time job on opening (a schema upgrade, an index rebuild).
    notice: Callable[[str], None] | None = None
    # Record the operations `stats` reads (search, pack, add, forget, purge, export, import,
    # ingest) in the store's operations log. Off for the library; each face sets it from
    # ``log.enabled``.
    log: bool = False
    # What a SQLite file that does not exist yet means: "create" it (a write), read it as an
    # "empty" store (a read of the default store) or an "error" naming it (a read of a store
    # the user named). See ``MemoryStore``.
    if_missing: Literal["create", "empty", "error"] = "create"
    # Semantic recall: "auto" (None: ``ZEROMEM_SEARCH_SEMANTIC``, else on when installed),
    # True / "on", False / "off"; and another model than the default (``semantic.embedder``).
    semantic: bool | str | None = None
    semantic_model: str | None = None

    @classmethod
    def from_config(
        cls, config: Config, *, notice: Callable[[str], None] | None = None, log: bool = True
    ) -> StoreSettings:
        """The settings a face opens its store with; ``log`` also needs ``log.enabled``."""
        return cls(
            max_content_bytes=config.get("add.max_content_bytes"),
            max_tags=config.get("add.max_tags"),
            max_tag_chars=config.get("add.max_tag_chars"),
            notice=notice,
            log=log and bool(config.get("log.enabled")),
            semantic=config.get("search.semantic"),
            semantic_model=config.get("search.semantic_model") or None,
        )


class PackRequest(FrozenRecord):
    """What ``MemoryStore.pack`` should fit into a budget, and how to print it (see
    ``pack.select.pack`` for each part)."""

    budget: int = SETTINGS["pack.budget"].default
    tokenizer: str = SETTINGS["pack.tokenizer"].default
    format: str = SETTINGS["pack.format"].default
    header: str | None = None
    weights: Weights | None = None
    filters: Filters | None = None
    touch: bool = True  # record an access of every packed memory (not in a read-only store)
    pool: int = DEFAULT_POOL
    reveal: bool = False
    content_of: ContentOf | None = None
    inherit: bool = False
    pinned_share: float = SETTINGS["pack.pinned_share"].default
    exclude: Iterable[int] = ()
    as_of: datetime | None = None
    ranking: Tuning | None = None  # the Tuning of search and pack (default DEFAULT_TUNING)
    # Semantic recall for this call (None: the store's setting, ``StoreSettings.semantic``).
    semantic: bool | None = None


class WriteRequest(FrozenRecord):
    """Everything about a write but its text (see ``MemoryStore.write``). ``UNSET`` scope
    fields take the store's; None fields keep an updated memory's value."""

    category: str | None = None
    tags: Iterable[str] | None = None
    key: str | None = None
    importance: int | None = None
    pinned: bool | None = None
    meta: dict[str, Any] | None = None
    ttl: str | None = None
    expires_at: str | datetime | None = None
    user: str | None = UNSET
    agent: str | None = UNSET
    session: str | None = UNSET
    project: str | None = UNSET
    allow_duplicate: bool = False
    merge: bool = False
    default_category: str | None = None
    created_at: str | datetime | None = None  # import, benchmarks: date a new memory back
    allow_secret: bool = False
    # False: do not look for near-duplicates to list in ``similar`` (a search per write: most
    # of a bulk ingest's time); ``merge`` looks for them all the same.
    near: bool = True
    # False: store no vector now, even with semantic recall on; ``index`` (or ``gc``) embeds
    # the memory later, as it does an imported one. For a bulk writer (``ingest``), whose
    # speed embedding one memory at a time would set.
    embed: bool = True


# Progress of a long import: (done, total).
Progress = Callable[[int, int], None]


class ImportRequest(FrozenRecord):
    """How ``MemoryStore.import_records`` treats the records it is given."""

    on_conflict: str = "skip"  # skip, update or duplicate
    skip_invalid: bool = False
    all_scopes: bool = False  # each record into its own scope
    dry_run: bool = False
    allow_secret: bool = False
    progress: Progress | None = None
    # A record naming a project keeps it when the store has none (a memory file in a
    # repository belongs to that repository's project).
    own_projects: bool = False


def changed(request: Any, changes: dict[str, Any]) -> Any:
    """``request`` with ``changes`` (keyword arguments of a store call) applied; an unknown
    name is a ``TypeError`` naming it, as it is for any function."""
    if not changes:
        return request
    unknown = sorted(set(changes) - set(request._fields))
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")
    return request._replace(**changes)


__all__ = [
    "DEFAULT_MAX_CONTENT_BYTES",
    "UNSET",
    "ImportRequest",
    "PackRequest",
    "Progress",
    "StoreSettings",
    "WriteRequest",
    "changed",
]
