"""A structured ``Match`` (``storage.query``) as a ``tsquery``, and the phrases BM25 scores.

Each ``Term`` becomes a ``Phrase`` of the tokens the index holds for its text (``index``), its
prefix flag a ``:*``; a term whose characters may stand apart (``Term.near``) is each character
as a prefix, both required (FTS5's NEAR, read as AND). A group's phrases are ORed, a clause's
groups ANDed, clauses ORed; a term with no token matches nothing (dropped from an OR, and an AND
holding it matches nothing). No FTS5 expression is written or read on the way.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from zeromem_cli.storage.postgres.index import Parsed, Phrase, tokenize
from zeromem_cli.storage.query import Match
from zeromem_cli.text.query import Term


def _phrase(text: str, prefix: bool) -> Phrase | None:
    tokens = tuple(tokenize([text])[0])
    return Phrase(tokens, prefix) if tokens else None


def _term(term: Term, phrases: list[Phrase]) -> str | None:
    """The ``tsquery`` of one term (its phrases appended to ``phrases``); None: no token."""
    if term.near:
        parts = [_phrase(char, True) for char in term.text]
        if any(p is None for p in parts):
            return None
        kept = [p for p in parts if p is not None]
        phrases.extend(kept)
        return "(" + " & ".join(p.tsquery() for p in kept) + ")"
    phrase = _phrase(term.text, term.prefix)
    if phrase is None:
        return None
    phrases.append(phrase)
    return phrase.tsquery()


def _either(parts: Sequence[str | None]) -> str | None:
    kept = [p for p in parts if p is not None]
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else "(" + " | ".join(kept) + ")"


@functools.lru_cache(maxsize=4096)
def compiled(match: Match) -> Parsed:
    """The ``tsquery`` of ``match`` (None: it can match nothing) and its distinct phrases, in
    order. Cached: a search compiles the same few matches several times (each word's forms
    for the window, the counts and the ranking), and tokenizing a term costs."""
    phrases: list[Phrase] = []
    clauses = match.clauses
    if all(len(clause) == 1 for clause in clauses):  # any word: every term once
        terms = dict.fromkeys(t for clause in clauses for t in clause[0])
        tsquery = _either([_term(t, phrases) for t in terms])
    else:
        found: list[str | None] = []
        for clause in clauses:
            groups = [_either([_term(t, phrases) for t in group]) for group in clause]
            if any(g is None for g in groups):
                found.append(None)
            else:
                kept = [g for g in groups if g is not None]
                found.append(kept[0] if len(kept) == 1 else "(" + " & ".join(kept) + ")")
        tsquery = _either(found)
    return Parsed(tsquery, tuple(dict.fromkeys(phrases)))
