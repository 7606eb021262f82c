"""User text -> FTS5 MATCH (``text.query``): the content terms of a query, stop words, CJK
splitting, the prefix and irregular-verb variants, and quoting: no input, however hostile,
yields an FTS5 syntax error or reaches MATCH as an operator.

Core layer: the pure public functions of ``text.query``; the MATCH they build is run against a
real FTS5 table with the store's tokenizer, and hostile queries go through
``MemoryStore.search``, which must answer and change nothing the public API can see.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator

import pytest

from zeromem_cli import Filters, MemoryStore
from zeromem_cli.storage.sqlite.migrations import FTS_TOKENIZER
from zeromem_cli.text.normalize import index_text
from zeromem_cli.text.query import (
    MAX_TERMS,
    NEAR_DISTANCE,
    Term,
    build_match,
    expand_terms,
    query_terms,
    quote,
)

# -- terms -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("when is the weekly report sent?", ["weekly", "report", "sent"]),
        ("where did alice go?", ["alice", "go"]),
        ("it's Bob's", ["Bob"]),  # the clitics are stop words too
        ("ticket 4821 PR-17", ["ticket", "4821", "PR", "17"]),  # digits are content
        ("Report report REPORT", ["Report"]),  # one term to FTS5, first spelling kept
        ("ｆｕｌｌ\u3000ｗｉｄｔｈ", ["full", "width"]),  # NFKC first
        ("Straße", ["Straße"]),  # case left to FTS5: no casefold to "strasse"
        ("", []),
        ("?!… --- ()", []),
    ],
)
def test_query_terms_are_the_content_words(query: str, terms: list[str]) -> None:
    assert query_terms(query) == terms


def test_stop_words_are_kept_when_asked() -> None:
    assert query_terms("what is it?") == []
    assert query_terms("what is it?", drop_stop_words=False) == ["what", "is", "it"]
    assert query_terms("when is the report", drop_stop_words=False) == [
        "when",
        "is",
        "the",
        "report",
    ]


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("周报", ["周报"]),
        ("周报发送", ["周报", "报发", "发送"]),  # overlapping bigrams, as the index holds
        ("周报几点发送？", ["周报", "发送"]),  # split at the question phrase
        ("我的猫", ["猫"]),  # split at the particle; the weak 我 alone is dropped
        ("日报几点发", ["日报", "发"]),  # a one-character piece stays a term
        ("推荐系统 pytorch", ["pytorch", "推荐", "荐系", "系统"]),  # Latin words first
        ("会議はどこですか", ["会议", "议は"]),  # Japanese question words split too (議 folds)
    ],
)
def test_cjk_runs_are_split_at_function_words_and_cut_into_bigrams(
    query: str, terms: list[str]
) -> None:
    assert query_terms(query) == terms


def test_without_stop_words_a_cjk_run_is_cut_whole() -> None:
    assert query_terms("我的猫", drop_stop_words=False) == ["我的", "的猫"]
    assert query_terms("周报什么时候", drop_stop_words=False) == [
        "周报",
        "报什",
        "什么",
        "么时",
        "时候",
    ]


# -- variants ----------------------------------------------------------------------------------


def test_a_long_word_gets_a_prefix_variant_and_a_short_one_does_not() -> None:
    assert expand_terms(["report"]) == [Term("report"), Term("report", prefix=True)]
    assert expand_terms(["pr"]) == [Term("pr")]
    assert expand_terms(["4821"]) == [Term("4821")]  # a number is not a prefix
    assert expand_terms(["report"], prefix=False) == [Term("report")]


def test_an_irregular_verb_brings_its_other_forms() -> None:
    assert expand_terms(["go"]) == [Term("go"), Term("went"), Term("gone")]
    assert expand_terms(["ran"]) == [Term("ran"), Term("run")]  # and back to the base form
    assert expand_terms(["go"], variants=False) == [Term("go")]


def test_a_lone_cjk_character_is_searched_as_a_prefix() -> None:
    assert expand_terms(["猫"]) == [Term("猫", prefix=True)]
    assert expand_terms(["周报"]) == [Term("周报")]  # a bigram is exact, never a prefix
    assert Term("周报", near=True).expression() == 'NEAR("周"* "报"*, 3)'


def test_a_runaway_query_is_cut_to_max_terms() -> None:
    words = [f"word{number}" for number in range(MAX_TERMS)]
    terms = expand_terms(words)
    assert len(terms) == MAX_TERMS
    assert terms[:2] == [Term("word0"), Term("word0", prefix=True)]  # the first words kept
    assert len(expand_terms(["report", "report", "Report"])) == 4  # duplicates collapse


# -- the MATCH expression ----------------------------------------------------------------------


def test_build_match_ors_the_quoted_terms() -> None:
    assert build_match("weekly report") == ('"weekly" OR "weekly"* OR "report" OR "report"*')
    assert build_match("where did alice go?") == ('"alice" OR "alice"* OR "go" OR "went" OR "gone"')
    assert build_match("weekly report", prefix=False, variants=False) == '"weekly" OR "report"'


def test_a_question_of_stop_words_searches_them_and_no_terms_is_none() -> None:
    assert build_match("what is it?") == '"what" OR "what"* OR "is" OR "it"'
    for nothing in ("", "   ", "?!", "「」…", "\x00\x07"):
        assert build_match(nothing) is None, repr(nothing)


def test_quote_doubles_embedded_quotes() -> None:
    assert quote("plain") == '"plain"'
    assert quote('say "hi"') == '"say ""hi"""'
    assert quote('"') == '""""'


