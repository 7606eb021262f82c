"""Import: memories back in from a file, planned in memory, then written in one transaction.

Import validates every record first (``read.validate_record``), resolves conflicts by uid and
by key in memory (``_Plan``: nothing is written while planning), then writes everything in ONE
transaction with ``executemany`` batches (rows, FTS index, history; ``Backend.insert_imported``): a
100k-line file takes seconds, and an invalid record means nothing is written unless invalid
records are to be skipped. The other direction is ``transfer.export``.
"""

from __future__ import annotations

import gc
import json
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.storage.base import Backend
from zeromem_cli.storage.records import COLUMNS, HISTORY_COLUMNS, ImportConflict
from zeromem_cli.storage.uids import uid_from_db
from zeromem_cli.text.normalize import index_text, index_text_of_normalized
from zeromem_cli.times import to_iso
from zeromem_cli.transfer.read import ImportRecord, RecordError, parse, validate_record
from zeromem_cli.validation import tag_limit_error
from zeromem_cli.writes import clean_content

if TYPE_CHECKING:
    from zeromem_cli.requests import ImportRequest
    from zeromem_cli.storage.base import Backend
    from zeromem_cli.store import MemoryStore

CONFLICT_POLICIES = ("skip", "update", "duplicate")
# Columns compared to decide whether an update changes anything.
_COMPARED = tuple(c for c in COLUMNS if c not in ("id", "uid", "content_hash"))
_BATCH = 5000
# A larger page cache for the many index b-tree inserts of a bulk import, in KiB
# (``python -m benchmarks.transfer_speed`` shows why).
IMPORT_CACHE_KIB = 64 * 1024

Progress = Callable[[int, int], None]


# -- import ----------------------------------------------------------------------------------


@dataclass
class ImportReport:
    """What an import did (or would do, with dry_run)."""

    read: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    keys_dropped: int = 0
    invalid: list[RecordError] = field(default_factory=list)
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "read": self.read,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
            "keys_dropped": self.keys_dropped,
            "invalid": len(self.invalid),
            "errors": [str(e) for e in self.invalid],
            "dry_run": self.dry_run,
        }


class InvalidRecordsError(InvalidInputError):
    """Invalid records and nothing imported; carries every error found."""

    def __init__(self, errors: list[RecordError]) -> None:
        self.errors = errors
        more = f" (and {len(errors) - 1} more invalid records)" if len(errors) > 1 else ""
        super().__init__(f"{errors[0]}{more}; nothing was imported")


@dataclass(slots=True)
class _Existing:
    id: int
    uid: str
    scope: tuple[str, ...]  # user, agent, session, project
    key: tuple[str, ...] | None  # its live key, if any
    pending: ImportRecord | None = None  # set when the memory comes from this import


