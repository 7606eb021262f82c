"""A structured ``Match`` (``storage.query``) as an FTS5 MATCH expression: every term a quoted
phrase (``Term.expression``: a string literal, never an operator), a group's terms ORed, a
clause's groups ANDed, clauses ORed. User text never reaches MATCH raw."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from zeromem_cli.storage.query import Match
from zeromem_cli.text.query import Term


def any_of(terms: Sequence[Term]) -> str:
    """One group: its terms ORed."""
    return " OR ".join(t.expression() for t in terms)


@functools.lru_cache(maxsize=1024)
def expression(match: Match) -> str:
    """The FTS5 expression of ``match`` ("" when it has no terms).

    Any word: every term once, ORed (a term two words share counts once, as BM25 sums over
    the query's phrases). Every word: each word's group in parentheses, ANDed."""
    clauses = match.clauses
    if all(len(clause) == 1 for clause in clauses):
        terms = dict.fromkeys(t for clause in clauses for t in clause[0])
        return " OR ".join(t.expression() for t in terms)
    if len(clauses) == 1:
        return " AND ".join(f"({any_of(group)})" for group in clauses[0])
    return " OR ".join(_clause(clause) for clause in clauses)


def _clause(groups: Sequence[Sequence[Term]]) -> str:
    if len(groups) == 1:
        return any_of(groups[0])
    parts = [any_of(g) if len(g) == 1 else f"({any_of(g)})" for g in groups]
    return "(" + " AND ".join(parts) + ")"
