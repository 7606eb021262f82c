"""Conversation context in search (issue 19): a turn written next to a strong hit, in the
same session, borrows part of its score, so the answer that follows a question's topic ranks
above the same words said elsewhere. Public API only."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from zeromem_cli import MemoryStore
from zeromem_cli.search import Ranking

START = datetime(2026, 4, 6, 9, 0, tzinfo=timezone.utc)
LATER = START + timedelta(days=10)
QUESTION = "where was the waterfall photo taken?"
TOPIC = "Calvin: that waterfall photo is stunning, where was it taken?"
ANSWER = "Dave: I found a serene spot in a nearby park and took it there"
DECOY = "Dave: I took the early bus to work"


def _store(path: Path, *, session: bool = True) -> tuple[int, int]:
    """The topic and its answer in one conversation, the decoy (newer) in another; returns
    the ids of the answer and the decoy."""
    with MemoryStore(path, user="dave") as store:

        def write(text: str, where: str, day: int) -> int:
            return store.write(
                text,
                session=where if session else None,
                created_at=START + timedelta(days=day),
                allow_duplicate=True,
            ).memory.id

        write(TOPIC, "trip", 0)
        answer = write(ANSWER, "trip", 0)
        write("Dave: the office printer is broken again", "office", 3)
        decoy = write(DECOY, "office", 3)
    return answer, decoy


def _order(path: Path, question: str, ranking: Ranking | None = None) -> list[int]:
    with MemoryStore(path, user="dave", session="later", clock=lambda: LATER) as store:
        return [m.id for m in store.search(question, ranking=ranking)]


def test_the_answer_next_to_the_topic_ranks_above_the_same_words_elsewhere(
    db_path: Path,
) -> None:
    answer, decoy = _store(db_path)
    assert _order(db_path, QUESTION).index(answer) < _order(db_path, QUESTION).index(decoy)
    # The context alone (no session evidence) puts the answer first; without either, the
    # decoy, shorter and newer, ranks above it.
    order = _order(db_path, QUESTION, Ranking(session=0.0))
    assert order.index(answer) < order.index(decoy)
    flat = _order(db_path, QUESTION, Ranking(session=0.0, context=0.0))
    assert flat.index(decoy) < flat.index(answer)


def test_memories_outside_a_session_lend_nothing(db_path: Path) -> None:
    answer, decoy = _store(db_path, session=False)
    order = _order(db_path, QUESTION)
    assert order == _order(db_path, QUESTION, Ranking(context=0.0))
    assert order.index(decoy) < order.index(answer)


def test_interleaved_sessions_lend_only_to_their_own_neighbours(db_path: Path) -> None:
    """Two conversations written turn about (ids alternate): the turn written next to the
    topic in ITS session borrows, not the turn whose id is one away (another session)."""
    topic = "Calvin: that waterfall photo is stunning, where was it taken?"
    answer = "Dave: I found a serene spot in a nearby park and took it there"
    other = "Dave: I found a quiet desk in the library and worked there"
    with MemoryStore(db_path, user="dave") as store:

        def write(text: str, where: str, minute: int) -> int:
            return store.write(
                text, session=where, created_at=START + timedelta(minutes=minute)
            ).memory.id

        write(topic, "trip", 0)
        wrong = write(other, "study", 1)  # id next to the topic's, another session
        write("Calvin: the weather was cold all week", "study", 2)
        right = write(answer, "trip", 3)  # the topic's next turn in its session
    assert right - wrong == 2
    question = "where was the waterfall photo taken? I found a spot"
    with MemoryStore(db_path, user="dave", session="later", clock=lambda: LATER) as store:
        lent = {m.id: m.score for m in store.search(question, ranking=Ranking(session=0.0))}
        own = {
            m.id: m.score for m in store.search(question, ranking=Ranking(session=0.0, context=0.0))
        }
    assert lent[wrong] == own[wrong]  # one id away, another session: borrows nothing
    assert (lent[right] or 0.0) > (own[right] or 0.0)  # its session's next turn borrows
