"""Schema migrations on real SQLite files (system layer): a database written at every earlier
version upgrades to exactly the schema of a fresh one, keeping every memory, its history and
its searchability; single steps (the live-expiry and pinned-rank indexes) upgrade the previous
schema in place and their query plans use them; a newer schema is refused untouched; a changed
segmentation rebuilds the index; a long upgrade is announced (the CLI prints the store's notice).

System, not core: these build old-schema files with raw sqlite3, read ``sqlite_master``,
PRAGMAs and query plans, and patch the migration list. They test how the SQLite backend lays
out and upgrades its files; a second backend brings its own migrations and its own such tests,
while the backend-neutral contract (tests/core) never sees a schema.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.conftest import index_names
from zeromem_cli import MemoryStore, SchemaError
from zeromem_cli.models import Filters
from zeromem_cli.storage.sqlite import migrations as migrations_module
from zeromem_cli.storage.sqlite import schema
from zeromem_cli.storage.sqlite.migrations import LATEST_VERSION, MIGRATIONS
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
    blob_uids = version > MIGRATIONS.index(migrations_module.m007_uid_blob)
    for mid, uid, content, category, tags, key, deleted in rows:
        stored_uid: str | bytes = uuid.UUID(uid).bytes if blob_uids else uid
        conn.execute(
            "INSERT INTO memories (id, uid, content, content_hash, category, tags, key, "
            "created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                mid,
                stored_uid,
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
        assert [r["uid"] for r in store.export(Filters(include_deleted=True))] == [
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
    _database_at(old, MIGRATIONS.index(migrations_module.m007_uid_blob))
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
    from zeromem_cli.storage.sqlite import migrations

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


# -- fresh and newer schemas, index version -------------------------------------------------


def test_fresh_database_has_the_expected_schema(store: MemoryStore) -> None:
    conn = store.connection
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"memories", "memories_fts", "memory_history", "store_meta"} <= names
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    columns = [r[1] for r in conn.execute("PRAGMA table_info(memories)")]
    for name in ("uid", "content", "key", "user", "agent", "session", "expires_at", "deleted_at"):
        assert name in columns


def test_a_newer_schema_is_refused_and_unchanged(db_path: Path) -> None:
    with MemoryStore(db_path) as store:
        store.add("kept")
    conn = sqlite3.connect(db_path)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 5}")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaError, match="newer"):
        MemoryStore(db_path)
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION + 5
    assert conn.execute("SELECT content FROM memories").fetchall() == [("kept",)]
    conn.close()


def test_index_is_rebuilt_when_the_segmentation_version_changes(db_path: Path) -> None:
    with MemoryStore(db_path) as store:
        store.add("周报发送时间改为每周五下午五点")
        store.connection.execute("UPDATE store_meta SET value = '0' WHERE key = 'index_version'")
        store.connection.execute("INSERT INTO memories_fts(memories_fts) VALUES ('delete-all')")
        assert store.search("周报") == []
    with MemoryStore(db_path) as reopened:
        assert [h.content for h in reopened.search("周报")] == ["周报发送时间改为每周五下午五点"]


# -- single steps: the previous schema upgrades in place ----------------------------------------


def _old_rows(
    path: Path,
    steps: list,  # type: ignore[type-arg]
    rows: list[tuple[str, int, int, str | None]],
    at: datetime,
) -> None:
    """A database at the schema of ``steps`` holding ``rows`` (content, pinned, importance,
    expires_at), written and indexed as zeromem then wrote them (today's code writes columns
    an old schema lacks)."""
    from zeromem_cli.storage.sqlite import fts

    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    for step in steps:
        step(conn)
    conn.execute(f"PRAGMA user_version = {len(steps)}")
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    for number, (content, pinned, importance, expires_at) in enumerate(rows, start=1):
        conn.execute(
            "INSERT INTO memories (id, uid, content, content_hash, pinned, importance, "
            "expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                number,
                str(uuid.uuid4()),
                content,
                number,
                pinned,
                importance,
                expires_at,
                stamp,
                stamp,
            ),
        )
        row = conn.execute("SELECT * FROM memories WHERE id = ?", (number,)).fetchone()
        fts.index_row(conn, row)
    conn.close()


def test_previous_schema_gains_the_live_expiry_index_and_keeps_its_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    previous = migrations_module.MIGRATIONS[
        : migrations_module.MIGRATIONS.index(migrations_module.m005_live_expiry_index)
    ]
    _old_rows(
        path,
        previous,
        [("expires soon", 0, 5, "2026-01-01T01:00:00Z"), ("stays", 0, 5, None)],
        start,
    )
    assert "idx_memories_expires" in index_names(path)

    later = start + timedelta(days=1)
    with MemoryStore(path, clock=lambda: later) as store:
        assert "idx_memories_live_expires" in index_names(path)
        assert "idx_memories_expires" not in index_names(path)
        plan = store.connection.execute(
            "EXPLAIN QUERY PLAN SELECT m.id FROM memories m WHERE m.deleted_at IS NULL "
            "AND m.expires_at IS NOT NULL AND m.expires_at <= ?",
            ("2030",),
        ).fetchall()
        assert any("idx_memories_live_expires" in row[3] for row in plan)
        assert store.gc().expired == 1
        assert [m.content for m in store.list()] == ["stays"]
        assert store.gc().expired == 0


def _pinned_plan(store: MemoryStore) -> str:
    """The query plan of pack's pinned read (the store's own SQL, through EXPLAIN)."""
    conn = store.connection
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        store._pack_candidates(10, pinned_only=True, pinned_limit=3)
    finally:
        conn.set_trace_callback(None)
    pinned = next(sql for sql in statements if "pinned = 1" in sql)
    rows = conn.execute("EXPLAIN QUERY PLAN " + pinned).fetchall()
    return " | ".join(row[3] for row in rows)


def test_previous_schema_gains_the_pinned_rank_index_and_keeps_the_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    previous = migrations_module.MIGRATIONS[
        : migrations_module.MIGRATIONS.index(migrations_module.m006_pinned_rank_index)
    ]
    rows = [(f"pinned fact {n}", 1, imp, None) for n, imp in enumerate((3, 9, 9, 1, 7))]
    _old_rows(path, previous, [*rows, ("not pinned", 0, 10, None)], datetime.now(timezone.utc))
    assert "idx_memories_scope_pinned" in index_names(path)

    with MemoryStore(path) as store:
        assert "idx_memories_pinned_rank" in index_names(path)
        assert "idx_memories_scope_pinned" not in index_names(path)
        plan = _pinned_plan(store)
        # Read in rank order; the one sort merges at most the limit's rows of each owner.
        assert "idx_memories_pinned_rank" in plan and plan.count("TEMP B-TREE") == 1
        pinned = store._pack_candidates(10, pinned_only=True, pinned_limit=3)
        # Most important first; equal importance: the newer (higher id, same second) first.
        assert [m.content for m in pinned] == ["pinned fact 2", "pinned fact 1", "pinned fact 4"]


def test_previous_schema_gains_the_project_scope_and_no_memory_changes_owner(
    tmp_path: Path,
) -> None:
    """Schema 8: every memory keeps its user, agent and session and gets no project; a new
    session of its user reads it, another user never does; the same key held by two sessions
    (allowed before) stays, and a key write updates the newest of them."""
    path = tmp_path / "v7.db"
    _database_at(path, LATEST_VERSION - 1)
    conn = sqlite3.connect(path, isolation_level=None)
    scoped = [
        (10, "alice", "", "s1", "editor", "Alice's editor is vim", "2026-01-01T00:00:00Z"),
        (11, "alice", "bot", "s2", "editor", "Alice's editor is helix", "2026-01-03T00:00:00Z"),
        (12, "bob", "", "s1", None, "Bob's editor is emacs", "2026-01-02T00:00:00Z"),
    ]
    for mid, user, agent, session, key, content, at in scoped:
        conn.execute(
            "INSERT INTO memories (id, uid, content, content_hash, key, user, agent, session, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                mid,
                f"00000000-0000-4000-8000-0000000000{mid}",
                content,
                mid,
                key,
                user,
                agent,
                session,
                at,
                at,
            ),
        )
    conn.close()

    with MemoryStore(path, user="alice", session="s3") as alice:
        owners = alice.connection.execute(
            "SELECT id, user, agent, session, project FROM memories WHERE id >= 10 ORDER BY id"
        ).fetchall()
        assert [tuple(row) for row in owners] == [
            (10, "alice", "", "s1", ""),
            (11, "alice", "bot", "s2", ""),
            (12, "bob", "", "s1", ""),
        ]
        assert {m.id for m in alice.search("editor")} == {10, 11}  # both earlier sessions
        updated = alice.write("Alice's editor is zed", key="editor")
        assert updated.action == "updated" and updated.memory.id == 11
        assert alice.get(10).content == "Alice's editor is vim"
    with MemoryStore(path, user="alice", session="s1", isolate=True) as exact:
        assert [m.id for m in exact.list()] == [10]  # the old exact scope, on request
    with MemoryStore(path, user="bob") as bob:
        assert [m.id for m in bob.search("editor")] == [12]
    assert {"idx_memories_owner_importance", "idx_memories_owner_hash"} <= index_names(path)
    assert "idx_memories_scope_hash" not in index_names(path)


def _key_plans(store: MemoryStore, key: str) -> list[str]:
    """The query plans of the store's own look-ups by key (``list --key``, a keyed write)."""
    conn = store.connection
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        assert store.list(limit=1, filters=Filters(key=key)), key
        assert store.write("Weekly report goes out Mondays", key=key).action == "updated"
    finally:
        conn.set_trace_callback(None)
    keyed = [sql for sql in statements if sql.startswith("SELECT") and "m.key =" in sql]
    assert len(keyed) >= 2, statements
    return [
        " | ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql)) for sql in keyed
    ]


