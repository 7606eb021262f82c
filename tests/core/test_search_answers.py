"""search ranks up the candidates holding the kind of answer a question's form asks for
("how long" a duration, "what day" a weekday, "what time" a clock time): the answer often
shares only the topic's words with the question, and a turn about the topic without it would
otherwise rank first.

Core layer: ``MemoryStore.search`` over real stores, both backends.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from zeromem_cli import MemoryStore
from zeromem_cli.search import Ranking

START = datetime(2026, 5, 1, 18, 0, tzinfo=timezone.utc)
CAT_TOPIC = "user: my parrot Kiwi loves her parrot perch, and she chases the parrot toys."
CAT_ANSWER = "user: I have had my parrot Kiwi for about 6 months, she is due for a checkup."
CLASS_TOPIC = "user: the cocktail class was fun, I loved the cocktail recipes from class."
CLASS_ANSWER = "user: by the way, I have a cocktail class on Thursday evenings."
MEETING_TOPIC = "user: the team meeting went long, we argued about the meeting notes."
MEETING_ANSWER = "user: the team meeting moved to 3:30 pm."
TURNS = [CAT_TOPIC, CAT_ANSWER, CLASS_TOPIC, CLASS_ANSWER, MEETING_TOPIC, MEETING_ANSWER]
# Other talk, so that BM25 sees the question's words as rare.
FILLER = [f"user: a note about {topic}" for topic in ("taxes", "music", "work", "dinner", "rain")]


def _store(path: Path | str) -> MemoryStore:
    with MemoryStore(path) as writer:
        for number, turn in enumerate([*TURNS, *FILLER]):
            when = START + timedelta(minutes=number)
            writer.write(turn, category="chat", session=f"chat{number}", created_at=when)
    return MemoryStore(path, session="later", clock=lambda: START + timedelta(days=2))


def _first(store: MemoryStore, query: str, **options: object) -> str:
    return store.search(query, limit=1, **options)[0].content


def test_how_long_ranks_the_turn_holding_a_duration_first(db_path: Path) -> None:
    question = "How long has my parrot Kiwi been with me?"
    with _store(db_path) as store:
        assert _first(store, question, ranking=Ranking(answer=0.0)) == CAT_TOPIC
        assert _first(store, question) == CAT_ANSWER


def test_what_day_ranks_the_turn_naming_a_weekday_first(db_path: Path) -> None:
    question = "What day of the week is my cocktail class?"
    with _store(db_path) as store:
        assert _first(store, question, ranking=Ranking(answer=0.0)) == CLASS_TOPIC
        assert _first(store, question) == CLASS_ANSWER


def test_what_time_ranks_the_turn_holding_a_clock_time_first(db_path: Path) -> None:
    question = "What time is the team meeting?"
    with _store(db_path) as store:
        assert _first(store, question, ranking=Ranking(answer=0.0)) == MEETING_TOPIC
        assert _first(store, question) == MEETING_ANSWER


def test_a_question_of_no_such_form_is_unchanged(db_path: Path) -> None:
    for question in ("tell me about my parrot Kiwi", "the cocktail class", "the team meeting"):
        with _store(db_path) as store:
            found = [m.content for m in store.search(question, limit=5)]
            without = [
                m.content for m in store.search(question, limit=5, ranking=Ranking(answer=0))
            ]
        assert found == without


WHEN_TOPIC = "Priya: I go to the choir rehearsal, it is a good choir."
WHEN_ANSWER = "Priya: I went to a choir rehearsal yesterday, it was lovely."
WHY_TOPIC = "Omar: ferrets are my pets, I feed the ferrets and clean the ferret cage."
WHY_ANSWER = "Omar: I like ferrets because they are playful and easy to care for."


def test_when_and_why_rank_the_turn_holding_a_time_or_a_reason_first(db_path: Path) -> None:
    with MemoryStore(db_path) as writer:
        for number, turn in enumerate([WHEN_TOPIC, WHEN_ANSWER, WHY_TOPIC, WHY_ANSWER, *FILLER]):
            when = START + timedelta(minutes=number)
            writer.write(turn, category="chat", session=f"d{number}", created_at=when)
    with MemoryStore(db_path, session="later") as store:
        for question, topic, answer in (
            ("When did Priya go to the choir rehearsal?", WHEN_TOPIC, WHEN_ANSWER),
            ("Why does Omar like ferrets?", WHY_TOPIC, WHY_ANSWER),
        ):
            assert _first(store, question, ranking=Ranking(answer=0.0)) == topic
            assert _first(store, question) == answer


ZH_TURNS = {
    # question: (a turn on the topic, naming it twice or more; the turn holding the answer)
    "李娜的猫养了多久？": ("李娜养的猫很可爱，李娜养的猫喜欢猫爬架", "李娜的猫已经养了三年了"),
    "瑜伽课是周几？": ("瑜伽课很好，瑜伽课的老师很好，瑜伽课都满了", "瑜伽课改到星期三晚上"),
    "周会几点开始？": ("周会开始得很晚，周会开始前要准备周会纪要", "周会下午3点半开始"),
    "小王为什么辞职？": ("小王辞职了，小王辞职的事大家都知道", "小王因为要搬家所以辞职"),
}


def test_the_same_forms_asked_in_chinese(db_path: Path) -> None:
    """多久 asks for a duration, 周几 a weekday, 几点 a clock time, 为什么 a reason."""
    turns = [turn for pair in ZH_TURNS.values() for turn in pair]
    filler = [f"记一下{topic}" for topic in ("税务", "音乐", "工作", "晚饭", "下雨")]
    with MemoryStore(db_path) as writer:
        for number, turn in enumerate([*turns, *filler]):
            when = START + timedelta(minutes=number)
            writer.write(turn, category="chat", session=f"z{number}", created_at=when)
    with MemoryStore(db_path, session="later") as store:
        for question, (topic, answer) in ZH_TURNS.items():
            assert _first(store, question, ranking=Ranking(answer=0.0)) == topic, question
            assert _first(store, question) == answer, question
