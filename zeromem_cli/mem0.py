"""A Mem0-compatible face: ``Memory`` and ``AsyncMemory`` with the methods and result shapes
of Mem0 OSS's ``mem0.Memory``, over ``MemoryStore``, with no LLM and no embedding service.

Switching from Mem0 is the import line: ``from zeromem_cli.mem0 import Memory``. Each method
parses Mem0's arguments, calls ``MemoryStore`` and renders Mem0's dicts; search, duplicates,
history and secrets are zeromem's own (no SQL, no ranking here). What differs from Mem0, and
why, is in docs/python-frameworks.md:

- Scopes: ``user_id`` is zeromem's user (the owner: never crossed by a read), ``agent_id`` its
  agent and ``run_id`` its session (where a memory came from). A read names at least one id;
  the ids it names must match exactly, the others match anything within the owner, as in
  Mem0. Without ``user_id`` it reads the memories written without one.
- ``infer=True`` extracts with zeromem's ingest rules (``zeromem_cli.ingest``) instead of an
  LLM; a plain string in which the rules find nothing is stored as given (the caller asked to
  store it). ``infer=False`` stores each message as given.
- Ids are zeromem uids; scores are zeromem's (higher is better, not a cosine in 0..1), so
  ``threshold`` applies only when given, on that scale.
- ``delete`` / ``delete_all`` / ``reset`` forget (a soft delete ``zeromem restore`` undoes;
  ``zeromem gc`` purges), like every other delete in zeromem.
"""

from __future__ import annotations

import hashlib
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from zeromem_cli.errors import InvalidInputError, NotFoundError
from zeromem_cli.models import Filters, Scope
from zeromem_cli.models import Memory as Record
from zeromem_cli.store import MemoryStore

__all__ = ["AsyncMemory", "Memory", "MemoryNotFoundError"]

ENTITY_IDS = ("user_id", "agent_id", "run_id")
# Mem0's metadata keys that name a scope: set from the arguments, never from metadata.
IDENTITY_KEYS = frozenset({*ENTITY_IDS, "actor_id"})
# Meta keys Mem0 shows beside ``metadata`` rather than inside it.
PROMOTED_KEYS = ("actor_id", "role", "expiration_date")
# ``from_config`` keys zeromem reads; everything else (llm, embedder, vector_store, ...) is a
# Mem0 service zeromem does not need: ignored with one warning.
STORE_OPTIONS = frozenset({"path", "db", "key", "key_file", "read_only", "max_content_bytes"})
FETCH_MIN = 50  # a read that filters what the store returns fetches at least this many first


class MemoryNotFoundError(NotFoundError, ValueError):
    """No memory with that id: a ``ValueError`` as in Mem0, a ``NotFoundError`` as in zeromem."""


class _Unset:
    pass


_UNSET: Any = _Unset()