def test_previous_schema_gains_the_key_first_index_and_keeps_keys_unique(tmp_path: Path) -> None:
    """Schema 10 (#33): a key is found through the index by owner and key, not by walking
    every keyed memory of the owner (agent and session came before the key); one live memory
    per key and scope holds as before, and two sessions of an owner may each hold one."""
    path = tmp_path / "v9.db"
    _database_at(path, MIGRATIONS.index(migrations_module.m010_key_first_index))
    conn = sqlite3.connect(path)
    before = [r[2] for r in conn.execute("PRAGMA index_info(idx_memories_live_key)")]
    conn.close()
    assert before == ["user", "project", "agent", "session", "key"]
    with MemoryStore(path) as store:
        for plan in _key_plans(store, "report"):
            assert "idx_memories_live_key (user=? AND project=? AND key=?)" in plan, plan
        assert [m.content for m in store.list(filters=Filters(key="report"))] == [
            "Weekly report goes out Mondays"
        ]
        with pytest.raises(sqlite3.IntegrityError):  # the index still makes keys unique
            store.connection.execute(
                "INSERT INTO memories (uid, content, content_hash, key, created_at, updated_at) "
                "VALUES (x'00', 'a second report', 7, 'report', '2026', '2026')"
            )
    for session in ("s1", "s2"):
        with MemoryStore(path, session=session, isolate=True) as own:
            own.write(f"report from {session}", key="weekly")
    with MemoryStore(path) as store:
        assert len(store.list(filters=Filters(key="weekly"))) == 2


