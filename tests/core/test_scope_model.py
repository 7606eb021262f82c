"""The scope model through the MemoryStore API: user and project own a memory and bound every
read; agent and session are where it came from, read by the owner's later sessions unless the
store isolates.

Core layer: public MemoryStore API only (the flags: tests/cli/test_scope_options.py; the
hooks: tests/hooks/test_project_scope.py).
"""

from __future__ import annotations

import pickle
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from zeromem_cli import MemoryStore, NotFoundError
from zeromem_cli.models import Scope

START = datetime(2026, 5, 1, 18, 0, tzinfo=timezone.utc)


def _contents(memories: list) -> set[str]:  # type: ignore[type-arg]
    return {m.content for m in memories}


def test_a_new_session_recalls_the_users_earlier_sessions(db_path: Path) -> None:
    with MemoryStore(db_path, user="alice", session="monday") as monday:
        first = monday.add("Alice moved to Lisbon in March")
    with MemoryStore(db_path, user="alice", session="tuesday") as tuesday:
        assert [m.id for m in tuesday.search("where does Alice live? Lisbon")] == [first.id]
        assert tuesday.get(first.id).content == "Alice moved to Lisbon in March"
        assert first.id in {m.id for m in tuesday.list()}
        assert "Alice moved to Lisbon in March" in tuesday.pack("Lisbon").text
        assert tuesday.get(first.id).session == "monday"  # the origin is kept


def test_another_user_never_reads_them(db_path: Path) -> None:
    with MemoryStore(db_path, user="alice", session="monday") as alice:
        secret = alice.add("Alice's door code is in the blue notebook")
    for user in ("bob", None):
        with MemoryStore(db_path, user=user, session="monday") as other:
            assert other.search("door code notebook") == []
            assert other.list() == []
            assert other.pack("door code").memories == []
            with pytest.raises(NotFoundError):
                other.get(secret.id)
            with pytest.raises(NotFoundError):
                other.forget(secret.id)


def test_isolate_reads_only_the_exact_agent_and_session(db_path: Path) -> None:
    with MemoryStore(db_path, user="alice", session="s1") as s1:
        earlier = s1.add("Alice's budget for the trip is 2000 euros")
    with MemoryStore(db_path, user="alice", session="s2", isolate=True) as s2:
        assert s2.search("trip budget") == []
        with pytest.raises(NotFoundError):
            s2.get(earlier.id)
        mine = s2.add("Alice wants a window seat")
        assert [m.id for m in s2.list()] == [mine.id]
    with MemoryStore(db_path, user="alice", session="s1", isolate=True) as again:
        assert [m.id for m in again.list()] == [earlier.id]
    with MemoryStore(db_path, user="alice", agent="bot") as shared:  # not isolated: both
        assert _contents(shared.list()) == {
            "Alice's budget for the trip is 2000 euros",
            "Alice wants a window seat",
        }


def test_a_project_is_never_read_from_another_project_or_from_none(db_path: Path) -> None:
    with MemoryStore(db_path, user="alice", project="github.com/acme/app") as app:
        app.add("The app deploys with make ship")
    with MemoryStore(db_path, user="alice", project="github.com/acme/site") as site:
        site.add("The site deploys with netlify")
        assert _contents(site.search("deploys")) == {"The site deploys with netlify"}
        assert _contents(site.pack("how does it deploy?", inherit=True).memories) == {
            "The site deploys with netlify"
        }
    with MemoryStore(db_path, user="alice") as outside:
        assert outside.search("deploys") == []
    with MemoryStore(db_path, user="bob", project="github.com/acme/app") as bob:
        assert bob.search("deploys") == []  # a project is within its user


def test_a_projects_pack_with_inherit_adds_the_users_own_memories(db_path: Path) -> None:
    with MemoryStore(db_path, user="alice") as alice:
        alice.add("Alice prefers tabs over spaces", pinned=True)
    with MemoryStore(db_path, user="alice", project="app", session="c1") as app:
        app.add("The app's tests run with make check")
        assert _contents(app.search("tabs spaces")) == set()  # search stays in the project
        packed = app.pack(None, inherit=True).memories
    assert packed[0].content == "Alice prefers tabs over spaces"
    assert _contents(packed) == {
        "Alice prefers tabs over spaces",
        "The app's tests run with make check",
    }


