"""Naming a memory by a uid prefix, and read-only opens, on either backend (the contract
suite's ``db_path``): the prefix is looked up within the store's scope only, and a store opened
``read_only=True`` reads everything and refuses every write in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from zeromem_cli import MemoryStore, NotFoundError
from zeromem_cli.errors import InvalidInputError, StoreError


def test_a_uid_prefix_names_the_memory_in_this_scope_only(db_path: Path | str) -> None:
    with MemoryStore(db_path, user="alice", project="atlas", session="s1") as alice:
        first = alice.add("the staging database moved to eu-west")
        second = alice.add("deploys freeze on Fridays")
    with MemoryStore(db_path, user="alice", project="atlas", session="s2") as later:
        assert later.resolve(first.uid) == first.id
        assert later.resolve(first.uid[:8]) == first.id
        assert later.resolve(second.uid.replace("-", "")[:12].upper()) == second.id
        assert later.get(later.resolve(second.uid[:6])).content == "deploys freeze on Fridays"
        with pytest.raises(InvalidInputError):
            later.resolve("ab")  # too short to be a prefix
    for other in (
        MemoryStore(db_path, user="bob", project="atlas"),
        MemoryStore(db_path, user="alice", project="zephyr"),
        MemoryStore(db_path, user="alice", project="atlas", session="s2", isolate=True),
    ):
        # Through resolve and get: a prefix of only digits (1 uid in 40) resolves to that
        # number as an id ("no memory #N" is then the caller's), any other raises at once.
        with other, pytest.raises(NotFoundError):
            other.get(other.resolve(first.uid[:8]))


def test_read_only_reads_and_refuses_writes(db_path: Path | str) -> None:
    with MemoryStore(db_path, user="alice") as store:
        kept = store.add("the release checklist lives in the wiki", key="checklist")
    with MemoryStore(db_path, user="alice", read_only=True) as store:
        assert not store.writable
        assert [m.id for m in store.search("release checklist")] == [kept.id]
        assert [m.id for m in store.pack("release checklist").memories] == [kept.id]
        for write in (
            lambda: store.add("not written"),
            lambda: store.update(kept.id, content="changed"),
            lambda: store.forget(kept.id),
        ):
            with pytest.raises(StoreError, match="read-only") as raised:
                write()
            assert "\n" not in str(raised.value)
    with MemoryStore(db_path, user="alice") as store:
        assert [m.content for m in store.list()] == ["the release checklist lives in the wiki"]
        assert store.get(kept.id).access_count == 0  # the read-only pack recorded no access
