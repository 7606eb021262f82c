"""``as_of``: relative dates in a question resolve from the moment it is asked (issue 19)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from zeromem_cli import MemoryStore
from zeromem_cli.search import Ranking

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


# -- counted periods: "two weeks ago", "the past three months", "last Saturday" ----------------

THURSDAY = datetime(2023, 3, 9, 12, 0, tzinfo=timezone.utc)  # asked on a Thursday


_LABELS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf")


def _days_back(store: MemoryStore, text: str, days: tuple[int, ...]) -> dict[int, int]:
    """``text`` written ``days`` before the question, each with a label of its own (the
    labels share no word with the questions, so BM25 ties them)."""
    return {
        back: store.write(f"{text} ({label})", created_at=THURSDAY - timedelta(days=back)).memory.id
        for back, label in zip(days, _LABELS, strict=False)
    }


@pytest.mark.parametrize(
    ("question", "days"),
    [
        ("who gave me the necklace two weeks ago?", 14),
        ("who gave me the necklace a week ago?", 7),
        ("who gave me the necklace 40 days ago?", 40),
        ("who gave me the necklace a few months ago?", 90),
        ("who gave me the necklace last Saturday?", 5),
        ("who gave me the necklace last thursday?", 7),  # today is Thursday: a week back
    ],
)
def test_a_counted_period_lifts_what_was_said_then(
    db_path: Path | str, question: str, days: int
) -> None:
    with MemoryStore(db_path, clock=lambda: TODAY) as store:
        ids = _days_back(store, "got a necklace as a gift", (3, 5, 7, 14, 40, 90, 400))
        assert store.search(question, as_of=THURSDAY)[0].id == ids[days]


def test_the_past_months_lift_everything_since(db_path: Path | str) -> None:
    question = "graduations in the past three months"
    with MemoryStore(db_path, clock=lambda: TODAY) as store:
        ids = _days_back(store, "went to a graduation", (10, 80, 200))
        lifted = {m.id: m.score or 0.0 for m in store.search(question, as_of=THURSDAY)}
        idle = {
            m.id: m.score or 0.0
            for m in store.search(question, as_of=THURSDAY, ranking=Ranking(date=0.0))
        }
        assert lifted[ids[10]] > 1.5 * idle[ids[10]]
        assert lifted[ids[80]] > 1.5 * idle[ids[80]]
        assert lifted[ids[200]] < 1.5 * idle[ids[200]]


def test_how_many_days_ago_names_no_date(db_path: Path | str) -> None:
    # "how many days ago" asks for a count: no period is lifted, the date factor is idle.
    with MemoryStore(db_path, clock=lambda: TODAY) as store:
        _days_back(store, "bought a kayak", (3, 30))
        for question, named in (
            ("how many days ago did we buy the kayak?", False),
            ("did we buy the kayak 30 days ago?", True),
        ):
            asked = [(m.id, m.score) for m in store.search(question, as_of=THURSDAY)]
            idle = store.search(question, as_of=THURSDAY, ranking=Ranking(date=0.0))
            assert len(asked) == 2
            assert (asked != [(m.id, m.score) for m in idle]) is named, question
