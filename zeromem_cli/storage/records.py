"""Rows <-> records, the same for every backend: a ``memories`` row as a ``Memory``, a
``memory_history`` row as its export record. Pure: no SQL, no driver."""

from __future__ import annotations

from typing import Any

from zeromem_cli.models import HISTORY_FIELDS, MEMORY_FIELDS, Memory
from zeromem_cli.storage.uids import uid_from_db

# A row as the driver returns it (``sqlite3.Row``, psycopg's ``postgres.db.Row``), read by
# column name: the backends select the same columns under the same names.
Row = Any


def to_memory(row: Row, score: float | None = None) -> Memory:
    """The record of a ``memories`` row."""
    return Memory(
        id=row["id"],
        uid=uid_from_db(row["uid"]),
        content=row["content"],
        category=row["category"],
        tags=_from_json(row["tags"]),
        key=row["key"],
        user=row["user"] or None,
        agent=row["agent"] or None,
        session=row["session"] or None,
        project=row["project"] or None,
        importance=row["importance"],
        pinned=bool(row["pinned"]),
        meta=_from_json(row["meta"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        expires_at=row["expires_at"],
        last_accessed_at=row["last_accessed_at"],
        access_count=row["access_count"],
        deleted_at=row["deleted_at"],
        deleted_reason=row["deleted_reason"],
        score=score,
    )


def _from_json(text: str) -> Any:
    """A stored JSON column; the empty tags and meta most rows hold skip the decoder (pack
    turns hundreds of rows into memories per call), and so do tags as zeromem writes them
    (``_plain_tags``): a search whose results hold no meta never loads ``json``."""
    if text == "{}":
        return {}
    if text == "[]":
        return []
    tags = _plain_tags(text)
    if tags is not None:
        return tags
    import json

    return json.loads(text)


def _plain_tags(text: str) -> list[str] | None:
    """``json.loads(text)`` for an array of strings written as ``json.dumps`` writes one
    (``["a", "b"]``) whose strings hold no quote, backslash or control character, so each
    is its text as stored; None for anything else (the decoder reads it)."""
    if len(text) < 4 or text[:2] != '["' or text[-2:] != '"]':
        return None
    if "\\" in text or not text.isprintable():
        return None
    items = text[2:-2].split('", "')
    for item in items:
        if '"' in item:
            return None
    return items


def history_record(row: Row, version: int) -> dict[str, Any]:
    """One ``memory_history`` row as its export record (``models.HISTORY_FIELDS``, in order);
    ``HistoryEntry(memory_id=..., **record)`` is the same version as the library returns it."""
    return {
        "version": version,
        "content": row["content"],
        "category": row["category"],
        "tags": _from_json(row["tags"]),
        "key": row["key"],
        "importance": row["importance"],
        "pinned": bool(row["pinned"]),
        "meta": _from_json(row["meta"]),
        "expires_at": row["expires_at"],
        "valid_from": row["valid_from"],
        "valid_to": row["valid_to"],
        "change": row["change"],
    }


class KeyTaken(Exception):
    """``insert`` found the key live in the scope: another writer committed it meanwhile
    (PostgreSQL; on SQLite the write lock makes the check and the insert one step)."""


class ImportConflict(Exception):
    """A row an import writes breaks a uniqueness rule of the database (a live key, a uid)."""


# Columns of an imported memory and of an imported earlier version (its version number is
# implied by order).
COLUMNS = ("content_hash", *MEMORY_FIELDS)
HISTORY_COLUMNS = ("memory_id", *HISTORY_FIELDS[1:])
