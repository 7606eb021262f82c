"""pack ranks the turns of the speaker a question names above the other speaker's turns that
only address them ("Wow, Melanie, ..."): a conversation's labels say who said what.

Core layer: ``MemoryStore.pack`` over real stores, both backends.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from zeromem_cli import MemoryStore

START = datetime(2026, 5, 1, 18, 0, tzinfo=timezone.utc)

# Caroline's turn holds the question's words more often than Melanie's own answer does: by
# its words it ranks first, in pack too (checked with ``speakers.WEIGHT`` 0).
ADDRESSING = "Caroline: Melanie, your painting of the lake at sunrise! Melanie, paint me one too."
ANSWER = "Melanie: I painted it at the lake last summer, at sunrise, with my kids."
# Other talk, so that BM25 sees the question's words as rare.
FILLER = [
    f"{who}: we talked about {topic} for a while."
    for who in ("Caroline", "Melanie")
    for topic in ("the weather", "school", "work", "dinner", "a movie", "the garden", "music")
]


def _store(path: Path, turns: list[str], session: str | None = "chat-1") -> MemoryStore:
    with MemoryStore(path) as writer:
        # A greeting opens the conversation: no turn tested here is its opener.
        for number, turn in enumerate(["Caroline: hi!", *turns]):
            # Days apart: no conversation context between them, only their words and labels.
            writer.write(
                turn, category="chat", session=session, created_at=START + timedelta(days=number)
            )
    return MemoryStore(path, session="asking", clock=lambda: START + timedelta(days=30))


def _order(store: MemoryStore, query: str) -> list[str]:
    return [c.memory.content for c in store.pack(query, touch=False).candidates][:5]


def test_the_named_speakers_own_turn_ranks_above_a_turn_addressing_them(db_path: Path) -> None:
    with _store(db_path, [ANSWER, ADDRESSING, *FILLER]) as store:
        order = _order(store, "what did Melanie paint?")
        one = store.pack("what did Melanie paint?", budget=40, touch=False)
    assert order[0] == ANSWER
    assert order.index(ADDRESSING) > order.index(ANSWER)
    assert [m.content for m in one.memories] == [ANSWER]


def test_a_question_naming_every_speaker_ranks_by_the_words(db_path: Path) -> None:
    with _store(db_path, [ANSWER, ADDRESSING, *FILLER]) as store:
        order = _order(store, "what did Melanie and Caroline paint?")
    assert order[0] == ADDRESSING  # as without speakers: no label is preferred


def test_memories_without_a_speaker_label_are_ranked_by_their_words(db_path: Path) -> None:
    facts = ["I painted a lake at sunrise, Melanie said.", ADDRESSING.replace("Caroline: ", "")]
    with _store(db_path, [*facts, *(f.split(": ", 1)[1] for f in FILLER)], None) as store:
        order = _order(store, "what did Melanie paint?")
    assert order[0] == facts[1]
