"""``MemoryStore.search``: languages, filters, scopes and ranking tie-breakers.

Core layer: the public library API only, the contract a second backend must pass. The same
behaviour through ``zeromem search`` (output formats, option parsing, raw FTS) is in
tests/cli/test_search.py.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from zeromem_cli import Filters, MemoryStore

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def _found(store: MemoryStore, query: str, **options: object) -> list[str]:
    return [m.content for m in store.search(query, **options)]  # type: ignore[arg-type]


# Each case: the memories written (in order), the query, and the memories it must return
# (all of them, in this order) or, with a trailing "...", the one it must rank first.
LANGUAGES = [
    pytest.param(
        ["Meet at Café Zürich on Friday", "Lunch at the canteen"],
        "CAFE zurich",
        ["Meet at Café Zürich on Friday"],
        id="diacritics-and-case",
    ),
    pytest.param(
        ["Weekly meetings moved to Tuesday", "Went running in the park"],
        "meeting",
        ["Weekly meetings moved to Tuesday"],
        id="stemming",
    ),
    pytest.param(
        ["The configuration lives in /etc/app.toml", "Lunch at noon"],
        "config",
        ["The configuration lives in /etc/app.toml"],
        id="prefix",
    ),
    pytest.param(
        ["Alice went to Berlin for the conference", "Bob bought a new laptop"],
        "where did alice go?",
        ["Alice went to Berlin for the conference"],
        id="irregular-verb",
    ),
    pytest.param(
        ["Weekly report goes out Fridays 17:00", "What is the plan? It is what it is."],
        "when is the weekly report sent?",
        ["Weekly report goes out Fridays 17:00", "..."],
        id="stop-words",
    ),
    pytest.param(
        ["周报发送时间改为每周五下午五点", "每天上午九点发送技术日报"],
        "周报",
        ["周报发送时间改为每周五下午五点"],
        id="chinese-word",
    ),
    pytest.param(
        ["服务器证书将于明年一月十日过期，需要提前续期", "已把会议室 A302 订到明天下午三点"],
        "证书过期了吗",
        ["服务器证书将于明年一月十日过期，需要提前续期"],
        id="chinese-question",
    ),
    pytest.param(
        ["我的猫很可爱", "我的狗很听话"],
        "猫",
        ["我的猫很可爱"],
        id="chinese-character",
    ),
    pytest.param(
        ["明日の会議は10時からです", "カレーライスが好き"],
        "会議",
        ["明日の会議は10時からです"],
        id="japanese",
    ),
    pytest.param(
        ["내일 회의는 10시에 시작합니다", "점심은 12시"],
        "회의",
        ["내일 회의는 10시에 시작합니다"],
        id="korean",
    ),
    pytest.param(
        ["推荐系统使用 Python 和 PyTorch", "The recommender service uses 推荐算法 v2"],
        "推荐系统 pytorch",
        ["推荐系统使用 Python 和 PyTorch", "..."],
        id="mixed",
    ),
    pytest.param(
        ["Ｐｙｔｈｏｎ　３．１２ released", "Java 21 released"],
        "python",
        ["Ｐｙｔｈｏｎ　３．１２ released"],
        id="full-width",
    ),
]


@pytest.mark.parametrize(("memories", "query", "expected"), LANGUAGES)
def test_every_language_finds_its_memory(
    store: MemoryStore, memories: list[str], query: str, expected: list[str]
) -> None:
    for content in memories:
        store.add(content)
    found = _found(store, query)
    if expected[-1] == "...":
        assert found[: len(expected) - 1] == expected[:-1], found
    else:
        assert found == expected


def test_a_query_of_stop_words_alone_still_searches(store: MemoryStore) -> None:
    store.add("What is it? It is what it is.")
    store.add("Weekly report goes out Fridays")
    assert _found(store, "what is it?") == ["What is it? It is what it is."]
    assert store.search("?!.,") == []  # no term at all: nothing, not an error


def test_filters_narrow_the_matches(db_path: Path) -> None:
    clock = [NOW]
    with MemoryStore(db_path, clock=lambda: clock[0]) as store:
        alpha = store.write(
            "deploy notes for alpha",
            category="project",
            tags=["infra", "alpha"],
            created_at=NOW - timedelta(days=30),
        ).memory
        beta = store.write(
            "deploy notes for beta", category="project", tags=["infra"], created_at=NOW
        ).memory
        listed = store.write("deploy checklist", category="task", key="deploy_list").memory

        def ids(**filters: object) -> set[int]:
            return {m.id for m in store.search("deploy", filters=Filters(**filters))}  # type: ignore[arg-type]

        assert ids() == {alpha.id, beta.id, listed.id}
        assert ids(category="project") == {alpha.id, beta.id}
        assert ids(tags=["infra", "alpha"]) == {alpha.id}  # every tag given
        assert ids(key="deploy_list") == {listed.id}
        assert ids(category="nothing") == set()
        assert ids(since=NOW - timedelta(days=7)) == {beta.id, listed.id}
        assert ids(until=NOW - timedelta(days=7)) == {alpha.id}


def test_expired_and_forgotten_memories_are_found_only_when_asked(db_path: Path) -> None:
    clock = [NOW]
    with MemoryStore(db_path, clock=lambda: clock[0]) as store:
        code = store.add("temporary door code 4711", ttl="1h")
        old = store.add("old door code 1234")
        store.forget(old.id)
        clock[0] = NOW + timedelta(hours=2)
        assert store.search("door code") == []
        assert [m.id for m in store.search("door code", filters=Filters(include_expired=True))] == [
            code.id
        ]
        everything = Filters(include_expired=True, include_deleted=True)
        assert {m.id for m in store.search("door code", filters=everything)} == {code.id, old.id}


def test_a_min_score_filter_drops_weak_hits(store: MemoryStore) -> None:
    best = store.add("alpha beta gamma")
    store.add("alpha")
    hits = store.search("alpha beta gamma")
    assert len(hits) == 2 and hits[0].id == best.id
    assert hits[0].score is not None and hits[1].score is not None
    assert hits[0].score > hits[1].score > 0
    threshold = (hits[0].score + hits[1].score) / 2
    assert [
        m.id for m in store.search("alpha beta gamma", filters=Filters(min_score=threshold))
    ] == [best.id]


def test_limit_keeps_the_best(store: MemoryStore) -> None:
    for number in range(5):
        store.add(f"report number {number}", allow_duplicate=True)
    best = store.add("report report report")
    hits = store.search("report", limit=2)
    assert len(hits) == 2 and hits[0].id == best.id


def test_a_scope_searches_only_its_own_memories(db_path: Path) -> None:
    with MemoryStore(db_path) as store:
        mine = store.scoped(user="alice").add("alice secret recipe")
        theirs = store.scoped(user="bob", agent="cook").add("bob secret recipe")
        assert [m.id for m in store.scoped(user="alice").search("secret recipe")] == [mine.id]
        assert [m.id for m in store.scoped(user="bob", agent="cook").search("recipe")] == [
            theirs.id
        ]
        assert store.search("secret recipe") == []  # the unscoped store is a scope of its own


# -- ranking tie-breakers and dates -------------------------------------------------------------


def test_importance_and_pinned_break_ties(store: MemoryStore) -> None:
    low = store.add("printer on floor two", importance=2)
    high = store.add("printer on floor three", importance=9)
    assert [h.id for h in store.search("printer")] == [high.id, low.id]
    store.update(low.id, pinned=True, importance=9)
    assert [h.id for h in store.search("printer")][0] == low.id


def test_a_date_in_the_query_prefers_memories_from_then(store: MemoryStore) -> None:
    may = store.write(
        "Team offsite planning", created_at=datetime(2023, 5, 10, tzinfo=timezone.utc)
    )
    june = store.write(
        "Team offsite booking", created_at=datetime(2023, 6, 10, tzinfo=timezone.utc)
    )
    assert [h.id for h in store.search("team offsite in May 2023")][0] == may.memory.id
    assert [h.id for h in store.search("team offsite on 10 June, 2023")][0] == june.memory.id
