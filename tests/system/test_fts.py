"""The FTS5 index (``storage.fts``) through a real store: what each memory contributes to each
column, that a change or a forget leaves no stale entry, and that bulk import indexes exactly
what ``add`` indexes and puts the index's settings back.

System layer: the index is read with plain sqlite3 (``fts5vocab`` over ``memories_fts``), the
SQLite backend's own layout. What a user can find through ``MemoryStore.search`` is core
(tests/core/test_search.py, test_cjk_index.py).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.conftest import Run, as_json
from zeromem_cli import MemoryStore

# -- an imported store is the store ``add`` builds ---------------------------------------------

RECORDS = [
    {"content": "周报每周五下午五点发送，抄送张三：记得附上图表", "tags": ["周报", "work"]},
    {"content": "Ｆｕｌｌ－ｗｉｄｔｈ　ｔｅｘｔ，ＮＦＫＣ", "category": "note", "key": "wide"},
    {"content": "Café Zürich opens at 8; deploy🤖bot runs nightly", "tags": ["café", "ops"]},
    {"content": "明日の会議は10時から、ガ行のテスト", "category": "日程", "tags": ["会議"]},
    {"content": "plain ascii memory about PostgreSQL", "tags": ["db", "work"]},
    {"content": "猫", "category": "fact", "key": "单字"},
    {"content": "another 周报 note with the same tags", "tags": ["周报", "work"]},
]


def _vocabulary(path: Path) -> list[tuple[object, ...]]:
    """Every token the FTS index holds: (term, memory id, column, position)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute(
            "CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, memories_fts, instance)"
        )
        return conn.execute(
            "SELECT term, doc, col, offset FROM vocab ORDER BY 1, 2, 3, 4"
        ).fetchall()
    finally:
        conn.close()


def test_import_indexes_exactly_what_add_indexes(cli: Run, db_path: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS), "utf-8")
    assert as_json(cli("import", str(source), "--json"))["added"] == len(RECORDS)
    added = tmp_path / "added.db"
    with MemoryStore(added) as store:
        for record in RECORDS:
            store.add(
                str(record["content"]),
                category=record.get("category"),  # type: ignore[arg-type]
                tags=record.get("tags"),  # type: ignore[arg-type]
                key=record.get("key"),  # type: ignore[arg-type]
            )
    assert _vocabulary(db_path) == _vocabulary(added)
    with MemoryStore(db_path) as imported, MemoryStore(added) as reference:
        for query in ("周报", "猫", "full width", "cafe", "会議", "work", "单字", "ガ"):
            assert [m.content for m in imported.search(query)] == [
                m.content for m in reference.search(query)
            ]
        assert [(m.content, m.tags, m.key) for m in imported.list(limit=None)] == [
            (m.content, m.tags, m.key) for m in reference.list(limit=None)
        ]


def test_bulk_index_settings_are_put_back(cli: Run, db_path: Path, tmp_path: Path) -> None:
    """Import enlarges FTS5's pending-terms hash while it writes; afterwards the index's
    config is as before (no setting left behind) and the index is sound."""
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS), "utf-8")

    def config() -> list[tuple[object, ...]]:
        conn = sqlite3.connect(db_path)
        try:
            conn.execute(
                "INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)"
            )
            return conn.execute("SELECT k, v FROM memories_fts_config ORDER BY k").fetchall()
        finally:
            conn.close()

    cli("add", "before the import")
    before = config()
    assert as_json(cli("import", str(source), "--json"))["added"] == len(RECORDS)
    assert config() == before
    assert as_json(cli("import", str(source), "--on-conflict", "duplicate", "--json"))["added"]
    assert config() == before
