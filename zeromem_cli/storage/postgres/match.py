"""A structured ``Match`` (``storage.query``) as a ``tsquery``, and the phrases BM25 scores.

Each ``Term`` becomes a ``Phrase`` of the tokens the index holds for its text (``index``), its
prefix flag a ``:*``; a term whose characters may stand apart (``Term.near``) is each character
as a prefix, both required (FTS5's NEAR, read as AND). A group's phrases are ORed, a clause's
groups ANDed, clauses ORed; a term with no token matches nothing (dropped from an OR, and an AND
holding it matches nothing). No FTS5 expression is written or read on the way.

``search --fts`` brings the user's own ``tsquery`` (``expression``): its words are cut into
the index's tokens here, its operators read by PostgreSQL.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from zeromem_cli.errors import InvalidInputError
from zeromem_cli.storage.postgres.index import Parsed, Phrase, _lexeme, tokenize
from zeromem_cli.storage.query import Match
from zeromem_cli.text.normalize import (
    _cjk_split,
    cjk_bigrams,
    has_cjk,
    index_text,
    normalize,
    simplified,
)
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


# -- search --fts: the user's own tsquery ------------------------------------------------------

# tsquery's operators and an operand's label or prefix tail (``:*``, ``:AB``); what lies
# between them is an operand, cut into the index's tokens here.
_OPERATOR = re.compile(r"(<->|<\d+>|[&|!()]|:[*A-Da-d]+)")
# FTS5's own syntax, which a user of a SQLite store may bring: its keywords, a quoted phrase,
# a ``*`` prefix, ``^`` or a column filter. Told apart, not read as words.
_FTS5_SYNTAX = re.compile(r'\b(?:AND|OR|NOT|NEAR)\b|["^{}+]|(?<![:\s])\*|\b\w+\s*:\s')


def expression(conn: Any, text: str) -> Parsed:
    """``search --fts`` on PostgreSQL: ``text`` in PostgreSQL's own ``tsquery`` syntax
    (``&``, ``|``, ``!``, ``<->``, ``<N>``, parentheses, ``:*`` for a prefix), its operands
    cut into the index's tokens (``text.tokens``: folded and stemmed; several tokens make a
    phrase, a CJK run its bigrams) and the whole read by the server's ``tsquery`` input, so
    PostgreSQL, not zeromem, parses the operators. A malformed expression, or FTS5's syntax,
    is one line (``InvalidInputError``)."""
    import psycopg

    if _FTS5_SYNTAX.search(text):
        raise InvalidInputError(
            "on a PostgreSQL store --fts takes PostgreSQL's tsquery syntax "
            "(deploy & !staging, 'weekly <-> report', config:*, a | b), not FTS5's"
        )
    pieces = _OPERATOR.split(text)
    out: list[str] = []
    for number, piece in enumerate(pieces):
        if number % 2:  # an operator or a tail
            out.append(piece.lower() if piece.startswith(":") else piece)
            continue
        lexemes = [_lexeme(token) for token in _operand_tokens(piece)]
        if not lexemes:
            out.append(piece)  # only spaces (or nothing the index holds: a syntax error)
        elif len(lexemes) == 1:
            out.append(lexemes[0])
        elif number + 1 < len(pieces) and pieces[number + 1].startswith(":"):
            out.append("(" + " <-> ".join(lexemes[:-1]) + " <-> " + lexemes[-1])
            out.append(pieces[number + 1].lower() + ")")
            pieces[number + 1] = ""
        else:
            out.append("(" + " <-> ".join(lexemes) + ")")
    try:
        with conn.transaction():
            row = conn.execute("SELECT %s::tsquery::text AS q", ("".join(out),)).fetchone()
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid"
        raise InvalidInputError(f"invalid tsquery expression: {first}") from None
    tsquery = row["q"] or None
    phrases = [
        Phrase((lexeme.replace("''", "'"),), bool(prefix))
        for lexeme, prefix in _QUOTED.findall(tsquery or "")
    ]
    return Parsed(tsquery, tuple(dict.fromkeys(phrases)))


_QUOTED = re.compile(r"'((?:[^']|'')*)'(:\*)?")


def _operand_tokens(text: str) -> list[str]:
    """An operand's index tokens: its words as the index holds them, a CJK run as its
    bigrams (a lone character as itself: give it ``:*`` to find it inside runs)."""
    if not has_cjk(text):
        return tokenize([index_text(text)])[0]
    found: list[str] = []
    for number, part in enumerate(_cjk_split().split(normalize(text))):
        if number % 2:
            found += cjk_bigrams(simplified(part))
        else:
            found += tokenize([index_text(part)])[0]
    return found