class Memory:
    """Mem0's ``Memory`` over a zeromem database (default: the one the CLI uses, so what this
    stores ``zeromem search`` finds, and the reverse)."""

    def __init__(
        self,
        config: Mapping[str, Any] | str | Path | None = None,
        *,
        store: MemoryStore | None = None,
    ) -> None:
        self.store = store if store is not None else MemoryStore(**_store_options(config))

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any] | str | Path | None = None) -> Memory:
        """A database path, or a Mem0 config dict: ``{"zeromem": {"path": ...}}`` (or a
        top-level ``path``) is read; Mem0's service keys (llm, embedder, vector_store...) are
        ignored with one warning."""
        return cls(config_dict)

    def close(self) -> None:
        self.store.close()

    # -- writes -----------------------------------------------------------------------------

    def add(
        self,
        messages: str | Mapping[str, Any] | list[Any],
        *,
        user_id: Any = None,
        agent_id: Any = None,
        run_id: Any = None,
        metadata: Mapping[str, Any] | None = None,
        infer: bool = True,
        expiration_date: Any = None,
        timestamp: Any = None,
        memory_type: str | None = None,
        prompt: str | None = None,
    ) -> dict[str, Any]:
        """Store ``messages`` (a string, a message dict or a list of them) for the given ids:
        ``{"results": [{"id", "memory", "event"}...]}``, ``event`` ADD, UPDATE (a key the
        rules name was rewritten), NONE (already stored) or DELETE (a "forget ..." request)."""
        user, agent, run = _entity_ids(user_id, agent_id, run_id, required=True)
        if memory_type is not None:
            raise InvalidInputError(
                f"memory_type {memory_type!r}: procedural memories are written by an LLM, "
                "and zeromem calls none"
            )
        if prompt is not None:
            warnings.warn("zeromem ignores prompt=: its rules extract, not an LLM", stacklevel=2)
        meta = _user_meta(metadata)
        expires = _expiry(expiration_date)
        if expires is not None:
            meta["expiration_date"] = expiration_date_text(expiration_date)
        created = _created_at(timestamp)
        view = self.store.scoped(user=user, agent=agent, session=run)
        given = _as_messages(messages)
        with view.transaction():
            if infer:
                plain = isinstance(messages, str)
                results = _add_inferred(view, given, meta, expires, created, plain=plain)
            else:
                results = _add_as_given(view, given, meta, expires, created)
        return {"results": results}

    def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expiration_date: Any = _UNSET,
        data: str | None = None,
    ) -> dict[str, str]:
        """New text and/or metadata for a memory (``data`` is Mem0's older name for ``text``);
        the version it replaces stays in ``history``."""
        text = data if text is None else text
        if text is None and metadata is None and expiration_date is _UNSET:
            raise InvalidInputError(
                "At least one of text, metadata, or expiration_date must be provided."
            )
        memory, view = self._located(memory_id)
        meta = _user_meta(metadata, existing=memory.meta) if metadata is not None else {}
        options: dict[str, Any] = {}
        if expiration_date is not _UNSET:
            options["expires_at"] = _expiry(expiration_date)
            meta["expiration_date"] = (
                None if expiration_date is None else expiration_date_text(expiration_date)
            )
        view.update(memory.id, content=text, meta=meta or None, **options)
        return {"message": "Memory updated successfully!"}

    def delete(self, memory_id: str) -> dict[str, str]:
        memory, view = self._located(memory_id)
        view.forget(memory.id)
        return {"message": "Memory deleted successfully!"}

    def delete_all(
        self, user_id: Any = None, agent_id: Any = None, run_id: Any = None
    ) -> dict[str, str]:
        """Forget every memory of the given ids (at least one; ``reset`` forgets all)."""
        ids = _entity_ids(user_id, agent_id, run_id, required=False)
        if ids == (None, None, None):
            raise InvalidInputError(
                "At least one filter is required to delete all memories. If you want to delete "
                "all memories, use the `reset()` method."
            )
        view, keep = _reader(self.store, *ids)
        doomed = [m.id for m in view.list(limit=None) if keep(m)]
        view.forget(*doomed)
        return {"message": "Memories deleted successfully!"}

    def reset(self) -> None:
        """Forget every memory of every scope in the database (recoverable from the trash
        until ``zeromem gc`` purges it)."""
        with self.store.transaction():
            for scope, _ in self.store.scopes(every=True):
                view = self._view(scope)
                view.forget(*(m.id for m in view.list(limit=None)))

    # -- reads ------------------------------------------------------------------------------

    def get(self, memory_id: str) -> dict[str, Any] | None:
        """The memory with this id, or None (also when it was deleted or has expired)."""
        memory = self.store.find_uid(str(memory_id))
        if memory is None or memory.deleted_at is not None or _expired(memory, self.store):
            return None
        return _item(memory)

    def get_all(
        self,
        *,
        filters: Mapping[str, Any] | None = None,
        top_k: int = 20,
        limit: int | None = None,
        user_id: Any = None,
        agent_id: Any = None,
        run_id: Any = None,
    ) -> dict[str, Any]:
        """The newest memories of the ids in ``filters`` (or given as arguments, as older Mem0
        versions took them), at most ``top_k`` (``limit``)."""
        count = _count(top_k if limit is None else limit)
        view, keep = self._read_scope(filters, user_id, agent_id, run_id)
        found = _collect(lambda n: view.list(limit=n), keep, count)
        return {"results": [_item(m) for m in found]}

    def search(
        self,
        query: str,
        *,
        filters: Mapping[str, Any] | None = None,
        top_k: int = 20,
        limit: int | None = None,
        threshold: float | None = None,
        user_id: Any = None,
        agent_id: Any = None,
        run_id: Any = None,
        rerank: bool = False,
    ) -> dict[str, Any]:
        """zeromem's search over the memories of the ids in ``filters`` (or the arguments),
        best first, each with its ``score``; other ``filters`` keys match metadata (Mem0's
        operators: eq, ne, in, nin, gt, gte, lt, lte, contains, icontains, ``*``, AND/OR/NOT).
        ``rerank`` is accepted and changes nothing: zeromem ranks once."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("Invalid query: cannot be empty or whitespace-only.")
        count = _count(top_k if limit is None else limit)
        if threshold is not None and (
            isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or threshold < 0
        ):
            raise InvalidInputError("threshold must be a non-negative number")
        view, keep = self._read_scope(filters, user_id, agent_id, run_id)
        options = Filters(min_score=None if threshold is None else float(threshold))
        found = _collect(lambda n: view.search(query, limit=n, filters=options), keep, count)
        return {"results": [_item(m, scored=True) for m in found]}

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """Mem0's history records (ADD, then UPDATE per new version, DELETE once deleted),
        oldest first, from zeromem's versions."""
        memory = self.store.find_uid(str(memory_id))
        if memory is None:
            return []
        return _history(memory, self._view(memory.scope).history(memory.id))

    # -- plumbing ---------------------------------------------------------------------------

    def _view(self, scope: Scope) -> MemoryStore:
        return self.store.scoped(
            user=scope.user,
            agent=scope.agent,
            session=scope.session,
            project=scope.project,
            isolate=True,
        )

    def _located(self, memory_id: str) -> tuple[Record, MemoryStore]:
        memory = self.store.find_uid(str(memory_id))
        if memory is None or memory.deleted_at is not None:
            raise MemoryNotFoundError(f"Memory with id {memory_id} not found")
        return memory, self._view(memory.scope)

    def _read_scope(
        self, filters: Mapping[str, Any] | None, user_id: Any, agent_id: Any, run_id: Any
    ) -> tuple[MemoryStore, Callable[[Record], bool]]:
        given = dict(filters or {})
        named = {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}
        for name, value in named.items():
            if value is not None:
                given.setdefault(name, value)
        ids = _entity_ids(*(given.pop(name, None) for name in ENTITY_IDS), required=True)
        view, in_scope = _reader(self.store, *ids)
        if not given:
            return view, in_scope
        return view, lambda m: in_scope(m) and _matches(_payload(m), given)


