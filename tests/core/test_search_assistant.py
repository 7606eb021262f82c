"""search ranks the assistant's turns up for a question about what it said ("the hotel you
recommended"): the user's turns around the answer share its words.

Core layer: ``MemoryStore.search`` over real stores, both backends.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from zeromem_cli import MemoryStore
from zeromem_cli.search import Ranking

START = datetime(2026, 5, 1, 18, 0, tzinfo=timezone.utc)
TURNS = [
    "user: I need a hotel in Lisbon near the river, a quiet hotel with a view.",
    "assistant: Try the Memmo Alfama hotel in Lisbon, with a rooftop terrace by the river.",
    "user: Thanks, a hotel in Lisbon near the river sounds perfect.",
    "user: what should I pack for the weekend?",
    "assistant: light layers and comfortable shoes.",
]
# Other talk, so that BM25 sees the question's words as rare.
FILLER = [f"user: a note about {topic}" for topic in ("taxes", "music", "work", "dinner", "cats")]


def _store(path: Path) -> MemoryStore:
    with MemoryStore(path) as writer:
        for number, turn in enumerate([*TURNS, *FILLER]):
            when = START + timedelta(minutes=number)
            writer.write(turn, category="chat", session="trip", created_at=when)
    return MemoryStore(path, session="later", clock=lambda: START + timedelta(days=2))


def _found(store: MemoryStore, query: str, **options: object) -> list[str]:
    return [m.content for m in store.search(query, limit=3, **options)]


def test_what_the_assistant_recommended_ranks_its_turn_first(db_path: Path) -> None:
    question = "what was the hotel in Lisbon you recommended?"
    with _store(db_path) as store:
        found = _found(store, question)
        without = _found(store, question, ranking=Ranking(assistant=0.0))
    assert without[0] != TURNS[1]  # by its words alone, the user's turns lead
    assert found[0] == TURNS[1]


def test_a_question_about_the_users_own_words_is_unchanged(db_path: Path) -> None:
    question = "which hotel in Lisbon did I want?"
    with _store(db_path) as store:
        assert _found(store, question) == _found(store, question, ranking=Ranking(assistant=0.0))
