"""Schema migrations: a database written at every earlier version upgrades to exactly the
schema of a fresh one, keeping every memory, its history and its searchability."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from zeromem_cli import MemoryStore
from zeromem_cli.models import Filters
from zeromem_cli.storage.migrations import LATEST_VERSION, MIGRATIONS
from zeromem_cli.transfer.export import export_records
from zeromem_cli.transfer.imports import import_text

# uids as zeromem wrote them before they were stored as bytes: canonical UUID text.
UIDS = {
    1: "0b5e3f4a-7c1d-4e2f-9a3b-5c6d7e8f9a0b",
    2: "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
    3: "12345678-9abc-4def-8123-456789abcdef",
}


def _schema(path: Path) -> set[tuple[str, str]]:
    """Every table, index and trigger with its SQL, whitespace-normalised."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'"
        ).fetchall()
    finally:
        conn.close()
    return {(name, " ".join(sql.split())) for name, sql in rows}


def _database_at(path: Path, version: int) -> None:
    """A database as zeromem at schema ``version`` left it, holding a live, an updated and a
    forgotten memory (columns of the first schema only, which every version has)."""
    conn = sqlite3.connect(path, isolation_level=None)
    for step in MIGRATIONS[:version]:
        step(conn)
    conn.execute(f"PRAGMA user_version = {version}")
    rows = [
        (
            1,
            UIDS[1],
            "Weekly report goes out Fridays 17:00",
            "preference",
            '["work"]',
            "report",
            None,
        ),
        (2, UIDS[2], "周报发送时间改为每周五下午五点", "preference", "[]", None, None),
        (
            3,
            UIDS[3],
            "An old memory that was forgotten",
            "note",
            "[]",
            None,
            "2026-01-02T00:00:00Z",
        ),
    ]
    for mid, uid, content, category, tags, key, deleted in rows:
        conn.execute(
            "INSERT INTO memories (id, uid, content, content_hash, category, tags, key, "
            "created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                mid,
                uid,
                content,
                mid,
                category,
                tags,
                key,
                "2026-01-01T00:00:00Z",
                "2026-01-01T00:00:00Z",
                deleted,
            ),
        )
    conn.execute(
        "INSERT INTO memory_history (memory_id, content, category, tags, key, importance, pinned, "
        "meta, valid_from, valid_to, change) VALUES (1, 'Weekly report goes out Thursdays', "
        "'preference', '[]', 'report', 5, 0, '{}', '2025-12-01T00:00:00Z', "
        "'2026-01-01T00:00:00Z', 'update')"
    )
    conn.close()


@pytest.mark.parametrize("version", range(1, LATEST_VERSION))
def test_every_earlier_version_upgrades_without_loss(tmp_path: Path, version: int) -> None:
    fresh = tmp_path / "fresh.db"
    MemoryStore(fresh).close()
    old = tmp_path / f"v{version}.db"
    _database_at(old, version)

    with MemoryStore(old) as store:
        assert store.connection.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
        assert [m.id for m in store.list()] == [2, 1]
        assert [h.content for h in store.history(1)] == [
            "Weekly report goes out Thursdays",
            "Weekly report goes out Fridays 17:00",
        ]
        assert [m.id for m in store.search("weekly report")] == [1]
        assert [m.id for m in store.search("周报")] == [2]
        forgotten = store.get(3, include_deleted=True)
        assert forgotten.deleted_at == "2026-01-02T00:00:00Z"
        # The same uids, shown and exported as text, stored as 16 bytes, found by uid.
        assert {m.id: m.uid for m in store.list(filters=Filters(include_deleted=True))} == UIDS
        assert [r["uid"] for r in export_records(store, Filters(include_deleted=True))] == [
            UIDS[1],
            UIDS[2],
            UIDS[3],
        ]
        stored = store.connection.execute("SELECT typeof(uid), length(uid) FROM memories")
        assert {tuple(row) for row in stored} == {("blob", 16)}
        again = f'{{"uid": "{UIDS[1]}", "content": "Weekly report goes out Fridays 17:00"}}\n'
        assert import_text(store, again, "jsonl").skipped == 1
    assert _schema(old) == _schema(fresh)


def test_a_uid_that_is_not_a_uuid_survives_the_upgrade(tmp_path: Path) -> None:
    """Only a hand-edited database has one: it stays text and reads back unchanged."""
    old = tmp_path / "old.db"
    _database_at(old, LATEST_VERSION - 1)
    conn = sqlite3.connect(old)
    conn.execute("UPDATE memories SET uid = 'legacy-2' WHERE id = 2")
    conn.commit()
    conn.close()
    with MemoryStore(old) as store:
        assert {m.id: m.uid for m in store.list()} == {1: UIDS[1], 2: "legacy-2"}
        kinds = store.connection.execute("SELECT id, typeof(uid) FROM memories ORDER BY id")
        assert [tuple(row) for row in kinds] == [(1, "blob"), (2, "text"), (3, "blob")]


def test_a_fresh_database_is_at_the_latest_version(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    MemoryStore(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    conn.close()


def test_a_long_upgrade_is_announced_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a large store an upgrade takes a while: the CLI says so on stderr before it starts,
    and says nothing when there is nothing to do."""
    from typer.testing import CliRunner

    from zeromem_cli.cli import app
    from zeromem_cli.storage import migrations

    monkeypatch.setattr(migrations, "NOTICE_MIN_MEMORIES", 2)  # "large": the 3 memories here
    old = tmp_path / "old.db"
    _database_at(old, LATEST_VERSION - 1)
    conn = sqlite3.connect(old)
    with conn:  # as an earlier zeromem left it: indexed with an older segmentation
        conn.execute("INSERT INTO store_meta(key, value) VALUES ('index_version', '1')")
    conn.close()
    runner = CliRunner()
    first = runner.invoke(app, ["list", "--db", str(old)])
    assert first.exit_code == 0, first.stderr
    assert "zeromem: upgrading the database of 3 memories" in first.stderr
    assert "zeromem: rebuilding the search index of 3 memories" in first.stderr
    assert first.stdout.split() == [
        "2",
        "preference",
        "周报发送时间改为每周五下午五点",
        "1",
        "preference",
        "Weekly",
        "report",
        "goes",
        "out",
        "Fridays",
        "17:00",
    ]
    again = runner.invoke(app, ["list", "--db", str(old)])
    assert again.exit_code == 0 and again.stderr == ""
