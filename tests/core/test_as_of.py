"""``as_of``: relative dates in a question resolve from the moment it is asked (issue 19)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from zeromem_cli import MemoryStore

ASKED = datetime(2023, 5, 25, 10, 0, tzinfo=timezone.utc)
TODAY = datetime(2026, 3, 1, tzinfo=timezone.utc)


def _store(db_path: Path | str) -> tuple[MemoryStore, int, int]:
    store = MemoryStore(db_path, clock=lambda: TODAY)
    then = store.write(
        "went hiking at Mount Tam with Sam", created_at=datetime(2023, 5, 20, tzinfo=timezone.utc)
    ).memory.id
    later = store.write(
        "went hiking at Mount Tam with Sam again",
        created_at=datetime(2025, 1, 4, tzinfo=timezone.utc),
    ).memory.id
    return store, then, later


def test_last_week_is_the_week_before_the_question(db_path: Path | str) -> None:
    store, then, later = _store(db_path)
    with store:
        asked = store.search("where did I go hiking last week", as_of=ASKED)
        assert asked[0].id == then
        # Without it, "last week" is the store's now: no memory falls in it, nothing is lifted.
        plain = {m.id: m.score or 0.0 for m in store.search("where did I go hiking last week")}
        assert (asked[0].score or 0.0) > 1.5 * plain[then]


def test_pack_reckons_from_the_question_date_too(db_path: Path | str) -> None:
    with MemoryStore(db_path, clock=lambda: TODAY) as store:
        then = store.write(
            "went hiking at Mount Tam with Sam",
            created_at=datetime(2023, 5, 20, tzinfo=timezone.utc),
        ).memory.id
        recent = store.write(
            "hiking boots: the laces need replacing soon",
            created_at=datetime(2026, 2, 27, tzinfo=timezone.utc),
        ).memory.id
        now_first = store.pack("hiking last week", budget=200, touch=False).memories
        asked_first = store.pack("hiking last week", budget=200, as_of=ASKED, touch=False).memories
        assert [m.id for m in now_first] == [recent, then]
        assert [m.id for m in asked_first] == [then, recent]


def test_as_of_does_not_hide_or_reveal_memories(db_path: Path | str) -> None:
    store, then, later = _store(db_path)
    with store:
        found = {m.id for m in store.search("hiking", as_of=ASKED)}
        assert found == {then, later}