class _Plan:
    """Conflict resolution in memory, before anything is written."""

    def __init__(self, backend: Backend, on_conflict: str) -> None:
        self.on_conflict = on_conflict
        self.by_uid: dict[str, _Existing] = {}
        self.live_keys: dict[tuple[str, ...], str] = {}  # -> uid
        self.used_ids: set[int] = set()
        for row in backend.existing():
            scope = (row[2], row[3], row[4], row[5])
            key = (*scope, row[6]) if row[6] is not None and row[7] is None else None
            uid = uid_from_db(row[1])
            self.by_uid[uid] = _Existing(row[0], uid, scope, key)
            self.used_ids.add(row[0])
            if key is not None:
                self.live_keys[key] = uid
        self.next_id = max(self.used_ids, default=0) + 1
        self.inserts: dict[str, ImportRecord] = {}  # uid -> record, in file order
        self.updates: list[tuple[int, ImportRecord]] = []

    @staticmethod
    def _key_of(record: ImportRecord) -> tuple[str, ...] | None:
        if record.values["key"] is None or record.values["deleted_at"] is not None:
            return None
        return (*record.scope_columns, record.values["key"])

    def add(self, record: ImportRecord, report: ImportReport) -> None:
        key = self._key_of(record)
        target = self.by_uid.get(record.values["uid"])
        if target is None and key is not None and key in self.live_keys:
            target = self.by_uid[self.live_keys[key]]
        if target is None:
            self._insert(record, key)
            report.added += 1
        elif self.on_conflict == "skip":
            report.skipped += 1
        elif self.on_conflict == "duplicate":
            record.values["uid"] = str(uuid.uuid4())
            record.requested_id = None
            if key is not None and key in self.live_keys:
                record.values["key"] = None
                report.keys_dropped += 1
            self._insert(record, self._key_of(record))
            report.added += 1
        else:
            self._update(target, record, key)
            report.updated += 1

    def _insert(self, record: ImportRecord, key: tuple[str, ...] | None) -> None:
        wanted = record.requested_id
        if wanted is not None and wanted not in self.used_ids:
            record.values["id"] = wanted
        else:
            while self.next_id in self.used_ids:
                self.next_id += 1
            record.values["id"] = self.next_id
        self.used_ids.add(record.values["id"])
        uid = record.uid
        self.by_uid[uid] = _Existing(record.values["id"], uid, record.scope_columns, key, record)
        self.inserts[uid] = record
        if key is not None:
            self.live_keys[key] = uid

    def _update(self, target: _Existing, record: ImportRecord, key: tuple[str, ...] | None) -> None:
        if target.scope != record.scope_columns:
            raise RecordError(
                record.where, "uid", "belongs to a memory of another scope; it cannot be updated"
            )
        holder = self.live_keys.get(key) if key is not None else None
        if holder is not None and holder != target.uid:
            raise RecordError(
                record.where,
                "key",
                f"{record.values['key']!r} is used by another memory (#{self.by_uid[holder].id})",
            )
        if target.pending is not None:
            # The same memory twice in the file: the later record replaces the earlier one.
            record.values["uid"] = target.uid
            record.values["id"] = target.id
            self.inserts[target.uid] = record
            target.pending = record
            new_key = key
        else:
            self.updates.append((target.id, record))
            keeps_key = "key" not in record.given and "deleted_at" not in record.given
            new_key = target.key if keeps_key else key
        if target.key is not None and self.live_keys.get(target.key) == target.uid:
            del self.live_keys[target.key]
        target.key = new_key
        if new_key is not None:
            self.live_keys[new_key] = target.uid


def import_text(store: MemoryStore, text: str, fmt: str, **options: Any) -> ImportReport:
    """Import the records of ``text`` (in ``fmt``) into ``store``: ``store.import_records``
    over ``parse(text, fmt)``, ``options`` being ``ImportRequest`` fields."""
    return store.import_records(parse(text, fmt), **options)


class _DryRun(Exception):
    pass


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector for a bulk import.

    An import builds hundreds of thousands of dicts and lists that live until it ends, and none
    of them form cycles; the collector would walk them all again and again as they accumulate
    (measured by ``python -m benchmarks.transfer_speed``). Reference counting still frees
    everything.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def import_records(
    store: MemoryStore, raw_records: Iterable[tuple[str, Any]], request: ImportRequest
) -> ImportReport:
    """Validate and write ``raw_records`` (see ``_import_records``); called through
    ``MemoryStore.import_records``, which logs the operation."""
    if request.on_conflict not in CONFLICT_POLICIES:
        raise InvalidInputError(
            "--on-conflict must be one of "
            f"{', '.join(CONFLICT_POLICIES)}, not {request.on_conflict!r}"
        )
    with _without_cycle_collection():
        return _import_records(store, raw_records, request)


