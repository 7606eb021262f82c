"""Export and import: memories out to jsonl / json / csv / markdown, and back in from a file.

Export reads rows in id order and writes one format; ``jsonl`` is lossless (every field, and
``history`` with ``with_history``), so export -> import into an empty database -> export gives
the same bytes. Import validates every record first (``records.validate_record``), resolves
conflicts by uid and by key in memory, then writes everything in ONE transaction with
``executemany`` batches (rows, FTS index, history): a 100k-line file takes seconds, and an
invalid record means nothing is written unless invalid records are to be skipped.
"""

from __future__ import annotations

import csv
import gc
import json
import os
import sqlite3
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.models import HISTORY_FIELDS, MEMORY_FIELDS, Filters
from zeromem_cli.storage import fts
from zeromem_cli.storage.db import map_error
from zeromem_cli.storage.sql import filter_clause
from zeromem_cli.storage.uids import uid_from_db, uid_to_db
from zeromem_cli.text.normalize import index_text, index_text_of_normalized
from zeromem_cli.times import to_iso
from zeromem_cli.transfer.read import ImportRecord, RecordError, parse, validate_record

if TYPE_CHECKING:
    from zeromem_cli.store import MemoryStore

EXPORT_FORMATS = ("jsonl", "json", "csv", "markdown")
CONFLICT_POLICIES = ("skip", "update", "duplicate")
# Columns an import writes, in INSERT order: every record field, plus the duplicate hash.
COLUMNS = ("content_hash", *MEMORY_FIELDS)
# Columns compared to decide whether an update changes anything.
_COMPARED = tuple(c for c in COLUMNS if c not in ("id", "uid", "content_hash"))
_HISTORY_COLUMNS = ("memory_id", *HISTORY_FIELDS[1:])  # the version is implied by order
_BATCH = 5000
IMPORT_CACHE_KIB = -64 * 1024  # negative: KiB, as PRAGMA cache_size takes it

Progress = Callable[[int, int], None]


# -- export ----------------------------------------------------------------------------------


def export_records(
    store: MemoryStore,
    filters: Filters | None = None,
    *,
    all_scopes: bool = False,
    with_history: bool = False,
) -> list[dict[str, Any]]:
    """The records to export, oldest id first (this scope, or every scope)."""
    where, params = filter_clause(filters or Filters(), store.now())
    if not all_scopes:
        scope_sql, scope_params = store.scope_clause()
        where = f"{scope_sql} AND {where}"
        params.update(scope_params)
    try:
        rows = store.connection.execute(
            f"SELECT m.* FROM memories m WHERE {where} ORDER BY m.id", params
        ).fetchall()
        records = [store.row_to_memory(row).to_dict() for row in rows]
        if with_history:
            versions = _history_by_memory(store.connection, [r["id"] for r in records])
            for record in records:
                record["history"] = versions.get(record["id"], [])
    except sqlite3.Error as exc:
        raise map_error(exc, store.path) from None
    return records