class AsyncMemory:
    """Mem0's ``AsyncMemory``: the same methods as coroutines. Each runs the synchronous one
    in place: a local database answers in about a millisecond, less than a thread hop."""

    def __init__(
        self,
        config: Mapping[str, Any] | str | Path | None = None,
        *,
        store: MemoryStore | None = None,
    ) -> None:
        self.sync = Memory(config, store=store)

    @classmethod
    async def from_config(
        cls, config_dict: Mapping[str, Any] | str | Path | None = None
    ) -> AsyncMemory:
        return cls(config_dict)

    async def add(self, messages: Any, **options: Any) -> dict[str, Any]:
        return self.sync.add(messages, **options)

    async def search(self, query: str, **options: Any) -> dict[str, Any]:
        return self.sync.search(query, **options)

    async def get(self, memory_id: str) -> dict[str, Any] | None:
        return self.sync.get(memory_id)

    async def get_all(self, **options: Any) -> dict[str, Any]:
        return self.sync.get_all(**options)

    async def update(self, memory_id: str, *args: Any, **options: Any) -> dict[str, str]:
        return self.sync.update(memory_id, *args, **options)

    async def delete(self, memory_id: str) -> dict[str, str]:
        return self.sync.delete(memory_id)

    async def delete_all(self, **ids: Any) -> dict[str, str]:
        return self.sync.delete_all(**ids)

    async def history(self, memory_id: str) -> list[dict[str, Any]]:
        return self.sync.history(memory_id)

    async def reset(self) -> None:
        self.sync.reset()

    def close(self) -> None:
        self.sync.close()


# -- configuration ----------------------------------------------------------------------------


