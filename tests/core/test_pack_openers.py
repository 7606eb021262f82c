"""pack ranks the first turn of a conversation (its news) above a later turn matching the
question as well: ``ranking.factors.opener_factor``.

Core layer: ``MemoryStore.pack`` over real stores, both backends.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from zeromem_cli import MemoryStore

START = datetime(2026, 5, 1, 18, 0, tzinfo=timezone.utc)
# Two conversations; in each, a turn about the garden. The later conversation's is its
# opener; the earlier one's comes mid-conversation (and is older: recency favours the other
# way round only by a little).
FIRST = [
    "user: can you help me plan a trip to Lisbon?",
    "assistant: sure, when do you want to go?",
    "user: by the way, I planted tomatoes in the garden today",
]
SECOND = [
    "user: I planted basil in the garden this morning",
    "assistant: basil likes sun and regular water",
]
FILLER = [f"user: a note about {topic}" for topic in ("taxes", "music", "work", "dinner")]


def _store(path: Path) -> MemoryStore:
    with MemoryStore(path) as writer:
        for session, turns, day in (("s1", FIRST, 0), ("s2", SECOND, 1), ("s3", FILLER, 2)):
            for number, turn in enumerate(turns):
                when = START + timedelta(days=day, minutes=number)
                writer.write(turn, category="chat", session=session, created_at=when)
    return MemoryStore(path, session="asking", clock=lambda: START + timedelta(days=3))


def _order(store: MemoryStore, query: str) -> list[str]:
    return [c.memory.content for c in store.pack(query, touch=False).candidates]


def test_a_sessions_first_turn_ranks_above_a_later_turn(db_path: Path) -> None:
    with _store(db_path) as store:
        order = _order(store, "what did I plant in the garden?")
    assert order.index(SECOND[0]) < order.index(FIRST[2])
