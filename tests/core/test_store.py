"""The library API on real SQLite files (core: the public MemoryStore contract)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from zeromem_cli import (
    InvalidInputError,
    MemoryStore,
    NotFoundError,
    StoreError,
    StoreSettings,
)


def test_library_round_trip(store: MemoryStore) -> None:
    m = store.add("text", category="fact", tags=["a"], key=None, meta={"source": "x"}, user=None)
    hits = store.search("text", limit=10)
    assert [h.id for h in hits] == [m.id] and hits[0].score is not None
    assert hits[0].meta == {"source": "x"}
    store.update(m.id, content="new text")
    assert store.get(m.id).content == "new text"
    assert store.forget(m.id) == 1
    with pytest.raises(NotFoundError):
        store.get(m.id)
    assert store.get(m.id, include_deleted=True).deleted_at is not None


def test_default_location_is_created_on_first_use(isolated_home: Path) -> None:
    with MemoryStore() as opened:
        opened.add("first")
    assert (isolated_home / "memories.db").is_file()


def test_key_is_unique_per_scope_and_upserts(store: MemoryStore) -> None:
    first = store.write("Report due Friday", key="report_day")
    second = store.write("Report due Thursday", key="report_day")
    assert (first.action, second.action) == ("added", "updated")
    assert second.memory.id == first.memory.id
    assert [e.content for e in store.history(first.memory.id)] == [
        "Report due Friday",
        "Report due Thursday",
    ]
    other = store.scoped(user="alice").write("Alice's report day", key="report_day")
    assert other.action == "added" and other.memory.id != first.memory.id


def test_identical_content_is_a_duplicate(store: MemoryStore) -> None:
    first = store.write("Café  Zürich opens at 8")
    again = store.write("café zürich OPENS at 8")
    assert again.action == "duplicate" and again.memory.id == first.memory.id
    forced = store.write("café zürich OPENS at 8", allow_duplicate=True)
    assert forced.action == "added"


def test_update_rejects_a_key_taken_by_another_memory(store: MemoryStore) -> None:
    store.add("one", key="k1")
    second = store.add("two", key="k2")
    with pytest.raises(InvalidInputError):
        store.update(second.id, key="k1")
    assert store.get(second.id).key == "k2"


def test_expired_memories_are_invisible_without_gc(db_path: Path) -> None:
    now = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    with MemoryStore(db_path, clock=lambda: now[0]) as store:
        m = store.add("short lived", ttl="1h")
        assert [h.id for h in store.search("short lived")] == [m.id]
        now[0] += timedelta(hours=2)
        assert store.search("short lived") == []
        assert store.list() == []
        with pytest.raises(NotFoundError):
            store.get(m.id)
        assert store.get(m.id, include_expired=True).id == m.id


def test_content_over_the_limit_is_rejected(db_path: Path) -> None:
    with MemoryStore(db_path, settings=StoreSettings(max_content_bytes=100)) as store:
        with pytest.raises(InvalidInputError, match="100 bytes"):
            store.add("x" * 101)
        assert store.count() == 0


def test_control_characters_are_removed(store: MemoryStore) -> None:
    m = store.add("bell\x07 and nul\x00 and esc\x1b[31m\r\nnext line\tok")
    assert m.content == "bell and nul and esc[31m\nnext line\tok"


def test_not_a_sqlite_file_is_refused_and_untouched(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    target.write_bytes(b"these are my precious notes\n" * 10)
    before = hashlib.sha256(target.read_bytes()).hexdigest()
    with pytest.raises(StoreError, match="not a SQLite database"):
        MemoryStore(target)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == before
    assert not (tmp_path / "notes.txt-wal").exists()


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="directory"):
        MemoryStore(tmp_path)


@pytest.mark.skipif(not hasattr(__import__("os"), "getuid"), reason="POSIX permissions")
def test_files_are_private(tmp_path: Path) -> None:
    target = tmp_path / "new-dir" / "m.db"
    with MemoryStore(target) as store:
        store.add("private")
    assert (target.parent.stat().st_mode & 0o777) == 0o700
    for suffix in ("", "-wal", "-shm"):
        path = Path(str(target) + suffix)
        if path.exists():
            assert (path.stat().st_mode & 0o777) == 0o600, suffix


def test_key_upsert_keeps_fields_it_does_not_set(store: MemoryStore) -> None:
    first = store.add("Report Fridays", key="report", category="preference", tags=["work"])
    again = store.add("Report Thursdays", key="report")
    assert again.id == first.id
    assert (again.category, again.tags, again.content) == (
        "preference",
        ["work"],
        "Report Thursdays",
    )


def test_writing_a_key_with_the_same_content_is_a_duplicate_not_a_version(
    store: MemoryStore,
) -> None:
    first = store.write("Timezone is CET", key="timezone")
    again = store.write("Timezone is CET", key="timezone")
    assert again.action == "duplicate" and again.memory.id == first.memory.id
    assert len(store.history(first.memory.id)) == 1
