"""The live-expiry index migration upgrades a database of the previous schema in place."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.conftest import index_names
from zeromem_cli import MemoryStore
from zeromem_cli.lifecycle import GcPolicy, collect_garbage
from zeromem_cli.storage import migrations as migrations_module


def test_previous_schema_gains_the_live_expiry_index_and_keeps_its_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    previous = migrations_module.MIGRATIONS[
        : migrations_module.MIGRATIONS.index(migrations_module.m005_live_expiry_index)
    ]
    monkeypatch.setattr(migrations_module, "MIGRATIONS", previous)
    monkeypatch.setattr(migrations_module, "LATEST_VERSION", len(previous))
    with MemoryStore(path, clock=lambda: start) as store:
        store.add("expires soon", ttl="1h")
        store.add("stays")
    assert "idx_memories_expires" in index_names(path)
    monkeypatch.undo()

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
        assert collect_garbage(store, GcPolicy()).expired == 1
        assert [m.content for m in store.list()] == ["stays"]
        assert collect_garbage(store, GcPolicy()).expired == 0