def _import_records(
    store: MemoryStore, raw_records: Iterable[tuple[str, Any]], request: ImportRequest
) -> ImportReport:
    on_conflict, skip_invalid, dry_run = request.on_conflict, request.skip_invalid, request.dry_run
    all_scopes, allow_secret, own_projects = (
        request.all_scopes,
        request.allow_secret,
        request.own_projects,
    )
    progress = request.progress
    raw = list(raw_records)
    total = len(raw)
    report = ImportReport(read=total, dry_run=dry_run)
    now = to_iso(store.now())
    scope = None if all_scopes else store.scope
    validated: list[ImportRecord] = []
    max_bytes = store.max_content_bytes

    def clean(content: str) -> str:
        return clean_content(content, max_bytes)

    tag_caps = (store.max_tags, store.max_tag_chars)
    for done, (where, item) in enumerate(raw, start=1):
        try:
            record = validate_record(
                item,
                where,
                clean=clean,
                scope=scope,
                now=now,
                allow_secret=allow_secret,
                own_projects=own_projects,
            )
            tags = record.values["tags"]
            if tags != "[]" and (problem := tag_limit_error(json.loads(tags), *tag_caps)):
                raise RecordError(where, "tags", problem)
            validated.append(record)
        except RecordError as exc:
            report.invalid.append(exc)
        if progress is not None and done % 1000 == 0:
            progress(done, total * 2)
    if report.invalid and not skip_invalid:
        raise InvalidRecordsError(report.invalid)
    try:
        with store.transaction() as backend, backend.page_cache(IMPORT_CACHE_KIB):
            plan = _Plan(backend, on_conflict)
            for record in validated:
                try:
                    plan.add(record, report)
                except RecordError as exc:
                    report.invalid.append(exc)
            if report.invalid and not skip_invalid:
                raise InvalidRecordsError(report.invalid)
            _apply(store, backend, plan, report, progress, total)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    if progress is not None:
        progress(total * 2, total * 2)
    return report


def _content_index_text(record: ImportRecord) -> str:
    """What the index holds for a record's content (its NFKC form computed once, in
    validation, serves the content hash and this)."""
    content = record.values["content"]
    if record.normalized is None:
        return index_text(content)
    return index_text_of_normalized(content, record.normalized)


def _batches(items: list[Any], size: int = _BATCH) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _apply(
    store: MemoryStore,
    backend: Backend,
    plan: _Plan,
    report: ImportReport,
    progress: Progress | None,
    total: int,
) -> None:
    """Write the plan: updates first (they may free keys), then inserts in batches."""
    now = to_iso(store.now())
    for memory_id, record in plan.updates:
        row = backend.by_id(memory_id)
        merged = dict(row)
        for name in _COMPARED:
            if name in record.given or name in ("content",):
                merged[name] = record.values[name]
        merged["content_hash"] = record.values["content_hash"]
        if all(merged[name] == row[name] for name in _COMPARED):
            report.updated -= 1
            report.unchanged += 1
            continue
        if "updated_at" not in record.given:
            merged["updated_at"] = now
        try:
            backend.update_imported(row, merged, now)
        except ImportConflict as exc:
            raise RecordError(
                record.where, "key", f"conflicts with another memory ({exc})"
            ) from None
    records = list(plan.inserts.values())
    if not records:
        return
    fresh = backend.fresh_ids(len(records))
    if fresh is not None:  # the importer cannot see every id in use: the database gives them
        for record, memory_id in zip(records, fresh, strict=True):
            record.values["id"] = memory_id
    with backend.bulk_loading():
        _insert_new(backend, records, progress, total)


def _insert_new(
    backend: Backend,
    records: list[ImportRecord],
    progress: Progress | None,
    total: int,
) -> None:
    """Insert new memories, their index entries and history, in batches."""
    done = 0
    for batch in _batches(records):
        history = [
            (record.values["id"], *(entry[c] for c in HISTORY_COLUMNS[1:]))
            for record in batch
            for entry in record.history
        ]
        try:
            backend.insert_imported(
                [record.values for record in batch],
                [_content_index_text(record) for record in batch],
                history,
            )
        except ImportConflict as exc:
            raise InvalidInputError(f"import conflicts with the database: {exc}") from None
        done += len(batch)
        if progress is not None:
            progress(total + done * total // max(len(records), 1), total * 2)