def _plans(store: MemoryStore, read: Callable[[], object]) -> list[str]:
    """The query plans of the SELECTs ``read`` runs (the store's own SQL, through EXPLAIN)."""
    conn = store.connection
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        read()
    finally:
        conn.set_trace_callback(None)
    return [
        " | ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql))
        for sql in statements
        if sql.lstrip().upper().startswith("SELECT")
    ]


def test_previous_schema_gains_the_owner_importance_indexes_and_keeps_every_row(
    tmp_path: Path,
) -> None:
    """Schema 11, after schema 10's key-first index: the owner indexes serve pack's and
    list's orders; every row is kept and the live-key index stays key-first."""
    path = tmp_path / "old.db"
    previous = migrations_module.MIGRATIONS[
        : migrations_module.MIGRATIONS.index(migrations_module.m011_owner_importance_index)
    ]
    rows = [(f"fact {n}", int(n == 3), n % 11, None) for n in range(30)]
    _old_rows(path, previous, rows, datetime(2026, 1, 1, tzinfo=timezone.utc))
    assert {"idx_memories_owner_created", "idx_memories_scope_created"} <= index_names(path)

    with MemoryStore(path) as store:
        names = index_names(path)
        assert {"idx_memories_owner_created", "idx_memories_scope_created"}.isdisjoint(names)
        assert {
            "idx_memories_owner_importance",
            "idx_memories_owner_changed",
            "idx_memories_origin_created",
        } <= names
        assert sorted(m.content for m in store.list()) == sorted(r[0] for r in rows)
        # Newest first: same second, so the higher id first.
        assert [m.content for m in store.list(limit=3)] == ["fact 29", "fact 28", "fact 27"]
        # Without a query, pack reads each owner in order from an index: no sort of a whole
        # owner, the one sort of each read merges the few rows the ordered reads gave.
        plans = _plans(store, lambda: store.pack(budget=300, pool=5, touch=False))
        assert len(plans) == 3  # pinned, most important, most recent
        for plan in plans:
            assert "SCAN m " not in plan and plan.count("TEMP B-TREE") == 1, plan
        assert "idx_memories_owner_importance (user=? AND project=? AND importance=?)" in plans[2]
        result = store.pack(budget=2000, pool=5, touch=False)
        assert result.memories[0].content == "fact 3"  # pinned
        assert "fact 21" in {m.content for m in result.memories}  # importance 10, newest
    conn = sqlite3.connect(path)
    live_key = [r[2] for r in conn.execute("PRAGMA index_info(idx_memories_live_key)")]
    conn.close()
    assert live_key == ["user", "project", "key", "agent", "session"]  # m010 kept


def test_the_version_an_open_reads_is_the_number_of_steps() -> None:
    # Opening a current store reads only ``schema`` (not the steps): its version must be theirs.
    assert schema.LATEST_VERSION == LATEST_VERSION == len(MIGRATIONS)