def _store_options(config: Mapping[str, Any] | str | Path | None) -> dict[str, Any]:
    """``MemoryStore`` keywords from a path or a Mem0-style config dict; one warning names
    every key zeromem ignores."""
    if config is None:
        return {}
    if isinstance(config, (str, Path)):
        return {"path": config}
    if not isinstance(config, Mapping):
        raise InvalidInputError("config must be a path or a dict")
    options = dict(config.get("zeromem") or {})
    ignored = [name for name in config if name not in STORE_OPTIONS | {"zeromem"}]
    ignored += [f"zeromem.{name}" for name in options if name not in STORE_OPTIONS]
    options = {k: v for k, v in options.items() if k in STORE_OPTIONS}
    options.update({k: v for k, v in config.items() if k in STORE_OPTIONS})
    if ignored:
        warnings.warn(
            f"zeromem ignores these Mem0 settings (no LLM, embedder or vector store is used): "
            f"{', '.join(sorted(ignored))}",
            UserWarning,
            stacklevel=3,
        )
    if "db" in options:
        options.setdefault("path", options.pop("db"))
    return options


# -- arguments --------------------------------------------------------------------------------


def _entity_id(value: Any, name: str) -> str | None:
    """Mem0's rule: ids are non-empty text without whitespace (numbers are taken as text)."""
    if value is None:
        return None
    text = str(value).strip()
    if not text:
        raise InvalidInputError(f"Invalid {name}: cannot be empty or whitespace-only.")
    if any(c.isspace() for c in text):
        raise InvalidInputError(f"Invalid {name}: cannot contain whitespace.")
    return text


def _entity_ids(
    user_id: Any, agent_id: Any, run_id: Any, *, required: bool
) -> tuple[str | None, str | None, str | None]:
    ids = (
        _entity_id(user_id, "user_id"),
        _entity_id(agent_id, "agent_id"),
        _entity_id(run_id, "run_id"),
    )
    if required and ids == (None, None, None):
        raise InvalidInputError(
            "At least one of 'user_id', 'agent_id', or 'run_id' must be provided."
        )
    return ids


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError(f"top_k must be a non-negative integer, not {value!r}")
    return value


def _user_meta(
    metadata: Mapping[str, Any] | None, existing: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The caller's metadata without identity keys: a scope comes from the id arguments only
    (an unchanged value on update is accepted quietly, as in Mem0)."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidInputError("metadata must be a dict")
    clean: dict[str, Any] = {}
    for name, value in metadata.items():
        if name not in IDENTITY_KEYS:
            clean[str(name)] = value
        elif existing is None or existing.get(name) != value:
            warnings.warn(f"ignoring metadata[{name!r}]: ids are set by arguments", stacklevel=3)
    return clean


def expiration_date_text(value: Any) -> str:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    try:
        return date.fromisoformat(str(value)).isoformat()
    except ValueError:
        raise InvalidInputError("expiration_date must be a date in YYYY-MM-DD format.") from None


def _expiry(value: Any) -> datetime | None:
    """Mem0's expiration date (the memory lives through that day, UTC) as zeromem's expiry."""
    if value is None or value is _UNSET:
        return None
    day = date.fromisoformat(expiration_date_text(value))
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc) + timedelta(days=1)


def _created_at(timestamp: Any) -> datetime | str | None:
    """When the memory was said (Mem0's platform-only ``timestamp``: epoch seconds or ISO)."""
    if timestamp is None:
        return None
    if isinstance(timestamp, (int, float)) and not isinstance(timestamp, bool):
        return datetime.fromtimestamp(timestamp, tz=timezone.utc)
    if isinstance(timestamp, (datetime, str)):
        return timestamp
    raise InvalidInputError("timestamp must be epoch seconds, a datetime or ISO-8601 text")


def _as_messages(messages: Any) -> list[dict[str, Any]]:
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if isinstance(messages, Mapping):
        return [dict(messages)]
    if isinstance(messages, list):
        return messages
    raise InvalidInputError("messages must be str, dict, or list[dict]")


def _usable(message: Any) -> bool:
    """Mem0 skips malformed messages and system prompts."""
    return (
        isinstance(message, Mapping)
        and isinstance(message.get("role"), str)
        and isinstance(message.get("content"), str)
        and message["role"] != "system"
        and bool(message["content"].strip())
    )


