"""A memory's uid is stored as 16 bytes and shown, exported and imported as canonical text;
absent values are stored as NULL.

System layer: each test reads the columns of the SQLite file with plain sqlite3 (and the uid
helpers of ``storage.uids``), the storage layout below the public API.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

import pytest

from tests.conftest import Run, as_json
from zeromem_cli import MemoryStore
from zeromem_cli.storage.uids import uid_from_db, uid_to_db

GIVEN = "3c90c3cc-0d44-4b50-8888-8dd25736052a"


def _stored(path: Path) -> list[tuple[int, str, int, bytes | str]]:
    """(id, typeof(uid), length(uid), uid) of every row, read with plain sqlite3."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT id, typeof(uid), length(uid), uid FROM memories ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


def test_uid_is_stored_as_16_bytes_and_shown_as_text(cli: Run, db_path: Path) -> None:
    added = as_json(cli("add", "Weekly report goes out Fridays", "--json"))
    uid = added["uid"]
    assert str(uuid.UUID(uid)) == uid  # canonical: lowercase, hyphenated
    [(memory_id, kind, length, raw)] = _stored(db_path)
    assert (memory_id, kind, length) == (added["id"], "blob", 16)
    assert raw == uuid.UUID(uid).bytes
    assert as_json(cli("show", str(memory_id), "--json"))["uid"] == uid
    assert [m["uid"] for m in as_json(cli("list", "--json"))] == [uid]
    assert [m["uid"] for m in as_json(cli("search", "weekly report", "--json"))] == [uid]
    exported = json.loads(cli("export").stdout.splitlines()[0])
    assert exported["uid"] == uid


def test_a_new_version_keeps_its_stored_uid(store: MemoryStore, db_path: Path) -> None:
    first = store.write("Report due Friday", key="report_day").memory
    second = store.write("Report due Thursday", key="report_day").memory
    assert second.uid == first.uid
    assert _stored(db_path) == [(first.id, "blob", 16, uuid.UUID(first.uid).bytes)]


def test_import_finds_memories_by_uid(cli: Run, db_path: Path) -> None:
    record = {"uid": GIVEN, "content": "Alice prefers tea", "tags": ["people"]}
    line = json.dumps(record) + "\n"
    assert as_json(cli("import", "-", "--json", input=line))["added"] == 1
    assert _stored(db_path) == [(1, "blob", 16, uuid.UUID(GIVEN).bytes)]
    # The same uid again: found in the database, so skipped, then updated in place.
    assert as_json(cli("import", "-", "--json", input=line))["skipped"] == 1
    changed = json.dumps({**record, "content": "Alice prefers green tea"}) + "\n"
    report = as_json(cli("import", "-", "--on-conflict", "update", "--json", input=changed))
    assert (report["added"], report["updated"]) == (0, 1)
    shown = as_json(cli("show", "1", "--json"))
    assert (shown["uid"], shown["content"]) == (GIVEN, "Alice prefers green tea")
    assert _stored(db_path) == [(1, "blob", 16, uuid.UUID(GIVEN).bytes)]
    # A uid written in another form (upper case, braces) is the same memory.
    other_form = json.dumps({**record, "uid": "{" + GIVEN.upper() + "}"}) + "\n"
    assert as_json(cli("import", "-", "--json", input=other_form))["skipped"] == 1
    # duplicate: a fresh uid, stored as bytes too.
    report = as_json(cli("import", "-", "--on-conflict", "duplicate", "--json", input=line))
    assert report["added"] == 1
    rows = _stored(db_path)
    assert [(kind, length) for _, kind, length, _ in rows] == [("blob", 16), ("blob", 16)]
    assert rows[1][3] != rows[0][3]


def test_uid_helpers_round_trip_and_refuse_non_uuids() -> None:
    for value in (GIVEN, str(uuid.uuid4()), "00000000-0000-0000-0000-000000000000"):
        assert uid_to_db(value) == uuid.UUID(value).bytes
        assert uid_from_db(uid_to_db(value)) == value
    assert uid_from_db("legacy-uid") == "legacy-uid"  # a text uid the migration left alone
    for bad in ("", "uid-1", GIVEN.replace("-", ""), GIVEN[:-1] + "g", GIVEN[:-2] + "  "):
        with pytest.raises(ValueError):
            uid_to_db(bad)


def test_imported_columns_keep_their_sql_types(cli: Run, db_path: Path) -> None:
    """Absent values are NULL (not ''), the uid a 16-byte BLOB, whatever the bind path."""
    records = [
        {"content": "no key, no times"},
        {
            "content": "all of them",
            "key": "k",
            "expires_at": "2099-01-01T00:00:00Z",
            "last_accessed_at": "2025-01-01T00:00:00Z",
            "deleted_at": "2025-02-01T00:00:00Z",
            "deleted_reason": "archived",
        },
    ]
    data = "".join(json.dumps(r) + "\n" for r in records)
    assert as_json(cli("import", "-", "--format", "jsonl", "--json", input=data))["added"] == 2
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute(
            "SELECT typeof(uid), length(uid), typeof(key), typeof(expires_at), "
            "typeof(last_accessed_at), typeof(deleted_at), typeof(deleted_reason) "
            "FROM memories ORDER BY id"
        ).fetchall()
    finally:
        conn.close()
    assert rows == [
        ("blob", 16, "null", "null", "null", "null", "null"),
        ("blob", 16, "text", "text", "text", "text", "text"),
    ]