HOSTILE = [
    "alpha AND (",
    '"open',
    'a"b',
    '""',
    "NEAR(weekly report, 2)",
    "weekly NOT report",
    "content: weekly",
    "memories_fts: x",
    "{content tags}: report",
    "^report",
    "report*",
    "- report",
    "+report",
    "AND OR NOT",
    "rowid = 1; DROP TABLE memories; --",
    "' OR 1=1 --",
    "/* comment */ report",
    "\\ \\\\ \\",
    "(((((((((((",
    "*",
    '周报"发送',
    "周报 AND 发送",
    "ｎｏｔ ａｎｄ",
    "report\x00weekly",
]
# A MATCH built from user text: quoted strings, some with a prefix star, joined by OR only.
_QUOTED = re.compile(r'"(?:[^"]|"")*"\*?')


@pytest.fixture(scope="module")
def fts() -> Iterator[sqlite3.Connection]:
    """A real FTS5 table laid out as the store's (four columns, the store's tokenizer)."""
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(content, tags, category, key, content='', "
        f"tokenize='{FTS_TOKENIZER}')"
    )
    for rowid, text in enumerate(
        ["Weekly report goes out Fridays", "周报发送时间", 'He said "not and" twice'], 1
    ):
        conn.execute("INSERT INTO t(rowid, content) VALUES (?, ?)", (rowid, index_text(text)))
    yield conn
    conn.close()


@pytest.mark.parametrize("query", HOSTILE)
def test_no_input_reaches_match_as_syntax(fts: sqlite3.Connection, query: str) -> None:
    match = build_match(query)
    if match is None:  # symbols only: nothing to search, and nothing reaches MATCH
        assert query_terms(query, drop_stop_words=False) == []
        return
    # Nothing but quoted phrases, ORs and our own NEAR groups of two quoted characters (a
    # split CJK word): no operator, column filter or bracket of the user's.
    rest = _QUOTED.sub("", match).replace(f"NEAR( , {NEAR_DISTANCE})", "")
    assert rest.replace(" OR ", "") == "", match
    fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()  # never raises


def test_operators_in_a_query_are_searched_as_words(fts: sqlite3.Connection) -> None:
    def hits(query: str) -> list[int]:
        match = build_match(query)
        assert match is not None
        return [r[0] for r in fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,))]

    assert hits("weekly NOT report") == [1]  # NOT is a word here, not an exclusion
    assert hits("ｎｏｔ ａｎｄ") == [3]  # found as the words the third row holds
    assert hits('周报"发送') == [2]
    assert hits("content: fridays") == [1]


# -- through the store: any query answers and changes nothing ----------------------------------


def _visible(store: MemoryStore) -> list[tuple[object, ...]]:
    """Everything the public API shows of the store, access counts included."""
    every = Filters(include_deleted=True, include_expired=True)
    return [
        (m.id, m.content, m.tags, m.updated_at, m.access_count, m.last_accessed_at)
        for m in store.list(limit=None, filters=every)
    ]


def test_hostile_queries_through_the_store_answer_and_change_nothing(
    store: MemoryStore,
) -> None:
    store.add("Weekly report goes out Fridays", tags=["work"])
    store.add("周报发送时间改为每周五下午五点", category="preference")
    store.add('He said "not and" twice')
    before = _visible(store)
    for query in [*HOSTILE, "", "   ", "?!", "what is it?"]:
        hits = store.search(query, limit=5)
        assert [h.score for h in hits] == sorted((h.score or 0 for h in hits), reverse=True)
        filtered = store.search(query, limit=5, filters=Filters(category="preference"))
        assert all(h.category == "preference" for h in filtered)
    assert [m.content for m in store.search('周报"发送')] == ["周报发送时间改为每周五下午五点"]
    assert _visible(store) == before