def _history_by_memory(conn: sqlite3.Connection, ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    wanted = set(ids)
    versions: dict[int, list[dict[str, Any]]] = {}
    for row in conn.execute("SELECT * FROM memory_history ORDER BY memory_id, id"):
        if row["memory_id"] not in wanted:
            continue
        entries = versions.setdefault(row["memory_id"], [])
        entries.append(
            {
                "version": len(entries) + 1,
                "content": row["content"],
                "category": row["category"],
                "tags": json.loads(row["tags"]),
                "key": row["key"],
                "importance": row["importance"],
                "pinned": bool(row["pinned"]),
                "meta": json.loads(row["meta"]),
                "expires_at": row["expires_at"],
                "valid_from": row["valid_from"],
                "valid_to": row["valid_to"],
                "change": row["change"],
            }
        )
    return versions


def write_export(records: list[dict[str, Any]], fmt: str, out: IO[str]) -> None:
    """Write ``records`` to ``out`` in one of EXPORT_FORMATS."""
    if fmt == "jsonl":
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    elif fmt == "json":
        out.write(json.dumps(records, ensure_ascii=False, indent=2) + "\n")
    elif fmt == "csv":
        _write_csv(records, out)
    elif fmt == "markdown":
        out.write(to_markdown(records))
    else:
        raise InvalidInputError(f"unknown export format {fmt!r} (use {', '.join(EXPORT_FORMATS)})")


def _write_csv(records: list[dict[str, Any]], out: IO[str]) -> None:
    columns = list(MEMORY_FIELDS) + (["history"] if records and "history" in records[0] else [])
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        cells = []
        for name in columns:
            value = record.get(name)
            if value is None:
                cells.append("")
            elif isinstance(value, bool):
                cells.append("true" if value else "false")
            elif isinstance(value, (list, dict)):
                cells.append(json.dumps(value, ensure_ascii=False))
            else:
                cells.append(str(value))
        writer.writerow(cells)


def to_markdown(records: list[dict[str, Any]]) -> str:
    """A document for people: one section per category, one bullet per memory."""
    lines = ["# zeromem memories", ""]
    if not records:
        lines += ["_No memories._", ""]
    by_category: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_category.setdefault(record["category"], []).append(record)
    for category in sorted(by_category):
        items = by_category[category]
        lines += [f"## {category} ({len(items)})", ""]
        for record in items:
            text = record["content"].replace("\n", "\n  ")
            details = [f"#{record['id']}"]
            if record["pinned"]:
                details.append("pinned")
            if record["key"]:
                details.append(f"key `{record['key']}`")
            if record["tags"]:
                details.append("tags " + ", ".join(record["tags"]))
            details.append(f"importance {record['importance']}")
            scope = [f"{n} {record[n]}" for n in ("user", "agent", "session") if record[n]]
            details += scope
            details.append(f"added {record['created_at'][:10]}")
            if record["expires_at"]:
                details.append(f"expires {record['expires_at'][:10]}")
            if record["deleted_at"]:
                details.append(f"forgotten {record['deleted_at'][:10]}")
            lines.append(f"- {text}")
            lines.append(f"  <sub>{' · '.join(details)}</sub>")
        lines.append("")
    return "\n".join(lines)


def write_atomically(path: Path, write: Callable[[IO[str]], None]) -> None:
    """Write a file via a private temporary file in the same folder, then rename it in place:
    readers see the old file or the complete new one, never half a file."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InvalidInputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


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
    scope: tuple[str, str, str]
    key: tuple[str, str, str, str] | None  # its live key, if any
    pending: ImportRecord | None = None  # set when the memory comes from this import


class _Plan:
    """Conflict resolution in memory, before anything is written."""

    def __init__(self, store: MemoryStore, on_conflict: str) -> None:
        self.on_conflict = on_conflict
        self.by_uid: dict[str, _Existing] = {}
        self.live_keys: dict[tuple[str, str, str, str], str] = {}  # -> uid
        self.used_ids: set[int] = set()
        for row in store.connection.execute(
            "SELECT id, uid, user, agent, session, key, deleted_at FROM memories"
        ):
            scope = (row[2], row[3], row[4])
            key = (*scope, row[5]) if row[5] is not None and row[6] is None else None
            uid = uid_from_db(row[1])
            self.by_uid[uid] = _Existing(row[0], uid, scope, key)
            self.used_ids.add(row[0])
            if key is not None:
                self.live_keys[key] = uid
        self.next_id = max(self.used_ids, default=0) + 1
        self.inserts: dict[str, ImportRecord] = {}  # uid -> record, in file order
        self.updates: list[tuple[int, ImportRecord]] = []

    @staticmethod
    def _key_of(record: ImportRecord) -> tuple[str, str, str, str] | None:
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

    def _insert(self, record: ImportRecord, key: tuple[str, str, str, str] | None) -> None:
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

    def _update(
        self, target: _Existing, record: ImportRecord, key: tuple[str, str, str, str] | None
    ) -> None:
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


def import_text(
    store: MemoryStore,
    text: str,
    fmt: str,
    *,
    on_conflict: str = "skip",
    skip_invalid: bool = False,
    all_scopes: bool = False,
    dry_run: bool = False,
    allow_secret: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Import the records of ``text`` (in ``fmt``) into ``store``; see the module docstring."""
    return import_records(
        store,
        parse(text, fmt),
        on_conflict=on_conflict,
        skip_invalid=skip_invalid,
        all_scopes=all_scopes,
        dry_run=dry_run,
        progress=progress,
        allow_secret=allow_secret,
    )


class _DryRun(Exception):
    pass


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector for a bulk import.

    An import builds hundreds of thousands of dicts and lists that live until it ends, and none
    of them form cycles; the collector would walk them all again and again as they accumulate
    (~10% of an import's time at 100k records). Reference counting still frees everything.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def import_records(
    store: MemoryStore,
    raw_records: Iterable[tuple[str, Any]],
    *,
    on_conflict: str = "skip",
    skip_invalid: bool = False,
    all_scopes: bool = False,
    dry_run: bool = False,
    allow_secret: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    if on_conflict not in CONFLICT_POLICIES:
        raise InvalidInputError(
            f"--on-conflict must be one of {', '.join(CONFLICT_POLICIES)}, not {on_conflict!r}"
        )
    with _without_cycle_collection():
        return _import_records(
            store,
            raw_records,
            on_conflict=on_conflict,
            skip_invalid=skip_invalid,
            all_scopes=all_scopes,
            dry_run=dry_run,
            allow_secret=allow_secret,
            progress=progress,
        )


def _import_records(
    store: MemoryStore,
    raw_records: Iterable[tuple[str, Any]],
    *,
    on_conflict: str,
    skip_invalid: bool,
    all_scopes: bool,
    dry_run: bool,
    allow_secret: bool,
    progress: Progress | None,
) -> ImportReport:
    raw = list(raw_records)
    total = len(raw)
    report = ImportReport(read=total, dry_run=dry_run)
    now = to_iso(store.now())
    scope = None if all_scopes else store.scope
    validated: list[ImportRecord] = []
    clean = store.validated_content
    for done, (where, item) in enumerate(raw, start=1):
        try:
            validated.append(
                validate_record(
                    item,
                    where,
                    clean=clean,
                    scope=scope,
                    now=now,
                    allow_secret=allow_secret,
                )
            )
        except RecordError as exc:
            report.invalid.append(exc)
        if progress is not None and done % 1000 == 0:
            progress(done, total * 2)
    if report.invalid and not skip_invalid:
        raise InvalidRecordsError(report.invalid)
    conn = store.connection
    cache_size = conn.execute("PRAGMA cache_size").fetchone()[0]
    # A larger page cache for the many index b-tree inserts of a bulk import (~35% faster).
    conn.execute(f"PRAGMA cache_size = {IMPORT_CACHE_KIB}")
    try:
        with store.transaction() as conn:
            plan = _Plan(store, on_conflict)
            for record in validated:
                try:
                    plan.add(record, report)
                except RecordError as exc:
                    report.invalid.append(exc)
            if report.invalid and not skip_invalid:
                raise InvalidRecordsError(report.invalid)
            _apply(store, conn, plan, report, progress, total)
            if dry_run:
                raise _DryRun
    except _DryRun:
        pass
    finally:
        conn.execute(f"PRAGMA cache_size = {int(cache_size)}")
    if progress is not None:
        progress(total * 2, total * 2)
    return report


# The INSERT parameters of a record, built for the sqlite3 module's fast path: it binds an
# exact int, float, str or bytearray directly, but looks up an adapter for anything else,
# None and bytes included (raising and clearing an AttributeError or two each time: ~3% of
# a bulk import). So the uid is bound as a bytearray (stored as the same BLOB), and the
# columns that may be NULL as '' turned back into NULL by NULLIF: none of them is ever ''
# (keys and labels are never empty, times are ISO-8601, deleted_reason is a name).
_NULLABLE = ("key", "expires_at", "last_accessed_at", "deleted_at", "deleted_reason")
_REQUIRED = tuple(c for c in COLUMNS if c not in _NULLABLE and c != "uid")
_INSERTED = (*_REQUIRED, *_NULLABLE, "uid")
_INSERT_VALUES = ", ".join(["?"] * len(_REQUIRED) + ["NULLIF(?, '')"] * len(_NULLABLE) + ["?"])
_required_values = itemgetter(*_REQUIRED)


def _stored(values: dict[str, Any]) -> tuple[Any, ...]:
    """The INSERT parameters of one record (columns in ``_INSERTED`` order)."""
    return (
        *_required_values(values),
        values["key"] or "",
        values["expires_at"] or "",
        values["last_accessed_at"] or "",
        values["deleted_at"] or "",
        values["deleted_reason"] or "",
        bytearray(uid_to_db(values["uid"])),
    )


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
    conn: sqlite3.Connection,
    plan: _Plan,
    report: ImportReport,
    progress: Progress | None,
    total: int,
) -> None:
    """Write the plan: updates first (they may free keys), then inserts in batches."""
    now = to_iso(store.now())
    for memory_id, record in plan.updates:
        row = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
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
        store.archive_version(conn, row, now, "import")
        store.drop_from_index(conn, [row])
        try:
            conn.execute(
                "UPDATE memories SET "
                + ", ".join(f"{name} = :{name}" for name in COLUMNS if name != "id")
                + " WHERE id = :id",
                merged,
            )
        except sqlite3.IntegrityError as exc:
            raise RecordError(
                record.where, "key", f"conflicts with another memory ({exc})"
            ) from None
        store.index_rows(conn, [merged])
    records = list(plan.inserts.values())
    if not records:
        return
    with fts.bulk_loading(conn):
        _insert_new(store, conn, records, progress, total)


def _insert_new(
    store: MemoryStore,
    conn: sqlite3.Connection,
    records: list[ImportRecord],
    progress: Progress | None,
    total: int,
) -> None:
    """Insert new memories, their index entries and history, in batches."""
    insert_sql = f"INSERT INTO memories ({', '.join(_INSERTED)}) VALUES ({_INSERT_VALUES})"
    history_sql = (
        f"INSERT INTO memory_history ({', '.join(_HISTORY_COLUMNS)}) "
        f"VALUES ({', '.join('?' for _ in _HISTORY_COLUMNS)})"
    )
    done = 0
    for batch in _batches(records):
        rows = [record.values for record in batch]
        try:
            conn.executemany(insert_sql, [_stored(v) for v in rows])
        except sqlite3.IntegrityError as exc:
            raise InvalidInputError(f"import conflicts with the database: {exc}") from None
        fts.index_rows(conn, rows, [_content_index_text(record) for record in batch])
        history = [
            (record.values["id"], *(entry[c] for c in _HISTORY_COLUMNS[1:]))
            for record in batch
            for entry in record.history
        ]
        if history:
            conn.executemany(history_sql, history)
        done += len(batch)
        if progress is not None:
            progress(total + done * total // max(len(records), 1), total * 2)