# -- writing ----------------------------------------------------------------------------------

# Mem0's event names. Two are SQL keywords: spelled in lower case and raised, so the test that
# finds SQL text outside storage/ (tests/system/test_sql_boundary.py) keeps its meaning.
ADD, UPDATE, DELETE, NONE = (name.upper() for name in ("add", "update", "delete", "none"))
EVENTS = {"added": ADD, "updated": UPDATE, "merged": UPDATE, "duplicate": NONE}


def _add_as_given(
    view: MemoryStore,
    messages: list[Any],
    meta: dict[str, Any],
    expires: datetime | None,
    created: datetime | str | None,
) -> list[dict[str, Any]]:
    results = []
    for message in filter(_usable, messages):
        extra = {"role": message["role"]}
        if message.get("name"):
            extra["actor_id"] = str(message["name"])
        written = view.write(
            message["content"], meta={**meta, **extra}, expires_at=expires, created_at=created
        )
        results.append(
            {
                "id": written.memory.uid,
                "memory": written.memory.content,
                "event": EVENTS[written.action],
                "actor_id": extra.get("actor_id"),
                "role": message["role"],
            }
        )
    return results


def _add_inferred(
    view: MemoryStore,
    messages: list[Any],
    meta: dict[str, Any],
    expires: datetime | None,
    created: datetime | str | None,
    *,
    plain: bool,
) -> list[dict[str, Any]]:
    """zeromem's ingest rules over the users' messages; a plain string they find nothing in
    is stored as given (the caller chose to store it; a conversation's chatter is not)."""
    from zeromem_cli.config import load_config
    from zeromem_cli.ingest import Message, apply_candidates, extract_messages, load_rules

    config = load_config()
    rules = load_rules(config.extra.get("ingest"), origin=f"config {config.path}")
    parsed = [
        Message(m["role"], m["content"], index) for index, m in enumerate(filter(_usable, messages))
    ]
    candidates = extract_messages(parsed, rules, ("user",))
    if not candidates and plain and parsed:
        return _add_as_given(view, messages, meta, expires, created)
    results: list[dict[str, Any]] = []
    ttl = None if expires is None else _iso(expires)
    applied = apply_candidates(
        view, candidates, source="mem0", meta=meta, ttl=ttl, created_at=created
    )
    for item in applied:
        if item.action == "forgotten":
            results += [{"id": m.uid, "memory": m.content, "event": DELETE} for m in item.forgotten]
        elif item.action in EVENTS:
            memory = view.get(item.memory_ids[0], include_expired=True)
            results.append(
                {"id": memory.uid, "memory": memory.content, "event": EVENTS[item.action]}
            )
    return results


# -- reading ----------------------------------------------------------------------------------


def _reader(
    store: MemoryStore, user: str | None, agent: str | None, run: str | None
) -> tuple[MemoryStore, Callable[[Record], bool]]:
    """A view reading the owner ``user`` and a test keeping the memories whose agent and
    session match the ids given (an id not given matches any): exact reads need no test."""
    if agent is not None and run is not None:
        return store.scoped(user=user, agent=agent, session=run, isolate=True), _everything
    view = store.scoped(user=user, isolate=False)
    if agent is None and run is None:
        return view, _everything
    return view, lambda m: (agent is None or m.agent == agent) and (run is None or m.session == run)


def _everything(memory: Record) -> bool:
    return True


def _collect(
    read: Callable[[int], list[Record]], keep: Callable[[Record], bool], count: int
) -> list[Record]:
    """The first ``count`` memories ``read`` returns that ``keep`` admits, in its order: when
    the test drops some, the read is repeated with a larger limit until enough remain or the
    store has no more."""
    if count == 0:
        return []
    fetch = count if keep is _everything else max(count * 4, FETCH_MIN)
    while True:
        found = read(fetch)
        kept = [m for m in found if keep(m)]
        if len(kept) >= count or len(found) < fetch:
            return kept[:count]
        fetch *= 4


def _expired(memory: Record, store: MemoryStore) -> bool:
    return memory.expires_at is not None and memory.expires_at <= _iso(store.now())


def _iso(moment: datetime) -> str:
    from zeromem_cli.times import to_iso

    return to_iso(moment)


