"""``ZeromemStore`` beyond LangGraph's own suite: how it maps onto zeromem's scopes, keys and
history, and what zeromem's rules add."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.frameworks.backends import either_backend  # noqa: F401  (db_path: both backends)
from zeromem_cli import MemoryStore
from zeromem_cli.errors import SecretDetectedError
from zeromem_cli.langgraph import ZeromemStore


@pytest.fixture
def lg(db_path: Path) -> ZeromemStore:
    with ZeromemStore(db_path, user="alice") as store:
        yield store  # type: ignore[misc]


def test_owners_never_see_each_other(lg: ZeromemStore, db_path: Path) -> None:
    lg.put(("notes",), "k", {"text": "alice's plan"})
    with ZeromemStore(db_path, user="bob") as bob:
        assert bob.get(("notes",), "k") is None
        assert bob.search(("notes",), query="plan") == []
        assert bob.list_namespaces() == []
        bob.put(("notes",), "k", {"text": "bob's plan"})
    item = lg.get(("notes",), "k")
    assert item is not None and item.value == {"text": "alice's plan"}


def test_items_are_memories_other_faces_find(lg: ZeromemStore, db_path: Path) -> None:
    lg.put(("users", "alice", "prefs"), "theme", {"text": "Prefers dark mode", "level": 3})
    with MemoryStore(db_path, user="alice") as store:
        store.add("a note written with the CLI about dark mode")
        hits = store.search("dark mode")
        assert len(hits) == 2
        [item] = [m for m in hits if m.agent == "langgraph"]
        assert (item.session, item.key, item.content) == (
            "users.alice.prefs",
            "theme",
            "Prefers dark mode",
        )
    # ...while LangGraph sees only its own items and namespaces.
    assert [i.key for i in lg.search((), query="dark mode")] == ["theme"]
    assert lg.list_namespaces() == [("users", "alice", "prefs")]


def test_a_put_is_a_new_version_of_its_key(lg: ZeromemStore, db_path: Path) -> None:
    lg.put(("ns",), "k", {"text": "first"})
    lg.put(("ns",), "k", {"text": "second"})
    lg.put(("ns",), "twin", {"text": "second"})  # same value, another key: another item
    assert sorted(i.key for i in lg.search(("ns",))) == ["k", "twin"]
    with MemoryStore(db_path, user="alice") as store:
        [memory] = [m for m in store.list() if m.key == "k"]
        assert [v.content for v in store.history(memory.id)] == ["first", "second"]


def test_any_key_round_trips(lg: ZeromemStore) -> None:
    keys = ["x" * 500, " padded ", "padded", "tab\there", "", "ключ"]
    for number, key in enumerate(keys):
        lg.put(("ns",), key, {"n": number})
    for number, key in enumerate(keys):
        item = lg.get(("ns",), key)
        assert item is not None and (item.key, item.value) == (key, {"n": number})


def test_index_choices(db_path: Path) -> None:
    with ZeromemStore(db_path, index={"fields": ["title"]}) as store:
        store.put(("docs",), "a", {"title": "Quarterly report", "body": "revenue tables"})
        store.put(("docs",), "b", {"title": "Team offsite", "body": "quarterly planning"})
        store.put(("docs",), "c", {"title": "Quarterly budget"}, index=False)
        store.put(("docs",), "d", {"title": "Lunch menu", "body": "soup"}, index=["body"])
        # A query orders: the hits first, scored; then the other indexed items newest first,
        # scored 0; then the unindexed ones, unscored.
        hits = store.search(("docs",), query="quarterly")
        assert [h.key for h in hits] == ["a", "d", "b", "c"]
        assert hits[0].score is not None and hits[0].score > 0
        assert [h.score for h in hits[1:]] == [0.0, 0.0, None]  # b's body, c: not indexed
        assert [h.key for h in store.search(("docs",), query="soup", limit=1)] == ["d"]
        assert [h.key for h in store.search(("docs",), query="quarterly", offset=3)] == ["c"]


def test_ttl_and_permanence(lg: ZeromemStore) -> None:
    lg.put(("ns",), "k", {"text": "short lived"}, ttl=60)
    lg.put(("ns",), "k", {"text": "now permanent"}, ttl=None)
    with MemoryStore(lg.store.path, user="alice") as store:
        [memory] = store.list()
        assert memory.expires_at is None


def test_secrets_are_refused(lg: ZeromemStore) -> None:
    with pytest.raises(SecretDetectedError):
        lg.put(("ns",), "k", {"token": "AKIAIOSFODNN7EXAMPLE"})
    assert lg.get(("ns",), "k") is None


def test_bad_ops_are_value_errors(lg: ZeromemStore) -> None:
    lg.put(("ns",), "k", {"n": 1})
    with pytest.raises(ValueError):
        lg.put(("ns",), "k", ["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        lg.search(("ns",), filter={"n": {"$regex": "x"}})


def test_the_owner_is_the_clis_in_the_same_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEROMEM_DB", str(tmp_path / "shell.db"))
    monkeypatch.setenv("ZEROMEM_USER", "carol")
    with ZeromemStore() as store:
        store.put(("notes",), "k", {"text": "carol's garden notes"})
    with MemoryStore(tmp_path / "shell.db", user="carol") as cli_store:
        assert [m.content for m in cli_store.search("garden")] == ["carol's garden notes"]
