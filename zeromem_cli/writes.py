"""Write policy: what a write does to the store, as functions over its backend inside the
caller's transaction (``MemoryStore.write`` / ``update`` / ``forget`` / ``restore`` open it).

A write is, in this order: a **key upsert** (the key names a live memory of the scope: this is
its next version), a **duplicate** (the same content is live in the scope: nothing is added),
a **merge** (``merge=True`` and a near-duplicate exists: the text becomes its next version) or
an **insert**. ``fields`` validates the values a write gives before any of that. Every version
change keeps the old version in history and the index entry in step (``Backend.replace_version``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from zeromem_cli import validation
from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import Filters, Memory, Scope, WriteResult
from zeromem_cli.requests import UNSET
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.query import CandidateQuery, Match
from zeromem_cli.storage.records import KeyTaken, Row, to_memory
from zeromem_cli.text.normalize import clean_content as _clean
from zeromem_cli.text.normalize import content_hash, require_utf8
from zeromem_cli.times import from_iso, parse_expiry, to_iso
from zeromem_cli.versions import visible_row

DEFAULT_CATEGORY = "general"
DEFAULT_IMPORTANCE = 5

# -- values -------------------------------------------------------------------------------------


def clean_content(content: str, max_bytes: int) -> str:
    """Content as a write stores it: cleaned, non-empty, at most ``max_bytes`` of UTF-8."""
    if not isinstance(content, str):
        raise InvalidInputError("content must be text")
    if content.isascii():  # valid UTF-8, one byte a character: no encoding needed
        cleaned = _clean(content)
        size = len(cleaned)
    else:
        cleaned = _clean(require_utf8(content, "content"))
        size = len(cleaned.encode("utf-8"))
    if not cleaned:
        raise InvalidInputError("content is empty")
    if size > max_bytes:
        raise InvalidInputError(f"content is {size} bytes, over the limit of {max_bytes} bytes")
    return cleaned


def expiry(ttl: str | None, expires_at: str | datetime | None, now: datetime) -> str | None:
    """The stored expiry of a ``ttl`` ("7d") or an ``expires_at`` (one of them, or neither)."""
    if ttl is not None and expires_at is not None:
        raise InvalidInputError("give ttl or expires_at, not both")
    if ttl is not None:
        return to_iso(parse_expiry(ttl, now))
    if isinstance(expires_at, datetime):
        return to_iso(expires_at)
    if expires_at is not None:
        return to_iso(parse_expiry(expires_at, now))
    return None


def as_iso(moment: str | datetime) -> str:
    """A given time (``created_at`` of a backdated write) in the stored form."""
    return to_iso(moment) if isinstance(moment, datetime) else to_iso(from_iso(moment))


def content_fields(content: str, max_bytes: int) -> dict[str, Any]:
    """The stored content of a write and the hash duplicates are found by."""
    cleaned = clean_content(content, max_bytes)
    return {"content": cleaned, "content_hash": content_hash(cleaned)}


_STORED: dict[str, Callable[[Any], Any]] = {
    "key": lambda key: None if key is None else validation.clean_label(key, "key"),
    "category": lambda category: validation.clean_label(category, "category"),
    "tags": lambda tags: json.dumps(validation.clean_tags(tags), ensure_ascii=False),
    "importance": validation.clean_importance,
    "pinned": lambda pinned: int(bool(pinned)),
    "meta": validation.clean_meta,
}


def fields(**given: Any) -> dict[str, Any]:
    """The stored values of the fields a write gives (key, category, tags, importance, pinned,
    meta), validated in the order given, so the first bad one is the one reported. None or
    ``UNSET`` is "not given", except ``key=None``: no key."""
    stored: dict[str, Any] = {}
    for name, value in given.items():
        if value is UNSET or (value is None and name != "key"):
            continue
        stored[name] = _STORED[name](value)
    return stored


def new_values(given: dict[str, Any], default_category: str | None) -> dict[str, Any]:
    """Every column value of a new memory: ``given``, and the defaults for the rest."""
    category = (
        validation.clean_label(default_category, "category")
        if default_category
        else DEFAULT_CATEGORY
    )
    return {
        "category": category,
        "tags": "[]",
        "importance": DEFAULT_IMPORTANCE,
        "pinned": 0,
        "meta": "{}",
        "expires_at": None,
        **given,
    }


# Every stored field that is printed somewhere (list, pack, export, stats) is checked.
SECRET_FIELDS = ("content", "category", "key", "tags", "meta")


def refuse_secrets(fields: dict[str, Any], scope: Scope | None = None) -> None:
    """Refuse likely credentials in the text fields of a write, and in the scope it is
    stored under (see ``secrets``): stats and export print both."""
    from zeromem_cli.text.secrets import refuse_secrets  # not needed to read: off search's path

    checked = {name: fields.get(name) for name in SECRET_FIELDS}
    if scope is not None:
        checked.update(
            user=scope.user, agent=scope.agent, session=scope.session, project=scope.project
        )
    refuse_secrets(checked, doing="store")


def check_scope(scope: Scope) -> None:
    """A scope value a memory is stored under holds no control character: it is printed
    (stats, export) and a terminal would obey an escape sequence in it."""
    for name in ("user", "agent", "session", "project"):
        value = getattr(scope, name)
        if value is not None and not require_utf8(value, name).isprintable():
            raise InvalidInputError(f"{name} holds a control character")


# -- write: key upsert | duplicate | merge | insert ---------------------------------------------


def write(
    backend: Backend,
    scope: Scope,
    now: datetime,
    given: dict[str, Any],
    values: dict[str, Any],
    *,
    created_at: str | None,
    allow_duplicate: bool,
    merge: bool,
    near: bool = True,
) -> WriteResult:
    """Store the fields ``given`` (content, its hash and key always among them) in ``scope``:
    see ``MemoryStore.write`` for what each outcome means. ``values``: every column of the
    memory when it is a new one (``new_values``); ``created_at``: its stored time when it is
    backdated (None: ``now``)."""
    if given["key"] is not None:
        updated = upsert_key(backend, scope, now, given)
        if updated is not None:
            return updated
    if not allow_duplicate:
        same = live_duplicate(backend, scope, now, given["content_hash"])
        if same is not None and same.memory.key in (None, given["key"]):
            if given["key"] is not None and same.memory.key is None:
                return key_onto(backend, now, same.memory.id, given)
            return same
        # else the same text is held under another key: this key names a memory of its own
    look = not allow_duplicate and (near or (merge and given["key"] is None))
    similar = similar_memories(backend, scope, now, given["content"]) if look else []
    if similar and merge and given["key"] is None:
        return merge_into(backend, now, similar, given)
    try:
        return insert(backend, scope, created_at or to_iso(now), values, similar)
    except KeyTaken:
        # Another writer committed this key between our look-up and our insert (PostgreSQL:
        # the unique index made us wait for it): this write becomes its next version.
        updated = upsert_key(backend, scope, now, given)
        if updated is None:
            raise
        return updated


def upsert_key(
    backend: Backend, scope: Scope, now: datetime, given: dict[str, Any]
) -> WriteResult | None:
    """The key names a live memory of the scope (expired or not): ``given`` is its next
    version (``updated``), or nothing changes (``duplicate``). None: no memory holds the key.

    An expired memory without a new expiry stops expiring."""
    row = backend.live_by_key(scope, given["key"])
    if row is None:
        return None
    expired = row["expires_at"] is not None and row["expires_at"] <= to_iso(now)
    if expired and "expires_at" not in given:
        given = {**given, "expires_at": None}
    changed = {k: v for k, v in given.items() if row[k] != v}
    if not changed:
        # Saying the same thing again is a duplicate, not a new version.
        backend.touch_updated(row["id"], now)
        return WriteResult(backend.fetch(row["id"]), "duplicate")
    _new_version(backend, row, changed, "key-update", now)
    return WriteResult(backend.fetch(row["id"]), "updated")


def key_onto(backend: Backend, now: datetime, memory_id: int, given: dict[str, Any]) -> WriteResult:
    """A keyed write of text already stored without a key: the key (and the other values
    given) land on that memory as its next version, so the next write of the key finds it
    (#33: the key was dropped and the next ``add --key`` made a second memory)."""
    row = backend.by_id(memory_id)
    changed = {k: v for k, v in given.items() if row[k] != v}
    _new_version(backend, row, changed, "key-update", now)
    return WriteResult(backend.fetch(memory_id), "updated")


def live_duplicate(
    backend: Backend, scope: Scope, now: datetime, content_hash: int
) -> WriteResult | None:
    """Identical content (NFKC, casefold, whitespace) is live in the scope: its ``updated_at``
    is refreshed and nothing is added (``duplicate``)."""
    memory_id = backend.live_by_hash(scope, content_hash, now)
    if memory_id is None:
        return None
    backend.touch_updated(memory_id, now)
    return WriteResult(backend.fetch(memory_id), "duplicate")


def similar_memories(
    backend: Backend, scope: Scope, now: datetime, content: str
) -> list[tuple[Memory, float]]:
    """Live memories of ``scope`` that look like rephrasings of ``content``, most similar
    first (lexical similarity: ``text.similarity``)."""
    from zeromem_cli.text.query import query_words
    from zeromem_cli.text.similarity import (
        CANDIDATES,
        RARE_CAP,
        candidate_terms,
        nearest,
        word_features,
    )

    words = query_words(content)
    rare, common = candidate_terms(
        words, lambda term: backend.count_matches(Match.any_word([[term]]), RARE_CAP)
    )
    match = Match.any_word([term] for term in rare)
    if common:  # or every common word of the text
        match = match.either(Match.every_word([term] for term in common))
    if match.empty:
        return []
    query = CandidateQuery(match, scope, Filters(), now, CANDIDATES, bounded=False)
    ranked = backend.candidates(query)
    return nearest(word_features(words), [to_memory(row) for row, _ in ranked])


def merge_into(
    backend: Backend,
    now: datetime,
    similar: list[tuple[Memory, float]],
    given: dict[str, Any],
) -> WriteResult:
    """The most similar memory gets ``given`` (its key aside) as its next version: ``merged``."""
    row = backend.by_id(similar[0][0].id)
    _new_version(backend, row, {k: v for k, v in given.items() if k != "key"}, "merge", now)
    return WriteResult(backend.fetch(row["id"]), "merged", _found(similar))


def insert(
    backend: Backend,
    scope: Scope,
    created_at: str,
    values: dict[str, Any],
    similar: list[tuple[Memory, float]],
) -> WriteResult:
    """A new memory of ``scope`` created (and last updated) at ``created_at``: ``added``, with
    the near-duplicates found listed."""
    user, agent, session, project = scope.as_columns()
    memory_id = backend.insert(
        {
            **values,
            "uid": _new_uid(),
            "user": user,
            "agent": agent,
            "session": session,
            "project": project,
            "created_at": created_at,
            "updated_at": created_at,
        },
    )
    return WriteResult(backend.fetch(memory_id), "added", _found(similar))


def _new_version(
    backend: Backend, row: Row, changed: dict[str, Any], change: str, now: datetime
) -> None:
    """``backend.replace_version``, a key another live memory of the scope holds told as the
    user's mistake it is."""
    try:
        backend.replace_version(row, changed, change, now)
    except KeyTaken:
        key = changed.get("key", row["key"])
        raise InvalidInputError(
            f"key {key!r} is already used by another memory in this scope"
        ) from None


def _found(similar: list[tuple[Memory, float]]) -> list[tuple[int, float]]:
    return [(m.id, round(score, 3)) for m, score in similar]


def _new_uid() -> bytes:
    """A random (version 4) uid in its stored form (see ``storage.uids``)."""
    import uuid  # only writes need it (it pulls in platform): kept off the search start-up path

    return uuid.uuid4().bytes


# -- update, forget, restore --------------------------------------------------------------------


def update(
    backend: Backend,
    scope: Scope,
    now: datetime,
    memory_id: int,
    new: dict[str, Any],
    meta: dict[str, Any] | None,
) -> Memory:
    """Give a live memory of ``scope`` the values ``new``, ``meta`` merged into its meta (a
    value of None removes that key); the version it replaces is kept in history."""
    row = visible_row(backend, scope, now, memory_id)
    if meta:
        merged = json.loads(row["meta"])
        for name, value in meta.items():
            if value is None:
                merged.pop(name, None)
            else:
                merged[name] = value
        new = {**new, "meta": validation.clean_meta(merged)}
    changed = {k: v for k, v in new.items() if row[k] != v}
    if not changed:
        return to_memory(row)
    _new_version(backend, row, changed, "update", now)
    return backend.fetch(memory_id)


def forget(backend: Backend, scope: Scope, now: datetime, ids: list[int]) -> int:
    """Soft-delete memories of ``scope`` (expired ones too); every id must be live there, or
    NotFoundError and none is forgotten (the caller's transaction rolls back)."""
    for memory_id in ids:
        visible_row(backend, scope, now, memory_id, include_expired=True)
    backend.mark_forgotten(ids, now)
    return len(ids)


def restore(backend: Backend, scope: Scope, now: datetime, memory_id: int) -> Memory:
    """Bring a memory of ``scope`` back from the trash; an expiry that has passed is cleared."""
    row = visible_row(backend, scope, now, memory_id, deleted=True)
    try:
        backend.undelete(row, now)
    except KeyTaken:
        raise InvalidInputError(
            f"cannot restore #{row['id']}: another live memory now has key {row['key']!r}"
        ) from None
    return backend.fetch(memory_id)


__all__ = ["DEFAULT_CATEGORY", "DEFAULT_IMPORTANCE", "UNSET", "write"]
