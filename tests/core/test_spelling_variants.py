"""British and American spellings find each other, both ways (issue 19, item 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from zeromem_cli import MemoryStore
from zeromem_cli.text import spelling

CASES = [
    ("My favourite colour is teal", "favorite color"),
    ("My favorite color is teal", "favourite colour"),
    ("We organised the offsite in March", "who organized the offsite"),
    ("She will analyze the logs tomorrow", "analyse logs"),
    ("The data centre moved to Leeds", "data center"),
    ("Product catalogue for spring is ready", "catalog spring"),
    ("He travelled to Lisbon last week", "traveled Lisbon"),
    ("The walls are painted grey", "gray walls"),
    ("We finally reached the realisation of the plan", "realization"),
]


@pytest.mark.parametrize(("memory", "query"), CASES, ids=[q for _, q in CASES])
def test_other_spelling_is_found_and_ranked_first(
    db_path: Path | str, memory: str, query: str
) -> None:
    with MemoryStore(db_path) as store:
        store.add(memory)
        store.add("Lunch at noon with the team about the budget")
        store.add("A note on the weekly report and the backlog")
        hits = store.search(query)
        assert hits and hits[0].content == memory


def test_holding_every_word_in_the_other_spelling_counts_as_holding_them(
    db_path: Path | str,
) -> None:
    # Coverage: the memory with both words (British) beats one holding only "color" twice.
    with MemoryStore(db_path) as store:
        both = store.add("favourite colour: teal").id
        store.add("color color color palette notes")
        assert store.search("favorite color")[0].id == both


def test_a_word_without_another_spelling_gains_no_matches(db_path: Path | str) -> None:
    with MemoryStore(db_path) as store:
        store.add("the surprise party is on friday")
        store.add("surprize is a typo nobody stored")
        assert [m.content for m in store.search("surprise")] == ["the surprise party is on friday"]


def test_a_word_the_table_cannot_hold_skips_building_it() -> None:
    # spelling_variants looks a word up in the table only when it starts as a listed word
    # does: every form the table holds must start so, or a variant would be lost.
    table = spelling._word_pairs()
    assert table and all(spelling._may_be_listed(form) for form in table)
    spelling._word_pairs.cache_clear()
    spelling.spelling_variants.cache_clear()
    assert spelling.spelling_variants("deploy") == ()
    assert spelling._word_pairs.cache_info().currsize == 0  # answered without the table
    assert spelling.spelling_variants("centres") == ("centers",)


def test_a_past_tense_of_re_and_er_words_finds_the_other_spelling(db_path: Path | str) -> None:
    assert spelling.spelling_variants("centred") == ("centered",)
    assert spelling.spelling_variants("centered") == ("centred",)
    with MemoryStore(db_path) as store:
        centred = store.add("the logo is centred on the login page").id
        assert [m.id for m in store.search("where is the logo centered")] == [centred]
