"""Does a question share a content word with its memory? The ``shares_word`` label, by code.

A question shares a word with a memory when, after zeromem's own query processing
(``text.query.query_terms``: stop words dropped, CJK runs split at question words and
particles, then cut into bigrams), one of its Latin words has the same Porter stem as a word
of the memory (the stemmer of zeromem's FTS5 index), or one of its CJK bigrams occurs in the
memory. The memory is every field the index holds: content, key, category and tags. The label
is stored in the data files and a test recomputes it, so it cannot drift from the text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from zeromem_cli.storage.sqlite.migrations import FTS_TOKENIZER
from zeromem_cli.text.normalize import cjk_bigrams, cjk_runs, has_cjk, latin_words, simplified
from zeromem_cli.text.query import query_terms

_stemmer: sqlite3.Connection | None = None


def _stems(words: Iterable[str]) -> set[str]:
    """The Porter stems FTS5 indexes for ``words`` (lower-cased, accents folded)."""
    global _stemmer
    if _stemmer is None:
        _stemmer = sqlite3.connect(":memory:")
        _stemmer.execute(f"CREATE VIRTUAL TABLE t USING fts5(c, tokenize='{FTS_TOKENIZER}')")
        _stemmer.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
    text = " ".join(words)
    if not text:
        return set()
    _stemmer.execute("DELETE FROM t")
    _stemmer.execute("INSERT INTO t(c) VALUES (?)", (text,))
    return {row[0] for row in _stemmer.execute("SELECT term FROM v")}


def question_terms(question: str) -> tuple[set[str], set[str]]:
    """The question's content words as (Latin stems, CJK bigrams)."""
    terms = query_terms(question)
    latin = _stems(t for t in terms if not has_cjk(t))
    bigrams = {t for t in terms if has_cjk(t) and len(t) == 2}
    return latin, bigrams


def memory_terms(texts: Iterable[str]) -> tuple[set[str], set[str]]:
    """Every indexed word of a memory's fields as (Latin stems, CJK bigrams)."""
    joined = " ".join(texts)
    latin = _stems(latin_words(joined))
    bigrams = {gram for run in cjk_runs(joined) for gram in cjk_bigrams(simplified(run))}
    return latin, bigrams


def shared_words(question: str, memory_texts: Iterable[str]) -> set[str]:
    """The content words (stems or bigrams) the question and the memory have in common."""
    q_latin, q_cjk = question_terms(question)
    m_latin, m_cjk = memory_terms(memory_texts)
    return (q_latin & m_latin) | (q_cjk & m_cjk)


def shares_word(question: str, memory_texts: Iterable[str]) -> bool:
    return bool(shared_words(question, memory_texts))