def test_writes_are_stamped_with_the_whole_scope(db_path: Path) -> None:
    with MemoryStore(db_path, user="alice", agent="bot", session="s1", project="app") as store:
        memory = store.add("Ship on Thursdays")
    assert (memory.user, memory.agent, memory.session, memory.project) == (
        "alice",
        "bot",
        "s1",
        "app",
    )
    assert memory.to_dict()["project"] == "app"


def test_a_key_written_in_a_later_session_updates_the_earlier_memory(db_path: Path) -> None:
    with MemoryStore(db_path, user="alice", session="s1") as s1:
        first = s1.add("Alice's editor is vim", key="editor")
    with MemoryStore(db_path, user="alice", session="s2") as s2:
        result = s2.write("Alice's editor is helix", key="editor")
        assert result.action == "updated" and result.memory.id == first.id
        assert result.memory.session == "s1"  # updated in place: its origin does not move
        assert [m.content for m in s2.list()] == ["Alice's editor is helix"]
    with MemoryStore(db_path, user="alice", project="app") as app:  # another owner: its own
        assert app.write("The app's editor config is .editorconfig", key="editor").action == (
            "added"
        )


def test_the_conversation_context_is_keyed_by_the_origin_session(db_path: Path) -> None:
    turns = [
        "John: How was the waterfall in Oregon?",
        "Maria: I felt like I was in a fairy tale! It was truly magical.",
    ]
    with MemoryStore(db_path, user="maria", session="trip") as trip:
        for number, turn in enumerate(turns):
            trip.write(turn, category="chat", created_at=START + timedelta(minutes=number))
    with MemoryStore(db_path, user="maria", session="trip-2") as other:
        other.write("Maria: my fairy godmother costume", created_at=START + timedelta(seconds=30))
    asked_from = {"session": "next-week"}, {}  # a new session, or no session at all
    for scope in asked_from:
        with MemoryStore(
            db_path, user="maria", clock=lambda: START + timedelta(days=7), **scope
        ) as store:
            result = store.pack("What was the waterfall in Oregon like?", touch=False)
        by_content = {c.memory.content: c for c in result.candidates}
        assert by_content[turns[1]].context > 0  # the reply, lent by its place in "trip"
        lent = by_content.get("Maria: my fairy godmother costume")
        assert lent is None or lent.context == 0  # another session's turn is no neighbour


def test_scope_records_compare_hash_and_pickle_with_their_new_fields() -> None:
    isolated = Scope("alice", "bot", "s1", "app", isolate=True)
    assert isolated != Scope("alice", "bot", "s1", "app")
    assert pickle.loads(pickle.dumps(isolated)) == isolated
    assert len({isolated, Scope("alice", "bot", "s1", "app", isolate=True)}) == 1
    assert Scope(project="").project is None
    assert Scope("alice", project="app").reads(Scope("alice", "bot", "s9", "app"))
    assert not Scope("alice", project="app").reads(Scope("alice"))
    assert not Scope("alice", session="s1", isolate=True).reads(Scope("alice", session="s2"))
    widened = Scope("alice", project="app", with_user=True)  # what a project's inherit reads
    assert widened.reads(Scope("alice")) and widened.reads(Scope("alice", project="app"))
    assert not widened.reads(Scope("alice", project="site")) and not widened.reads(Scope())
    assert not Scope("alice", project="app", isolate=True, with_user=True).with_user
    assert pickle.loads(pickle.dumps(widened)) == widened


def test_scoped_views_keep_isolation_unless_told(db_path: Path) -> None:
    with MemoryStore(db_path, user="alice", session="s1") as store:
        store.add("shared view memory")
        strict = store.scoped(user="alice", session="s2", isolate=True)
        assert strict.list() == []
        assert strict.scoped(user="alice", session="s3").scope.isolate
        assert len(store.scoped(user="alice", session="s2").list()) == 1
