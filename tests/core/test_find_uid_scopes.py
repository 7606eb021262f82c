"""``find_uid`` and ``scopes``: what the framework faces need from ``MemoryStore``, on both
backends."""

from __future__ import annotations

import uuid
from pathlib import Path

from zeromem_cli import MemoryStore
from zeromem_cli.models import Scope


def test_find_uid_finds_any_scope_by_its_full_uid(db_path: Path | str) -> None:
    with MemoryStore(db_path, user="alice") as store:
        theirs = store.scoped(user="bob", agent="a", session="s").add("bob's secret plan")
        mine = store.add("alice's note")
        found = store.find_uid(theirs.uid)
        assert found is not None and (found.id, found.user, found.agent) == (theirs.id, "bob", "a")
        assert store.find_uid(theirs.uid.upper()) is not None
        assert store.find_uid(theirs.uid[:8]) is None  # a prefix is no capability
        assert store.find_uid(str(uuid.uuid4())) is None
        assert store.find_uid("not a uid") is None
        store.forget(mine.id)
        gone = store.find_uid(mine.uid)
        assert gone is not None and gone.deleted_at is not None


def test_scopes_lists_live_scopes(db_path: Path | str) -> None:
    with MemoryStore(db_path, user="alice") as store:
        store.add("one")
        store.add("two", session="s1")
        store.add("three", session="s1")
        store.scoped(user="bob").add("four")
        gone = store.add("five", agent="x")
        store.forget(gone.id)
        assert store.scopes() == [
            (Scope("alice", None, "s1", None, isolate=True), 2),
            (Scope("alice", None, None, None, isolate=True), 1),
        ]
        every = store.scopes(every=True)
        assert (Scope("bob", isolate=True), 1) in every and len(every) == 3
