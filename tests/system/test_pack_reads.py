"""The reads ``pack`` makes below the public API (its conversation-context neighbours), on a
real database: ``MemoryStore._neighbours`` is not public, so these live outside tests/core."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from zeromem_cli import MemoryStore

START = datetime(2026, 5, 1, 18, 0, tzinfo=timezone.utc)


def test_neighbours_come_nearest_first_on_each_side(db_path: Path) -> None:
    # Two turns share a moment (ties go by id); one lies past the window, one in another session.
    with MemoryStore(db_path, session="chat-1") as store:
        gaps = [0, 1, 1, 2, 4, 5, 5, 6, 90]
        ids = [
            store.write(f"turn {n}", created_at=START + timedelta(minutes=g)).memory.id
            for n, g in enumerate(gaps)
        ]
    with MemoryStore(db_path, session="chat-2") as other:
        other.write("elsewhere", created_at=START + timedelta(minutes=4))
    with MemoryStore(db_path, session="chat-1") as store:
        middle = store.get(ids[4])
        before, after = store._neighbours(middle, 2, timedelta(minutes=30))
        assert [m.id for m in before] == [ids[3], ids[2]]
        assert [m.id for m in after] == [ids[5], ids[6]]
        before, after = store._neighbours(middle, 9, timedelta(minutes=30))
        assert [m.id for m in before] == [ids[3], ids[2], ids[1], ids[0]]
        assert [m.id for m in after] == [ids[5], ids[6], ids[7]]  # turn 8 is past the window
        assert store._neighbours(store.get(ids[0]), 2, timedelta(minutes=30))[0] == []


def test_another_users_memory_has_no_neighbours_for_this_store(db_path: Path) -> None:
    with MemoryStore(db_path, user="alice", session="monday") as alice:
        secret = alice.add("Alice's door code is in the blue notebook")
    for user in ("bob", None):
        with MemoryStore(db_path, user=user, session="monday") as other:
            assert other._neighbours(secret, 2, timedelta(hours=1)) == ([], [])
