"""Traditional and simplified Chinese find each other, both ways (issue 19, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from zeromem_cli import MemoryStore

CASES = [
    ("下週一開會議討論預算", "会议"),
    ("下周一开会议讨论预算", "會議"),
    ("測試環境部署在 staging 上", "测试环境"),
    ("测试环境部署在 staging 上", "測試環境 staging"),
    ("張偉喜歡吃火鍋", "张伟"),
    ("资料库每天备份一次", "資料庫備份"),
]


@pytest.mark.parametrize(("memory", "query"), CASES, ids=[q for _, q in CASES])
def test_other_script_is_found_first(db_path: Path | str, memory: str, query: str) -> None:
    with MemoryStore(db_path) as store:
        store.add(memory)
        store.add("午饭在公司楼下吃面")
        store.add("Weekly report goes out on Friday")
        hits = store.search(query)
        assert hits and hits[0].content == memory


def test_stored_text_keeps_its_own_script(db_path: Path | str) -> None:
    # Folding is for matching only: what the user stored comes back as written.
    with MemoryStore(db_path) as store:
        store.add("會議改到週三", tags=["會議"])
        hit = store.search("会议")[0]
        assert hit.content == "會議改到週三" and hit.tags == ["會議"]


def test_tags_and_keys_fold_too(db_path: Path | str) -> None:
    with MemoryStore(db_path) as store:
        store.add("每週五下午", key="週報時間")
        store.add("别的东西")
        assert store.search("周报时间")[0].content == "每週五下午"


# -- a two-character word whose characters stand apart (开会 in 开季度会议) ----------------------

APART = ["周三下午开季度会议", "每周一早上开项目例会"]


def test_a_two_character_word_finds_its_characters_apart(db_path: Path | str) -> None:
    with MemoryStore(db_path) as store:
        apart = {store.add(text).id for text in APART}
        store.add("会计报表月底前提交")  # one of the characters only
        store.add("午饭在公司楼下吃面")
        for query in ("开会", "周一什么时候开会"):
            assert apart <= {m.id for m in store.search(query)}, query


def test_the_word_as_written_ranks_above_its_characters_apart(db_path: Path | str) -> None:
    with MemoryStore(db_path) as store:
        store.add(APART[0])
        written = store.add("明天上午九点开会").id
        assert store.search("开会")[0].id == written


def test_characters_apart_are_not_searched_when_the_word_fills_the_page(
    db_path: Path | str,
) -> None:
    # The fallback is for words that find too little: a word that fills the page as written
    # does not pay for the NEAR query, and its characters apart do not crowd it.
    with MemoryStore(db_path) as store:
        written = {store.add(f"第{n}次开会记录").id for n in range(3)}
        apart = store.add(APART[0]).id
        assert apart in {m.id for m in store.search("开会", limit=5)}
        found = {m.id for m in store.search("开会", limit=3)}
        assert found == written
