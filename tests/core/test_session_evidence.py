"""Session evidence (issue 19, item 2): a session that matches the question well lends weight
to its turns, over the same words said in passing in another session. Public API only."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from zeromem_cli import MemoryStore
from zeromem_cli.search import Ranking

START = datetime(2026, 4, 6, 9, 0, tzinfo=timezone.utc)
QUESTION = "what gear do we still need for the camping trip to Yosemite?"
SAME = "we still need to buy the gear"
LATER = START + timedelta(days=10)  # a fixed clock


def _write(store: MemoryStore, session: str, texts: list[str], day: int) -> list[int]:
    # An hour apart: beyond pack's conversation context (``pack.weights.context_window_minutes``),
    # so what these tests see is session evidence alone.
    return [
        store.write(
            text,
            session=session,
            created_at=START + timedelta(days=day, hours=n),
            allow_duplicate=True,
        ).memory.id
        for n, text in enumerate(texts)
    ]


def _two_sessions(path: Path) -> tuple[int, int]:
    """The same turn said in the camping conversation (older) and in an unrelated one."""
    with MemoryStore(path, user="alice") as store:
        camping = _write(
            store,
            "camping",
            [
                "planning a camping trip to Yosemite in June",
                SAME,
                "Yosemite campsites open for booking in March",
            ],
            0,
        )
        office = _write(store, "office", ["the office move is on Friday", SAME], 3)
    return camping[1], office[1]


def test_the_turn_of_the_matching_session_ranks_first(db_path: Path) -> None:
    in_camping, in_office = _two_sessions(db_path)
    with MemoryStore(db_path, user="alice", session="later", clock=lambda: LATER) as store:
        alone = Ranking(context=0.0)  # session evidence alone, no conversation context
        order = [m.id for m in store.search(QUESTION, ranking=alone)]
        assert order.index(in_camping) < order.index(in_office)
        # Without session evidence the two identical turns tie and the newer one wins.
        flat = [m.id for m in store.search(QUESTION, ranking=alone._replace(session=0.0))]
        assert flat.index(in_office) < flat.index(in_camping)


def test_pack_takes_the_turn_of_the_matching_session(db_path: Path) -> None:
    in_camping, in_office = _two_sessions(db_path)
    with MemoryStore(db_path, user="alice", session="later", clock=lambda: LATER) as store:
        packed = [m.id for m in store.pack(QUESTION, budget=400, touch=False).memories]
        # The copies are near-duplicates: pack keeps the first it ranks.
        assert in_camping in packed
        assert in_office not in packed


def test_one_conversation_and_facts_keep_their_scores(db_path: Path) -> None:
    with MemoryStore(db_path, user="bob") as store:
        _write(store, "only", ["camping trip gear list", "Yosemite in June", SAME], 0)
        store.write("Bob owns a tent for the camping trip", created_at=START)
    with MemoryStore(db_path, user="bob", session="later", clock=lambda: LATER) as store:
        with_evidence = [(m.id, m.score) for m in store.search(QUESTION)]
        without = [(m.id, m.score) for m in store.search(QUESTION, ranking=Ranking(session=0.0))]
        assert len(with_evidence) == 4
        assert with_evidence == without


def test_facts_outside_a_session_keep_their_score(db_path: Path) -> None:
    with MemoryStore(db_path, user="carol") as store:
        _write(store, "camping", ["camping trip to Yosemite", "Yosemite camping gear"], 0)
        _write(store, "office", ["the office move", "the trip report"], 2)
        fact = store.write("Carol's camping gear is in the garage", created_at=START).memory.id
    with MemoryStore(db_path, user="carol", clock=lambda: LATER) as store:
        scores = {m.id: m.score for m in store.search(QUESTION)}
        flat = {m.id: m.score for m in store.search(QUESTION, ranking=Ranking(session=0.0))}
        assert scores[fact] == flat[fact]
        assert any(scores[i] < flat[i] for i in scores if i != fact)  # a weaker session's turn
