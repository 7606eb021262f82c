"""The pinned-rank index migration: pack's pinned memories come from an index in pack's order,
with no sort, and a database of the previous schema upgrades in place."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import index_names
from zeromem_cli import MemoryStore
from zeromem_cli.storage import migrations as migrations_module


def _pinned_plan(store: MemoryStore) -> str:
    """The query plan of pack's pinned read (the store's own SQL, through EXPLAIN)."""
    conn = store.connection
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        store.pack_candidates(10, pinned_only=True, pinned_limit=3)
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
    monkeypatch.setattr(migrations_module, "MIGRATIONS", previous)
    monkeypatch.setattr(migrations_module, "LATEST_VERSION", len(previous))
    with MemoryStore(path) as store:
        for number, importance in enumerate((3, 9, 9, 1, 7)):
            store.add(f"pinned fact {number}", pinned=True, importance=importance)
        store.add("not pinned", importance=10)
    assert "idx_memories_scope_pinned" in index_names(path)
    monkeypatch.undo()

    with MemoryStore(path) as store:
        assert "idx_memories_pinned_rank" in index_names(path)
        assert "idx_memories_scope_pinned" not in index_names(path)
        plan = _pinned_plan(store)
        assert "idx_memories_pinned_rank" in plan and "TEMP B-TREE" not in plan
        pinned = store.pack_candidates(10, pinned_only=True, pinned_limit=3)
        # Most important first; equal importance: the newer (higher id, same second) first.
        assert [m.content for m in pinned] == ["pinned fact 2", "pinned fact 1", "pinned fact 4"]
