"""What search asks storage for: a structured query, never query text.

Ranking (``search``, ``pack``, ``writes``' near-duplicate check) describes the memories it wants
as a ``Match`` (which terms, how they combine) inside a ``CandidateQuery`` (scope, filters,
pool size); each backend compiles it itself: an FTS5 MATCH expression on SQLite
(``storage.sqlite.match``), a ``tsquery`` and BM25 in SQL on PostgreSQL
(``storage.postgres.match``). User text never reaches either raw: a ``Term`` is one word or
gram of the parsed query (``text.query``), which each backend spells as a literal.

A ``Match`` is an OR of clauses; a clause holds every one of its groups; a group (one query
word in its forms: the word, its prefix variant, irregular forms, spellings) is held through any
of its terms. ``Match.any_word`` and ``Match.every_word`` are the two shapes search
uses; the near-duplicate check ORs rare words with one clause of the common ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from zeromem_cli.models import Filters, Scope
from zeromem_cli.plain import FrozenRecord
from zeromem_cli.text.query import Term

# BM25 column weights: content, tags, category, key. Labels the user chose count more.
# More matches than this and only a window is ranked: small enough that ranking the window
# stays a small part of a search, large enough that no conversation-sized store reaches it
# (the largest LoCoMo conversation holds 689 turns, the largest LongMemEval_S haystack 591, so
# the retrieval benchmarks rank every match). 3,000 before: at 100k memories search CPU fell
# by ~28% (``python -m benchmarks.mcp_latency``), and the top 10 share 73% of their memories
# with ranking every match, against 89% with 3,000 (synthetic store, where thousands of
# memories hold the same words and the newest now win over the shortest).
LARGE = 1_000
BM25_WEIGHTS = (1.0, 2.0, 1.5, 3.0)

Group = tuple[Term, ...]


class Match(FrozenRecord):
    """Memories holding every group of at least one clause (see the module docstring)."""

    clauses: tuple[tuple[Group, ...], ...]

    @classmethod
    def any_word(cls, groups: Iterable[Sequence[Term]]) -> Match:
        """Memories holding any of ``groups``."""
        return cls(tuple((tuple(group),) for group in groups if group))

    @classmethod
    def every_word(cls, groups: Iterable[Sequence[Term]]) -> Match:
        """Memories holding every one of ``groups``."""
        kept = tuple(tuple(group) for group in groups if group)
        return cls((kept,) if kept else ())

    @classmethod
    def phrase(cls, text: str) -> Match:
        """Memories holding ``text`` as it is (one phrase: no variants)."""
        return cls((((Term(text),),),))

    def either(self, other: Match) -> Match:
        """Memories this or ``other`` matches."""
        return Match(self.clauses + other.clauses)

    @property
    def empty(self) -> bool:
        return not self.clauses

    @property
    def words(self) -> tuple[Group, ...] | None:
        """The groups of an any-word or every-word match (what bounded ranking reads, word by
        word); None for another shape."""
        if all(len(clause) == 1 for clause in self.clauses):
            return tuple(clause[0] for clause in self.clauses)
        if len(self.clauses) == 1:
            return self.clauses[0]
        return None

    @property
    def every(self) -> bool:
        """Whether a memory must hold every group (one clause of several groups)."""
        return len(self.clauses) == 1 and len(self.clauses[0]) > 1

    def exact(self) -> Match:
        """The same match with each group in its exact forms only (no prefix variant, unless
        the group has nothing else: a lone CJK character): fewer matches, cheaper to walk."""
        return Match(tuple(tuple(exact_forms(group) for group in c) for c in self.clauses))


def exact_forms(group: Sequence[Term]) -> Group:
    """``group`` without its prefix variants, unless it has nothing else."""
    kept = tuple(t for t in group if not t.prefix)
    return kept or tuple(group)


class CandidateQuery(FrozenRecord):
    """The best ``pool`` memories of ``scope`` that ``match`` matches and ``filters`` admit,
    at ``now`` (expiry), by BM25 (FTS5's sign: lower is better), ties newest first.

    ``bounded``: on a large store a backend may rank a window of the matches (the newest ones
    and every match of the rare words) instead of all of them (``storage.sqlite.window``).
    ``full_only``: only worth ranking when at least ``pool`` memories match (scope aside): a
    backend may return nothing, having probed that fewer do, rather than rank them (the
    caller then asks a wider match)."""

    match: Match
    scope: Scope
    filters: Filters
    now: datetime
    pool: int
    bounded: bool = True
    full_only: bool = False