def _payload(memory: Record) -> dict[str, Any]:
    """What Mem0's metadata filters see: the metadata, the promoted keys and the ids."""
    return {
        **memory.meta,
        "user_id": memory.user,
        "agent_id": memory.agent,
        "run_id": memory.session,
    }


def _item(memory: Record, *, scored: bool = False) -> dict[str, Any]:
    """Mem0's ``MemoryItem`` dict of a memory."""
    meta = dict(memory.meta)
    item: dict[str, Any] = {
        "id": memory.uid,
        "memory": memory.content,
        "hash": hashlib.md5(memory.content.encode(), usedforsecurity=False).hexdigest(),
        "metadata": None,
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
    }
    if scored:
        item["score"] = memory.score
    for name, value in (
        ("user_id", memory.user),
        ("agent_id", memory.agent),
        ("run_id", memory.session),
    ):
        if value is not None:
            item[name] = value
    for name in PROMOTED_KEYS:
        if name in meta:
            item[name] = meta.pop(name)
    if meta:
        item["metadata"] = meta
    return item


def _history(memory: Record, versions: Iterable[Any]) -> list[dict[str, Any]]:
    """zeromem's versions as Mem0's history: the first version ADD, each later one UPDATE, and
    DELETE when the memory is in the trash."""
    records: list[dict[str, Any]] = []
    previous: str | None = None
    last = None
    for version in versions:
        records.append(
            _history_record(
                memory,
                len(records),
                previous,
                version.content,
                ADD if previous is None else UPDATE,
                version.valid_from,
            )
        )
        previous, last = version.content, version
    if last is not None and memory.deleted_at is not None:
        deleted = _history_record(memory, len(records), previous, None, DELETE, memory.deleted_at)
        records.append(deleted)
    return records


def _history_record(
    memory: Record, number: int, old: str | None, new: str | None, event: str, when: str
) -> dict[str, Any]:
    return {
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"zeromem:{memory.uid}/{number}")),
        "memory_id": memory.uid,
        "old_memory": old,
        "new_memory": new,
        "event": event,
        "created_at": memory.created_at,
        "updated_at": when,
        "is_deleted": event == DELETE,
        "actor_id": memory.meta.get("actor_id"),
        "role": memory.meta.get("role"),
    }


# -- metadata filters (Mem0's operators) ------------------------------------------------------

_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda have, want: have == want,
    "ne": lambda have, want: have != want,
    "in": lambda have, want: have in want,
    "nin": lambda have, want: have not in want,
    "gt": lambda have, want: _ordered(have, want) and have > want,
    "gte": lambda have, want: _ordered(have, want) and have >= want,
    "lt": lambda have, want: _ordered(have, want) and have < want,
    "lte": lambda have, want: _ordered(have, want) and have <= want,
    "contains": lambda have, want: isinstance(have, str) and str(want) in have,
    "icontains": lambda have, want: isinstance(have, str) and str(want).lower() in have.lower(),
}


def _ordered(have: Any, want: Any) -> bool:
    numbers = (int, float)
    if isinstance(have, bool) or isinstance(want, bool):
        return False
    return (isinstance(have, numbers) and isinstance(want, numbers)) or (
        isinstance(have, str) and isinstance(want, str)
    )


def _matches(payload: Mapping[str, Any], filters: Mapping[str, Any]) -> bool:
    """Whether a memory's payload passes Mem0's metadata ``filters`` (every key must hold)."""
    for name, wanted in filters.items():
        if name in ("AND", "OR", "NOT"):
            parts = wanted if isinstance(wanted, list) else [wanted]
            results = [_matches(payload, part) for part in parts]
            if not {"AND": all, "OR": any, "NOT": lambda r: not any(r)}[name](results):
                return False
        elif wanted == "*":
            if name not in payload:
                return False
        elif isinstance(wanted, Mapping):
            for operator, operand in wanted.items():
                test = _OPERATORS.get(operator)
                if test is None:
                    raise InvalidInputError(f"unknown filter operator {operator!r} on {name!r}")
                if name not in payload or not test(payload[name], operand):
                    return False
        elif payload.get(name, _UNSET) != wanted:
            return False
    return True
