"""``text.tokens`` against FTS5's own ``porter unicode61 remove_diacritics 2`` tokenizer, on
index text of many kinds: the PostgreSQL index holds these tokens, the SQLite one FTS5's."""

from __future__ import annotations

import sqlite3

import pytest

from zeromem_cli.storage.sqlite.migrations import FTS_TOKENIZER
from zeromem_cli.text.normalize import index_text
from zeromem_cli.text.tokens import stem, tokens

# Words through every Porter step (the algorithm's own examples), and text of other kinds.
SUFFIXES = (
    "caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated "
    "troubled sized hopping tanned falling hissing fizzed failing filing happy sky relational "
    "conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli "
    "analogousli vietnamization predication operator feudalism decisiveness hopefulness "
    "callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti "
    "electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable "
    "defensible irritant replacement adjustment dependent adoption homologou communism "
    "activate angulariti homologous effective bowdlerize probate rate cease controll roll "
    "generalizations oscillators agreement eed ing ed yyy by sky's o'clock"
)
TEXTS = (
    SUFFIXES,
    "Deployed the v2.3.1 release to staging_eu at 10:45; rollback plan: kubectl rollout undo.",
    "Café au lait, naïve coöperation, ÉCOLE NORMALE, Straße, Ångström, São Paulo, Łódź",
    "Ελληνικά: της μεθόδους ΤΗΣ; İstanbul; Москва ПРИВЕТ мирами; x²y ½ Ⅻ ﬁsh",
    "周报每周五下午发送给团队 會議紀錄 Tokyo 東京 にほんご 한국어 text between 报告 and more",
    "emoji🤖bot don't e-mail foo@example.com https://example.com/path?q=1 #tag @user",
    "a" * 70 + " " + "abcdefghij" * 7 + "ing",
)


def _fts5_tokens(texts: list[str]) -> list[list[str]]:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(c, tokenize='{FTS_TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    conn.executemany("INSERT INTO t(rowid, c) VALUES (?, ?)", enumerate(texts, 1))
    out: list[list[str]] = [[] for _ in texts]
    for doc, term in conn.execute('SELECT doc, term FROM v ORDER BY doc, "offset"'):
        out[doc - 1].append(term)
    return out


@pytest.mark.parametrize("text", TEXTS)
def test_the_same_tokens_as_fts5(text: str) -> None:
    indexed = index_text(text)
    assert tokens(indexed) == _fts5_tokens([indexed])[0]


def test_every_word_of_the_porter_examples_stems_as_fts5_does() -> None:
    words = SUFFIXES.replace("'", " ").split()
    assert [stem(w) for w in words] == [t[0] for t in _fts5_tokens(words)]


def test_short_and_long_tokens_are_kept_as_they_are() -> None:
    assert stem("is") == "is"
    assert stem("x" * 62 + "ing") == "x" * 62 + "ing"  # 65 bytes: past FTS5's porter limit
    assert stem("hopping") == "hop"
