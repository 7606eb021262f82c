"""pack in a session: the memories written next to a strong hit share its relevance.

Core layer: ``MemoryStore.pack`` in a session scope (the flags: tests/cli/test_pack.py).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from zeromem_cli import MemoryStore
from zeromem_cli.models import Filters
from zeromem_cli.pack.select import Weights

START = datetime(2026, 5, 1, 18, 0, tzinfo=timezone.utc)

# A conversation: the answer (turn 2) shares no word with the question.
TURNS = [
    "Maria: I visited my aunt last weekend.",
    "John: How was the waterfall in Oregon?",
    "Maria: I felt like I was in a fairy tale! It was truly magical.",
    "Maria: The kids started swimming lessons.",
]


def _conversation(
    path: Path, session: str | None, gap: timedelta = timedelta(minutes=1)
) -> Callable[[], MemoryStore]:
    """Write TURNS ``gap`` apart in ``session``; returns an opener for the same scope."""
    with MemoryStore(path, session=session) as store:
        for number, turn in enumerate(TURNS):
            store.write(turn, category="chat", created_at=START + number * gap)
    return lambda: MemoryStore(path, session=session, clock=lambda: START + timedelta(days=1))


def _packed(store: MemoryStore, query: str, **options: object) -> list[str]:
    return [m.content for m in store.pack(query, touch=False, **options).memories]


def test_in_a_session_the_answer_next_to_the_question_is_packed(db_path: Path) -> None:
    with _conversation(db_path, "chat-1")() as store:
        packed = _packed(store, "What was the waterfall in Oregon like?")
    assert packed[0] == TURNS[1]
    assert TURNS[2] in packed  # the reply, found by its place, not its words


def test_outside_a_session_memories_stand_alone(db_path: Path) -> None:
    with _conversation(db_path, None)() as store:
        assert _packed(store, "What was the waterfall in Oregon like?") == [TURNS[1]]


def test_context_weight_zero_turns_it_off(db_path: Path) -> None:
    with _conversation(db_path, "chat-1")() as store:
        packed = _packed(store, "waterfall in Oregon", weights=Weights(context=0.0))
    assert packed == [TURNS[1]]


def test_neighbours_written_outside_the_window_lend_nothing(db_path: Path) -> None:
    with _conversation(db_path, "chat-1", gap=timedelta(hours=2))() as store:
        assert _packed(store, "waterfall in Oregon") == [TURNS[1]]
        wide = Weights(context_window_minutes=180)
        assert TURNS[2] in _packed(store, "waterfall in Oregon", weights=wide)


def test_a_lent_relevance_ranks_below_the_hit_and_fades_with_distance(db_path: Path) -> None:
    with _conversation(db_path, "chat-1")() as store:
        result = store.pack("waterfall in Oregon", touch=False)
    by_content = {c.memory.content: c for c in result.candidates}
    hit, reply, after = (by_content[t] for t in TURNS[1:4])
    assert hit.context == 0 and hit.score > reply.score > after.score > 0
    assert reply.context == pytest.approx(0.6) and after.context == pytest.approx(0.6 * 0.8)


def test_neighbours_respect_the_filters_and_forgotten_memories(db_path: Path) -> None:
    opener = _conversation(db_path, "chat-1")
    with opener() as store:
        reply = next(m for m in store.list(limit=None) if m.content == TURNS[2])
        store.forget(reply.id)
        packed = _packed(store, "waterfall in Oregon")
        assert TURNS[2] not in packed
        assert TURNS[3] in packed  # the next live memory becomes the neighbour
        # A note written between the question and the next turn: a neighbour unless filtered.
        note = "Maria: a note in another category"
        store.write(note, category="note", created_at=START + timedelta(seconds=90))
        assert note in _packed(store, "waterfall in Oregon")
        chat_only = _packed(store, "waterfall in Oregon", filters=Filters(category="chat"))
        assert note not in chat_only and TURNS[3] in chat_only


def test_neighbours_never_cross_scopes(db_path: Path) -> None:
    with MemoryStore(db_path, session="chat-1") as store:
        store.write(TURNS[1], created_at=START)
    with MemoryStore(db_path, session="chat-2") as other:
        other.write("Maria: a secret of another conversation", created_at=START)
    with MemoryStore(db_path, session="chat-1") as store:
        assert _packed(store, "waterfall in Oregon") == [TURNS[1]]


# -- inherit: a session's pack also draws on the scopes around it ------------------------------


def test_enclosing_scopes_are_the_owners_around_the_scope() -> None:
    from zeromem_cli.models import Scope
    from zeromem_cli.pack.select import enclosing_scopes

    # A store already reads every agent and session of its user and project: around it are
    # only the user's memories outside any project (never the unscoped: another owner).
    assert enclosing_scopes(Scope("alice", "bot", "s1", "app")) == [Scope("alice")]
    assert enclosing_scopes(Scope(None, "bot", "s1", "app")) == [Scope()]
    assert enclosing_scopes(Scope("alice", "bot", "s1")) == []
    assert enclosing_scopes(Scope()) == []


def test_enclosing_scopes_of_an_isolated_scope_drop_session_agent_project_user() -> None:
    from zeromem_cli.models import Scope
    from zeromem_cli.pack.select import enclosing_scopes

    def exact(*fields: str | None) -> Scope:
        return Scope(*fields, isolate=True)

    assert enclosing_scopes(exact("alice", "bot", "s1")) == [
        exact("alice", "bot"),
        exact("alice"),
        exact(),
    ]
    assert enclosing_scopes(exact("alice", "bot", "s1", "app")) == [
        exact("alice", "bot", None, "app"),
        exact("alice", None, None, "app"),
        exact("alice"),
        exact(),
    ]
    assert enclosing_scopes(exact(None, "bot", "s1")) == [exact(None, "bot"), exact()]
    assert enclosing_scopes(exact()) == []


def _scopes_db(path: Path) -> None:
    """A user fact (pinned), an agent note, a session turn, and memories of sibling scopes."""
    with MemoryStore(path, user="alice") as user:
        user.add("Alice prefers metric units in every report", pinned=True)
    with MemoryStore(path, user="alice", agent="bot") as agent:
        agent.add("The weekly report is due Friday at 17:00")
    with MemoryStore(path, user="alice", agent="bot", session="s1") as session:
        session.add("Alice: can you draft the weekly report?")
    with MemoryStore(path, user="bob") as bob:
        bob.add("Bob's weekly report goes out Monday", pinned=True)
    with MemoryStore(path, user="alice", agent="bot", session="s2") as other:
        other.add("Alice: the weekly report of another session")


def test_a_session_packs_its_users_other_sessions_and_agents_never_another_user(
    db_path: Path,
) -> None:
    _scopes_db(db_path)
    with MemoryStore(db_path, user="alice", agent="bot", session="s1") as store:
        packed = _packed(store, "weekly report")
    assert packed[0] == "Alice prefers metric units in every report"  # pinned: core memory
    assert set(packed) == {
        "Alice prefers metric units in every report",
        "The weekly report is due Friday at 17:00",
        "Alice: can you draft the weekly report?",
        "Alice: the weekly report of another session",
    }  # never Bob's


def test_inherit_packs_an_isolated_session_with_its_agent_and_user_memories(
    db_path: Path,
) -> None:
    _scopes_db(db_path)
    with MemoryStore(db_path, user="alice", agent="bot", session="s1", isolate=True) as store:
        alone = _packed(store, "weekly report")
        inherited = _packed(store, "weekly report", inherit=True)
    assert alone == ["Alice: can you draft the weekly report?"]
    assert inherited[0] == "Alice prefers metric units in every report"  # pinned: core memory
    assert set(inherited) == {
        "Alice prefers metric units in every report",
        "The weekly report is due Friday at 17:00",
        "Alice: can you draft the weekly report?",
    }  # never Bob's, nor another session's


def test_a_long_neighbour_borrows_in_proportion(db_path: Path) -> None:
    # A budget fills by tokens: an essay next to the best hit must not borrow as much as the
    # short turn on its other side, or it takes the room of the turns that answer.
    essay = "Assistant: " + "Here is a long and general overview of travel planning. " * 50
    with MemoryStore(db_path, session="chat-1") as store:
        short = store.write(TURNS[0], created_at=START).memory.id
        store.write(TURNS[1], created_at=START + timedelta(minutes=1))
        long = store.write(essay, created_at=START + timedelta(minutes=2)).memory.id
    with MemoryStore(db_path, session="chat-1", clock=lambda: START + timedelta(days=1)) as store:
        result = store.pack("How was the waterfall in Oregon?", budget=2000, touch=False)
        lent = {c.memory.id: c.context for c in result.candidates}
    assert lent[short] > 0
    assert lent[long] < lent[short] * 300 / len(essay) * 1.01
