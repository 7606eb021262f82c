"""One memory's row and its versions, above storage and so written once for every backend: the
visible row of an id (the id checked, "not found" worded here) and the history assembled from
the backend's ``memory_history`` rows and the current row."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from zeromem_cli.errors import InvalidInputError, NotFoundError
from zeromem_cli.models import HistoryEntry, Scope
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.records import Row, history_record, to_memory
from zeromem_cli.validation import MAX_ID


def visible_row(
    backend: Backend,
    scope: Scope,
    now: datetime,
    memory_id: int,
    *,
    deleted: bool | None = False,
    include_expired: bool = False,
) -> Row:
    """The row of ``memory_id`` in ``scope``; InvalidInputError for anything that is not an
    id, NotFoundError when it is not visible.

    ``deleted``: False = live only, True = in the trash only, None = either.
    """
    if (
        isinstance(memory_id, bool)
        or not isinstance(memory_id, int)
        or not 1 <= memory_id <= MAX_ID
    ):
        raise InvalidInputError(f"not a memory id: {memory_id!r}")
    row = backend.find_row(scope, now, memory_id, deleted=deleted, include_expired=include_expired)
    if row is None:
        where = "in the trash" if deleted is True else "in this scope"
        raise NotFoundError(f"no memory #{memory_id} {where}")
    return row


def history(backend: Backend, scope: Scope, now: datetime, memory_id: int) -> list[HistoryEntry]:
    """Every version of a memory of ``scope`` (in the trash or not), oldest first; the last is
    the current version (its ``change`` says "current", or why it was deleted)."""
    row = visible_row(backend, scope, now, memory_id, deleted=None, include_expired=True)
    rows = backend.history_rows([memory_id])
    entries = [
        HistoryEntry(memory_id=memory_id, **history_record(r, number))
        for number, r in enumerate(rows, start=1)
    ]
    current = to_memory(row)
    entries.append(
        HistoryEntry(
            memory_id=memory_id,
            version=len(entries) + 1,
            content=current.content,
            category=current.category,
            tags=current.tags,
            key=current.key,
            importance=current.importance,
            pinned=current.pinned,
            meta=current.meta,
            expires_at=current.expires_at,
            valid_from=rows[-1]["valid_to"] if rows else current.created_at,
            valid_to=current.deleted_at,
            change=(current.deleted_reason or "forgotten") if current.deleted_at else "current",
        )
    )
    return entries


def earlier_versions(backend: Backend, ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """The earlier versions (export records) of each of ``ids`` that has any, oldest first."""
    versions: dict[int, list[dict[str, Any]]] = {}
    for row in backend.history_rows(ids):
        entries = versions.setdefault(row["memory_id"], [])
        entries.append(history_record(row, len(entries) + 1))
    return versions
