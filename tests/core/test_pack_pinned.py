"""pack with more pinned memories than the budget holds: the pinned ones take at most
``pack.pinned_share`` of it first, and the query's hits still get in.

Core layer: ``MemoryStore.pack(pinned_share=...)`` (the option and its config:
tests/cli/test_pack.py).
"""

from __future__ import annotations

import pytest

from zeromem_cli import MemoryStore
from zeromem_cli.errors import InvalidInputError
from zeromem_cli.pack.tokens import count_tokens

QUERY = "quokka habitat"


@pytest.fixture
def crowded(store: MemoryStore) -> MemoryStore:
    """Thirty pinned notes (about 600 tokens in all) and one unpinned answer to QUERY."""
    for number in range(30):
        store.add(_instruction(number), pinned=True)
    store.add("The quokka habitat survey covers Rottnest Island", importance=5)
    return store


def _instruction(number: int) -> str:
    """A pinned note sharing no content word with the others (not a near-duplicate)."""
    return f"standing instruction {number}: " + " ".join(f"rule{number}{c}" for c in "abcde")


def _pinned_tokens(store: MemoryStore, ids: list[int]) -> int:
    pinned = [m for m in store.list(limit=None) if m.pinned and m.id in ids]
    return sum(count_tokens(f"- [general] {m.content}") for m in pinned)


def test_the_answer_gets_in_past_the_pinned_share(crowded: MemoryStore) -> None:
    result = crowded.pack(QUERY, budget=200)
    contents = [m.content for m in result.memories]
    answer = next(i for i, text in enumerate(contents) if text.startswith("The quokka"))
    first = result.memories[:answer]  # the pinned memories packed first: about half the budget
    assert first and all(m.pinned for m in first)
    assert 50 <= _pinned_tokens(crowded, [m.id for m in first]) <= 100
    assert all(m.pinned for m in result.memories[answer + 1 :])  # the rest fill what is left
    assert result.tokens <= 200


def test_pinned_past_the_share_fill_what_is_left(crowded: MemoryStore) -> None:
    # No hit takes the rest: the other pinned memories fill it by score (newest first here).
    result = crowded.pack("nothing matches this", budget=200)
    assert all(m.pinned for m in result.memories)
    assert result.tokens > 150  # well past the share: nothing else competes for the room


def test_a_share_of_one_keeps_every_pinned_memory_first(crowded: MemoryStore) -> None:
    result = crowded.pack(QUERY, budget=200, pinned_share=1.0)
    assert result.memories and all(m.pinned for m in result.memories)
    assert (
        crowded.pack(QUERY, budget=200, pinned_share=0.0)
        .memories[0]
        .content.startswith("The quokka")
    )


def test_unmatched_pinned_memories_go_by_importance(store: MemoryStore) -> None:
    # Room in the share for one of them: the important one, though it is the older.
    important = store.add(_instruction(1), pinned=True, importance=9)
    store.add(_instruction(2), pinned=True, importance=1)
    store.add("The quokka habitat survey covers Rottnest Island")
    result = store.pack(QUERY, budget=110, pinned_share=0.4)
    assert result.memories[0].id == important.id
    assert result.memories[1].content.startswith("The quokka")


def test_few_pinned_memories_all_come_first(store: MemoryStore) -> None:
    store.add("The quokka habitat survey covers Rottnest Island")
    rule = store.add("Answer in English", pinned=True)
    assert [m.id for m in store.pack(QUERY, budget=200).memories][0] == rule.id


@pytest.mark.parametrize("share", [-0.1, 1.5, "half", True])
def test_a_share_outside_zero_to_one_is_refused(store: MemoryStore, share: object) -> None:
    with pytest.raises(InvalidInputError, match="pinned share"):
        store.pack(QUERY, pinned_share=share)  # type: ignore[arg-type]
