"""Property tests of the text pipeline: whatever the input, no exception escapes except the
documented InvalidInputError, and no query can make FTS5 (or SQL) raise."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from zeromem_cli import InvalidInputError, MemoryStore
from zeromem_cli.storage.sqlite.migrations import FTS_TOKENIZER
from zeromem_cli.text.normalize import clean_content, content_hash, index_text, normalize
from zeromem_cli.text.query import build_match, query_terms, quote
from zeromem_cli.text.secrets import find_secrets, mask_secrets
from zeromem_cli.times import from_iso, parse_duration, parse_expiry, parse_since

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))

# Text as it reaches us: any Unicode (CJK, combining marks, RTL, emoji, controls), plus
# strings built from FTS5 syntax so operators, quotes and parentheses meet every code path.
FTS_SYNTAX = st.sampled_from(
    ['"', "'", "(", ")", "*", "^", ":", "-", "+", "AND", "OR", "NOT", "NEAR", "NEAR(", "{", "}",
     "col:", "memories_fts", ";", "--", "/*", "\\", "\x00", "周报", "ｆｕｌｌ", "ß", "İ", "ﬁ"]
)  # fmt: skip
TEXT = st.one_of(
    st.text(max_size=200),
    st.lists(st.one_of(FTS_SYNTAX, st.text(max_size=6)), max_size=30).map(" ".join),
    st.lists(FTS_SYNTAX, max_size=30).map("".join),
)


@pytest.fixture(scope="module")
def fts() -> Iterator[sqlite3.Connection]:
    """A real contentless FTS5 table with the store's tokenizer, holding a few documents."""
    conn = sqlite3.connect(":memory:")
    conn.execute(
        f"CREATE VIRTUAL TABLE t USING fts5(content, tags, category, key, content='', "
        f"tokenize='{FTS_TOKENIZER}')"
    )
    for number, text in enumerate(["Weekly report Fridays", "周报发送时间", "café crème"], 1):
        conn.execute("INSERT INTO t(rowid, content) VALUES (?, ?)", (number, index_text(text)))
    yield conn
    conn.close()


@FUZZ
@given(TEXT)
def test_normalisation_and_cleaning_never_raise(text: str) -> None:
    cleaned = clean_content(text)
    assert clean_content(cleaned) == cleaned  # idempotent
    assert not any(ord(c) < 32 and c not in "\t\n" for c in cleaned)
    assert "\r" not in cleaned and cleaned == cleaned.strip()
    assert normalize(normalize(text)) == normalize(text)
    assert isinstance(content_hash(text), int) and -(2**63) <= content_hash(text) < 2**63


@FUZZ
@given(TEXT)
def test_index_text_is_always_insertable(fts: sqlite3.Connection, text: str) -> None:
    indexed = index_text(clean_content(text))
    conn = fts
    conn.execute("SAVEPOINT fuzz")
    conn.execute("INSERT INTO t(rowid, content) VALUES (1000, ?)", (indexed,))
    conn.execute(
        "INSERT INTO t(t, rowid, content) VALUES ('delete', 1000, ?)", (indexed,)
    )  # contentless delete replays the same values
    conn.execute("RELEASE fuzz")


@FUZZ
@given(TEXT)
def test_build_match_never_makes_fts5_raise(fts: sqlite3.Connection, text: str) -> None:
    match = build_match(text)
    terms = query_terms(text)
    if match is None:
        assert terms == [] and query_terms(text, drop_stop_words=False) == []
        return
    fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()
    for term in terms:  # every single term is a valid phrase too
        fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (quote(term),)).fetchall()


# Letters, digits, punctuation and spaces of any script (symbols: see
# test_words_glued_to_newer_symbols_are_findable).
WORDS = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "Nd", "P", "Zs")), max_size=60
)


@FUZZ
@given(WORDS)
@example("ﾞ")  # NFKC: a lone combining voiced mark, which unicode61 drops
@example("ｶﾞ周ﾞ报")
def test_the_cjk_bigrams_of_a_text_find_it(fts: sqlite3.Connection, text: str) -> None:
    """Whatever was indexed is found again by the same words (segmentation is symmetric)."""
    cleaned = clean_content(text)
    if not cleaned or not query_terms(cleaned, drop_stop_words=False):
        return
    fts.execute("SAVEPOINT fuzz")
    try:
        fts.execute("INSERT INTO t(rowid, content) VALUES (2000, ?)", (index_text(cleaned),))
        match = " OR ".join(quote(t) for t in query_terms(cleaned, drop_stop_words=False))
        hits = [r[0] for r in fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,))]
        assert 2000 in hits
    finally:
        fts.execute("ROLLBACK TO fuzz")
        fts.execute("RELEASE fuzz")


NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
DURATION_LIKE = st.one_of(
    st.text(max_size=30),
    st.from_regex(r"\A\s*-?\d{0,12}\s*[smhdwSMHDWy]?\s*\Z"),
    st.from_regex(
        r"\A\d{1,5}-\d{1,2}-\d{1,2}([T ]\d{1,2}:\d{2}(:\d{2})?)?([Zz]|[+-]\d{2}:\d{2})?\Z"
    ),
)


@FUZZ
@given(DURATION_LIKE)
def test_duration_and_date_parsing_raise_only_invalid_input(text: str) -> None:
    for parse in (
        parse_duration,
        from_iso,
        lambda t: parse_since(t, NOW),
        lambda t: parse_expiry(t, NOW),
    ):
        try:
            parse(text)
        except InvalidInputError:
            pass


@FUZZ
@given(TEXT)
def test_secret_scanning_never_raises_and_masks_what_it_finds(text: str) -> None:
    matches = find_secrets(text)
    masked = mask_secrets(text)
    if not matches:
        assert masked == text
    spans = [m.span for m in matches]
    assert spans == sorted(spans)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))  # no overlaps


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryStore]:
    path: Path = tmp_path_factory.mktemp("fuzz") / "memories.db"
    with MemoryStore(path) as store:
        store.add("Weekly report goes out Fridays")
        store.add("周报发送时间改为每周五")
        yield store


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(content=TEXT, query=TEXT)
def test_the_store_takes_any_text_and_any_query(
    fuzz_store: MemoryStore, content: str, query: str
) -> None:
    try:
        memory = fuzz_store.add(content, allow_duplicate=True)
    except InvalidInputError:  # empty, too long, a likely secret, undecodable: documented
        memory = None
    fuzz_store.search(query, limit=5)
    if memory is not None:
        fuzz_store.search(memory.content, limit=5)
        fuzz_store.update(memory.id, content=content + " v2", allow_secret=True)


def test_words_glued_to_newer_symbols_are_findable(store: MemoryStore) -> None:
    memory = store.add("deploy🤖bot finished")
    assert [h.id for h in store.search("bot")] == [memory.id]


@pytest.mark.parametrize(
    ("stored", "query"),
    [("Die Hauptstraße ist gesperrt", "hauptstraße"), ("ΟΔΟΣ Αθηνάς", "οδος Αθηνας")],
)
def test_case_is_folded_by_fts5_like_the_index(store: MemoryStore, stored: str, query: str) -> None:
    """Found by the fuzzer: Python's casefold made 'ß' 'ss' in queries, never in the index."""
    memory = store.add(stored)
    assert [h.id for h in store.search(query)] == [memory.id]
