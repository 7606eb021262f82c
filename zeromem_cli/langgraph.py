"""A LangGraph ``BaseStore`` over ``MemoryStore``: LangGraph agents (and LangMem's memory tools)
keep their long-term memory in zeromem, where ``zeromem search`` and every other face find it.

The mapping (docs/python-frameworks.md has the table):

- The store's owner is one zeromem user (and project): ``ZeromemStore(user=...)``. LangGraph
  separates its users by namespace, and its prefix searches cross namespaces, so namespaces
  live inside one owner, never across owners.
- A namespace is an origin within the owner: agent ``langgraph`` (``agent=``), session the
  namespace's labels joined with ``.`` (LangGraph forbids ``.`` in a label, so the join is
  reversible). A key is the zeromem key in that exact scope: a put is a key upsert, its old
  value kept in history.
- The value (a JSON object) is kept whole in ``meta``; the memory's content is the text to
  index, chosen as the ``index`` config's ``fields`` say (LangGraph's paths; the default
  ``$`` takes every string in the value). ``query`` runs zeromem's search over that text: no
  embedding is computed, an ``embed`` in the config is not called.
- ``filter`` matches value fields (exact values, nested objects, ``$eq $ne $gt $gte $lt
  $lte``), applied to what ``MemoryStore`` returns: no SQL and no ranking here.
- TTL is zeromem's expiry (minutes, as LangGraph counts them); reads refresh it when LangGraph
  asks; ``sweep_ttl`` forgets expired items (``zeromem gc`` would too).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)
from langgraph.store.base.embed import get_text_at_path, tokenize_path

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import Filters
from zeromem_cli.models import Memory as Record
from zeromem_cli.store import MemoryStore
from zeromem_cli.times import from_iso, to_iso
from zeromem_cli.validation import MAX_LABEL

__all__ = ["ZeromemStore"]

AGENT = "langgraph"
META = "langgraph"  # the meta key holding an item's key, value, TTL and whether it is indexed
FETCH_MIN = 50


class ZeromemStore(BaseStore):
    """LangGraph's ``BaseStore`` on a zeromem database: by default the one, and the owner
    (``ZEROMEM_USER``, ``ZEROMEM_PROJECT``), the CLI uses in the same shell.

    ``index``: LangGraph's index config; only ``fields`` (or ``text_fields``) matters, the
    paths whose text is indexed. ``ttl``: LangGraph's TTL config (``default_ttl`` and
    ``refresh_on_read``; ``sweep_interval_minutes`` for ``start_ttl_sweeper``)."""

    supports_ttl = True

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        user: str | None = None,
        project: str | None = None,
        agent: str = AGENT,
        index: IndexConfig | Mapping[str, Any] | None = None,
        ttl: TTLConfig | None = None,
        store: MemoryStore | None = None,
    ) -> None:
        base = store if store is not None else _open(path, user, project)
        owner = base.scope
        self.store = base.scoped(user=owner.user, project=owner.project, isolate=False)
        self.agent = agent
        config: Mapping[str, Any] = index or {}
        fields = config.get("fields") or config.get("text_fields") or ["$"]
        self.index_fields: list[str] = [str(path) for path in fields]
        self.index_config = index
        self.ttl_config = ttl
        self._lock = threading.RLock()
        self._sweeper: threading.Thread | None = None
        self._stop = threading.Event()

    # -- BaseStore ----------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run each op in order (a later put of a key sees an earlier one). Every op's
        namespace is checked first: a batch with a bad label changes nothing."""
        ops = list(ops)
        for op in ops:
            _check_labels(op)
        results: list[Result] = []
        with self._lock:
            for op in ops:
                if isinstance(op, GetOp):
                    results.append(self._get(op))
                elif isinstance(op, SearchOp):
                    results.append(self._search(op))
                elif isinstance(op, PutOp):
                    self._put(op)
                    results.append(None)
                elif isinstance(op, ListNamespacesOp):
                    results.append(self._list_namespaces(op))
                else:
                    raise InvalidInputError(f"unknown store operation: {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch``: a local database answers in about a millisecond, less than a thread
        hop would cost."""
        return self.batch(ops)

    def close(self) -> None:
        self.stop_ttl_sweeper()
        self.store.close()

    def __enter__(self) -> ZeromemStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- TTL ----------------------------------------------------------------------------------

    def sweep_ttl(self) -> int:
        """Forget the expired items (they were already invisible); how many."""
        with self._lock:
            now = to_iso(self.store.now())
            expired = [
                m.id
                for m in self.store.list(limit=None, filters=Filters(include_expired=True))
                if m.agent == self.agent and m.expires_at is not None and m.expires_at <= now
            ]
            return self.store.forget(*expired)

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> threading.Thread:
        """Sweep every ``sweep_interval_minutes`` (default: the TTL config's, else 5) in a
        daemon thread until ``stop_ttl_sweeper``."""
        minutes = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes", 5)
        if self._sweeper is None or not self._sweeper.is_alive():
            self._stop.clear()

            def sweep() -> None:
                while not self._stop.wait(float(minutes or 5) * 60):
                    self.sweep_ttl()

            self._sweeper = threading.Thread(target=sweep, name="zeromem-ttl", daemon=True)
            self._sweeper.start()
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        if self._sweeper is None:
            return True
        self._stop.set()
        self._sweeper.join(timeout)
        stopped = not self._sweeper.is_alive()
        if stopped:
            self._sweeper = None
        return stopped

    # -- operations ---------------------------------------------------------------------------

    def _view(self, namespace: tuple[str, ...]) -> MemoryStore:
        """The exact scope of one namespace."""
        owner = self.store.scope
        return self.store.scoped(
            user=owner.user,
            agent=self.agent,
            session=session_of(namespace),
            project=owner.project,
            isolate=True,
        )

    def _stored(self, namespace: tuple[str, ...], key: str) -> Record | None:
        found = self._view(namespace).list(limit=1, filters=Filters(key=stored_key(key)))
        return found[0] if found and _item_key(found[0]) == key else None

    def _get(self, op: GetOp) -> Item | None:
        memory = self._stored(op.namespace, op.key)
        if memory is None:
            return None
        if self._refreshes(op.refresh_ttl):
            memory = self._refresh(memory)
        return _item(memory, Item)

    def _put(self, op: PutOp) -> None:
        view = self._view(op.namespace)
        if op.value is None:
            existing = self._stored(op.namespace, op.key)
            if existing is not None:
                view.forget(existing.id)
            return
        if not isinstance(op.value, dict):
            raise InvalidInputError("a LangGraph store value must be a dict")
        ttl = op.ttl
        fields = self.index_fields if op.index is None else op.index
        text = "" if fields is False else index_text(op.value, list(fields))
        record = {"key": op.key, "value": op.value, "ttl": ttl, "indexed": bool(text)}
        content = text or f"{'/'.join(op.namespace)}/{op.key}"
        written = view.write(
            content,
            key=stored_key(op.key),
            meta={META: record},
            expires_at=self._expiry(ttl),
            allow_duplicate=True,
        ).memory
        if ttl is None and written.expires_at is not None:
            view.update(written.id, expires_at=None)  # a put without TTL keeps the item

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = session_of(op.namespace_prefix)

        def indexed(memory: Record) -> bool:
            return bool(memory.meta[META].get("indexed", True))

        def within(memory: Record) -> bool:
            if memory.agent != self.agent or META not in memory.meta:
                return False
            session = memory.session or ""
            if prefix and session != prefix and not session.startswith(prefix + "."):
                return False
            return not op.filter or _matches(memory.meta[META].get("value"), op.filter)

        wanted = op.offset + op.limit
        if not op.query:
            found = _collect(lambda n: self.store.list(limit=n), within, wanted)
        else:
            # A query orders, it does not hide (as LangGraph's vector search scores every
            # indexed item): the items zeromem's search finds come first, scored; then the
            # other indexed items, newest first, scored 0 (no word of the query in them); then
            # the items put with ``index=False``, unscored (None), as LangGraph's stores.
            hits = _collect(
                lambda n: self.store.search(op.query or "", limit=n),
                lambda m: within(m) and indexed(m),
                wanted,
            )
            scored = {m.id for m in hits}
            missed = _collect(
                lambda n: self.store.list(limit=n),
                lambda m: within(m) and indexed(m) and m.id not in scored,
                wanted - len(hits),
            )
            for memory in missed:
                memory.score = 0.0
            unindexed = _collect(
                lambda n: self.store.list(limit=n),
                lambda m: within(m) and not indexed(m),
                wanted - len(hits) - len(missed),
            )
            found = hits + missed + unindexed
        chosen = found[op.offset :]
        if self._refreshes(op.refresh_ttl):
            chosen = [self._refresh(m) for m in chosen]
        return [_item(m, SearchItem) for m in chosen]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        names = {
            namespace_of(scope.session)
            for scope, _ in self.store.scopes()
            if scope.agent == self.agent and scope.session
        }
        chosen = [ns for ns in names if all(_does_match(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            chosen = list({ns[: op.max_depth] for ns in chosen})
        return sorted(chosen)[op.offset : op.offset + op.limit]

    # -- TTL plumbing -------------------------------------------------------------------------

    def _expiry(self, ttl_minutes: float | None) -> datetime | None:
        """Now plus the TTL, rounded up to zeromem's whole seconds: an item lives at least
        its TTL, at most a second longer."""
        if ttl_minutes is None:
            return None
        moment = self.store.now() + timedelta(minutes=ttl_minutes)
        if moment.microsecond:
            moment += timedelta(microseconds=1_000_000 - moment.microsecond)
        return moment

    def _refreshes(self, asked: bool) -> bool:
        """A read refreshes TTLs when it asks and the TTL config turns ``refresh_on_read`` on,
        as LangGraph's SQLite and PostgreSQL stores decide."""
        return asked and bool((self.ttl_config or {}).get("refresh_on_read", False))

    def _refresh(self, memory: Record) -> Record:
        ttl = memory.meta.get(META, {}).get("ttl")
        if ttl is None:
            return memory
        view = self.store.scoped(
            user=memory.user,
            agent=memory.agent,
            session=memory.session,
            project=memory.project,
            isolate=True,
        )
        refreshed = view.update(memory.id, expires_at=self._expiry(ttl))
        refreshed.score = memory.score
        return refreshed


def _open(path: str | Path | None, user: str | None, project: str | None) -> MemoryStore:
    """The store the CLI would open in this shell: ``ZEROMEM_DB``, and ``ZEROMEM_USER`` /
    ``ZEROMEM_PROJECT`` for what is not given (the llm plugin's resolution, ``Where``)."""
    from zeromem_cli.integrations.llm_memory import Where
    from zeromem_cli.projects import resolve_project

    where = Where(user=user, project=project).resolved()
    return MemoryStore(path, user=where.user, project=resolve_project(where.project))


# -- namespaces, keys, values, text --------------------------------------------------------


_UNPRINTABLE = re.compile(r"%([0-9a-f]+);")


def session_of(namespace: Sequence[str]) -> str:
    """The zeromem session of a namespace: its labels joined with ``.`` (which no label
    holds); ``%`` and characters a terminal would obey (zeromem refuses them in a scope)
    written as ``%<hex>;``."""
    return ".".join(
        "".join(c if c != "%" and c.isprintable() else f"%{ord(c):x};" for c in label)
        for label in namespace
    )


def namespace_of(session: str) -> tuple[str, ...]:
    return tuple(
        _UNPRINTABLE.sub(lambda m: chr(int(m.group(1), 16)), label) for label in session.split(".")
    )


def stored_key(key: str) -> str:
    """The zeromem key of a LangGraph key: itself when zeromem can keep it as is, else a digest
    (the exact key stays in the item's meta)."""
    if not isinstance(key, str):
        raise InvalidInputError("a LangGraph key must be text")
    if key and key == key.strip() and key.isprintable() and len(key) <= MAX_LABEL:
        return key
    import hashlib

    return "langgraph:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _item_key(memory: Record) -> str:
    return str(memory.meta.get(META, {}).get("key", memory.key))


def index_text(value: Mapping[str, Any], fields: Sequence[str]) -> str:
    """The text zeromem indexes for ``value``: each field's text (LangGraph's path syntax) on a
    line of its own; ``$`` (the whole value) gives every string in it."""
    texts: list[str] = []
    for path in fields:
        if path == "$":
            texts.extend(_strings(value))
        else:
            texts.extend(t for t in get_text_at_path(value, tokenize_path(path)) if t.strip())
    return "\n".join(dict.fromkeys(t.strip() for t in texts if t.strip()))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _strings(item)]
    return []


def _item(memory: Record, kind: Callable[..., Any]) -> Any:
    record = memory.meta[META]
    namespace = namespace_of(memory.session or "")
    options: dict[str, Any] = {
        "namespace": namespace,
        "key": record.get("key", memory.key),
        "value": record.get("value", {}),
        "created_at": from_iso(memory.created_at),
        "updated_at": from_iso(memory.updated_at),
    }
    if kind is SearchItem:
        options["score"] = memory.score
    return kind(**options)


def _check_labels(op: Op) -> None:
    """LangGraph's label rules, also for ops given straight to ``batch``: a ``.`` in a label
    would address another namespace."""
    if isinstance(op, (GetOp, PutOp)):
        labels: tuple[str, ...] = op.namespace
        if not labels:
            raise InvalidNamespaceError("Namespace cannot be empty.")
    elif isinstance(op, SearchOp):
        labels = op.namespace_prefix
    elif isinstance(op, ListNamespacesOp):
        labels = tuple(label for c in op.match_conditions or () for label in c.path if label != "*")
    else:
        return
    for label in labels:
        if not isinstance(label, str) or not label or "." in label or "\x00" in label:
            raise InvalidNamespaceError(f"Invalid namespace label {label!r} in {labels}")


def _collect(
    read: Callable[[int], list[Record]], keep: Callable[[Record], bool], count: int
) -> list[Record]:
    """The first ``count`` memories ``read`` returns that ``keep`` admits, in its order,
    reading again with a larger limit while the test drops too many."""
    if count <= 0:
        return []
    fetch = max(count * 4, FETCH_MIN)
    while True:
        found = read(fetch)
        kept = [m for m in found if keep(m)]
        if len(kept) >= count or len(found) < fetch:
            return kept[:count]
        fetch *= 4


def _does_match(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """LangGraph's namespace conditions: a prefix or suffix, ``*`` matching any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace[: len(path)], path, strict=True)
    elif condition.match_type == "suffix":
        pairs = zip(namespace[len(namespace) - len(path) :], path, strict=True)
    else:
        raise InvalidInputError(f"unknown namespace match type {condition.match_type!r}")
    return all(want in ("*", have) for have, want in pairs)


# -- value filters (LangGraph's: exact values, nested objects, $ operators) ---------------------

_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda have, want: bool(have == want),
    "$ne": lambda have, want: bool(have != want),
    "$gt": lambda have, want: _number(have) > _number(want),
    "$gte": lambda have, want: _number(have) >= _number(want),
    "$lt": lambda have, want: _number(have) < _number(want),
    "$lte": lambda have, want: _number(have) <= _number(want),
}


def _field(value: Mapping[str, Any], name: str) -> Any:
    """A field of a value: ``name`` itself, else a dotted path into nested objects."""
    if name in value or "." not in name:
        return value.get(name)
    found: Any = value
    for part in name.split("."):
        if not isinstance(found, Mapping):
            return None
        found = found.get(part)
    return found


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")  # compares false with everything: such an item does not match


def _matches(value: Any, wanted: Any) -> bool:
    """Whether ``value`` (a stored value or a part of one) passes the filter ``wanted``."""
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            for operator, operand in wanted.items():
                test = _OPERATORS.get(operator)
                if test is None:
                    raise InvalidInputError(f"unsupported filter operator {operator!r}")
                if not test(value, operand):
                    return False
            return True
        if not isinstance(value, Mapping):
            return False
        return all(_matches(_field(value, str(k)), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(wanted)
            and all(_matches(v, w) for v, w in zip(value, wanted, strict=True))
        )
    if isinstance(value, bool) or isinstance(wanted, bool):
        return value is wanted  # JSON's true is not 1
    return bool(_json(value) == _json(wanted))


def _json(value: Any) -> Any:
    """Values as stored JSON compares them: a tuple is a list."""
    return json.loads(json.dumps(value)) if isinstance(value, (list, tuple)) else value
