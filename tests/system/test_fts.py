"""The FTS5 index (``storage.fts``) through a real store: what each memory contributes to each
column, that an update or a purge leaves no stale entry (a forget keeps its entries for
restore), that a rebuild and a bulk import index exactly what ``add`` indexes, and that
import puts the index's settings back.

System layer: the index is read with plain sqlite3 (``fts5vocab`` over ``memories_fts``), the
SQLite backend's own layout. What a user can find through ``MemoryStore.search`` is core
(tests/core/test_store_search.py, test_cjk_index.py).
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


# -- what each memory contributes, column by column --------------------------------------------


def _columns(path: Path) -> dict[str, set[str]]:
    """The terms of each FTS column (porter-stemmed and folded by the store's tokenizer)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.cols USING fts5vocab(main, memories_fts, col)")
        columns: dict[str, set[str]] = {}
        for term, column in conn.execute("SELECT term, col FROM cols"):
            columns.setdefault(column, set()).add(term)
        return columns
    finally:
        conn.close()


def test_each_column_holds_its_own_segmented_text(store: MemoryStore, db_path: Path) -> None:
    store.add(
        "Weekly reports go out",
        tags=["Work", "周报", "on call"],
        category="Préférence",
        key="deploy_list",
    )
    assert _columns(db_path) == {
        "content": {"weekli", "report", "go", "out"},
        "tags": {"work", "周报", "报", "on", "call"},  # every tag's words and grams
        "category": {"prefer"},  # folded and stemmed like content
        "key": {"deploi", "list"},  # the underscore separates words
    }


def test_a_memory_is_found_by_each_of_its_labels_alone(store: MemoryStore) -> None:
    by_tag = store.add("Staging database is db-2.internal", tags=["infra"])
    by_category = store.add("Lunch at noon", category="偏好")
    by_key = store.add("Deploys go through the pipeline", key="release_train")
    assert [m.id for m in store.search("infra")] == [by_tag.id]
    assert [m.id for m in store.search("偏好")] == [by_category.id]
    assert [m.id for m in store.search("release train")] == [by_key.id]
    # The raw FTS5 column filters see the same columns.
    assert [m.id for m in store.search("tags: infra", fts=True)] == [by_tag.id]
    assert store.search("content: infra", fts=True) == []


def test_an_update_leaves_exactly_the_index_of_the_new_version(
    store: MemoryStore, db_path: Path, tmp_path: Path
) -> None:
    memory = store.add("Weekly report Fridays", tags=["work"], category="note", key="report")
    store.add("an unrelated neighbour", tags=["other"])
    store.update(
        memory.id, content="周报每周五发送", tags=["周报", "team"], category="preference", key=None
    )
    fresh = tmp_path / "fresh.db"
    with MemoryStore(fresh) as reference:  # the same two memories, written once as they are now
        reference.add("周报每周五发送", tags=["周报", "team"], category="preference")
        reference.add("an unrelated neighbour", tags=["other"])
    assert _vocabulary(db_path) == _vocabulary(fresh)
    assert "report" not in _columns(db_path)["content"] and "key" not in _columns(db_path)


def test_forget_keeps_the_entries_for_restore_and_purge_removes_them(
    store: MemoryStore, db_path: Path
) -> None:
    kept = store.add("the neighbour stays", tags=["stay"])
    gone = store.add("Quokka habitat survey", tags=["zoology"], key="survey")
    store.forget(gone.id)
    assert store.search("quokka") == []  # hidden from search ...
    assert "quokka" in _columns(db_path)["content"]  # ... but still indexed
    store.restore(gone.id)
    assert [m.id for m in store.search("quokka")] == [gone.id]
    store.forget(gone.id)
    assert store.purge([gone.id]).purged == 1
    assert _columns(db_path) == {  # the neighbour's terms alone: "survey", "zoology" gone
        "content": {"the", "neighbour", "stai"},
        "tags": {"stai"},
        "category": {"gener"},  # its default category, "general"
    }
    assert [m.id for m in store.search("neighbour")] == [kept.id]


def test_a_rebuilt_index_is_the_index_written_row_by_row(db_path: Path) -> None:
    """A rebuild (after a segmentation change) indexes every row in one pass, segmenting each
    distinct label once: the index it leaves is the one the writes left."""
    with MemoryStore(db_path) as store:
        for record in RECORDS:
            store.add(
                str(record["content"]),
                category=record.get("category"),  # type: ignore[arg-type]
                tags=record.get("tags"),  # type: ignore[arg-type]
                key=record.get("key"),  # type: ignore[arg-type]
            )
    written = _vocabulary(db_path)
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("UPDATE store_meta SET value = '0' WHERE key = 'index_version'")
    conn.close()
    MemoryStore(db_path).close()  # reopening rebuilds
    assert _vocabulary(db_path) == written
    conn = sqlite3.connect(db_path)
    try:
        version = conn.execute("SELECT value FROM store_meta WHERE key = 'index_version'")
        assert version.fetchone()[0] != "0"
    finally:
        conn.close()
