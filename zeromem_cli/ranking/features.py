"""Candidate features: what a candidate holds of the query, as the factors read it.

``WordTest`` says which query words (Latin words, CJK bigrams) a memory's text holds, in the
forms search accepts: the coverage bonus and session evidence read it, and ``forget --query``
acts on the memories holding every word (``holding_every_word``). A new per-candidate feature
(a semantic similarity, #35) belongs here beside it, computed once per candidate and read by a
factor of ``ranking.factors``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from zeromem_cli.models import Memory
from zeromem_cli.text.lexicon import irregular_forms
from zeromem_cli.text.normalize import fold, latin_words, simplified
from zeromem_cli.text.query import PREFIX_MIN_LENGTH, parse_query
from zeromem_cli.text.spelling import spelling_variants

_SUFFIXES = ("ing", "ed", "es", "s", "ly", "er")


def _crude_stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def present(words: list[str], row: sqlite3.Row) -> list[bool]:
    """Which query words (Latin words, CJK bigrams) the memory's text holds.

    A word counts when it, its crude stem or an irregular form occurs in the text; words of
    four letters or more may also start a longer word (as the prefix variant in the query).
    """
    return WordTest(words)(row)


class WordTest:
    """``present`` for one query: what each word is looked for as, worked out once, so each
    candidate costs one fold of its text and a few substring tests (pack re-scores hundreds)."""

    def __init__(self, words: list[str]) -> None:
        # Per word: (needles found anywhere in the text, whole words among its tokens).
        self.tests: list[tuple[tuple[str, ...], frozenset[str]]] = []
        for word in map(fold, words):
            forms = irregular_forms(word)
            spellings = spelling_variants(word)
            if len(word) >= PREFIX_MIN_LENGTH or not word.isascii():
                stems = (_crude_stem(word), *map(_crude_stem, spellings))
                self.tests.append(((*stems, *forms), frozenset()))
            else:  # short words must be whole words: "art" is not in "start"
                self.tests.append((forms, frozenset((word, _crude_stem(word), *spellings))))
        self.needs_tokens = any(whole for _, whole in self.tests)

    def __call__(self, row: sqlite3.Row | Mapping[str, Any]) -> list[bool]:
        text = " " + fold(
            " ".join((row["content"], row["tags"], row["category"], row["key"] or ""))
        )
        tokens = set(latin_words(text)) if self.needs_tokens else set()
        found = [
            not tokens.isdisjoint(whole) or any(needle in text for needle in needles)
            for needles, whole in self.tests
        ]
        if all(found) or text.isascii():
            return found
        # Traditional characters fold to simplified (as in the index) only when a word was
        # missed: most candidates hold them as written, and folding each costs.
        text = simplified(text)
        return [
            hit or any(needle in text for needle in needles)
            for hit, (needles, _) in zip(found, self.tests, strict=True)
        ]


def holding_every_word(query: str, items: Sequence[Memory]) -> list[Memory]:
    """The memories among ``items`` whose text, tags, category or key hold every word of
    ``query`` (its content words; all its words when each is a stop word), in the forms
    ``present`` accepts. What ``forget --query`` and ``restore --query`` act on."""
    words = list(parse_query(query).words)
    if not words:
        return []
    test = WordTest(words)
    return [
        m
        for m in items
        if all(
            test(
                {
                    "content": m.content,
                    "tags": " ".join(m.tags),
                    "category": m.category,
                    "key": m.key,
                }
            )
        )
    ]


def found_words(words: list[str], rows: list[sqlite3.Row]) -> list[list[bool]]:
    """For each candidate, which query words it holds (``present``).

    BM25 adds up term scores, so one very rare word can outweigh three ordinary ones: the
    share of the question a memory holds (the coverage bonus) makes a memory holding more of
    it rank above one holding less, and the share its session holds is session evidence.
    """
    if not words or not rows:
        return [[] for _ in rows]
    test = WordTest(words)
    return [test(row) for row in rows]


__all__ = ["WordTest", "found_words", "holding_every_word", "present"]
